#include "Frame.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/mman.h>
#include <sys/random.h>

namespace cuvil::runtime {

namespace {

// A seed for the instance's unseeded random ops: the system's entropy, or
// where that fails, the clock and the frame's address.
uint64_t entropySeed(const void *frame) {
  uint64_t seed = 0;
  if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == ssize_t(sizeof seed))
    return seed;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return uint64_t(now.tv_nsec) * 0x9E3779B97F4A7C15ull ^ uint64_t(now.tv_sec) ^
         uint64_t(uintptr_t(frame));
}

} // namespace

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
  memory.strings = createStringStorage();
  if (!memory.strings) {
    releaseFrame(memory);
    return ENOMEM;
  }
  auto *header = static_cast<cuvil_frame_header *>(memory.frame);
  header->runtime = runtime;
  header->arena = arena;
  header->weights = weights;
  header->random_seed = entropySeed(memory.frame);
  header->strings = stringServices(memory.strings);
  return 0;
}

void releaseFrame(FrameMemory &memory) {
  if (memory.arena)
    munmap(memory.arena, memory.arenaMapped);
  std::free(memory.frame);
  destroyStringStorage(memory.strings);
  memory = FrameMemory();
}

void prepareRun(FrameMemory &memory) { resetStringStorage(memory.strings); }

} // namespace cuvil::runtime
