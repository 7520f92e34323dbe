#include "Frame.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

namespace cuvil::runtime {

int allocateFrame(const cuvil_model_info &model, void *runtime, const void *weights,
                  FrameMemory &memory) {
  memory = FrameMemory();
  uint64_t frameBytes = model.frame_bytes < sizeof(cuvil_frame_header) ? sizeof(cuvil_frame_header)
                                                                       : model.frame_bytes;
  if (posix_memalign(&memory.frame, 64, frameBytes) != 0) {
    memory.frame = nullptr;
    return ENOMEM;
  }
  std::memset(memory.frame, 0, frameBytes);
  // Page aligned, hence 64-byte aligned; at least a page, so the pointer the
  // model loads is never null.
  memory.arenaMapped = model.arena_bytes ? model.arena_bytes : 1;
  void *arena =
      mmap(nullptr, memory.arenaMapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (arena == MAP_FAILED) {
    int error = errno;
    std::free(memory.frame);
    memory = FrameMemory();
    return error;
  }
  memory.arena = arena;
  auto *header = static_cast<cuvil_frame_header *>(memory.frame);
  header->runtime = runtime;
  header->arena = arena;
  header->weights = weights;
  return 0;
}

void releaseFrame(FrameMemory &memory) {
  if (memory.arena)
    munmap(memory.arena, memory.arenaMapped);
  std::free(memory.frame);
  memory = FrameMemory();
}

} // namespace cuvil::runtime
