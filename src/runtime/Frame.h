#ifndef CUVIL_RUNTIME_FRAME_H
#define CUVIL_RUNTIME_FRAME_H

#include "StringServices.h"
#include "cuvil/runtime/ModelABI.h"

#include <cstdint>

namespace cuvil::runtime {

/// The memory one instance of a model runs in: its frame (zeroed, 64-byte
/// aligned, cuvil_frame_header first) and the arena the frame points to
/// (zero pages mapped on first touch, so a large arena costs what a run
/// uses). Needs nothing but libc, like the thread pool.
struct FrameMemory {
  void *frame = nullptr;
  void *arena = nullptr;
  uint64_t arenaMapped = 0;
  StringStorage *strings = nullptr; // the frame's cuvil_string_services
};

/// Allocates both for `model`, the frame's runtime and weights fields set
/// to `runtime` and `weights` (modelWeights). Returns 0, or the error number
/// (ENOMEM for a size the address space cannot hold) with nothing left
/// allocated.
int allocateFrame(const cuvil_model_info &model, void *runtime, const void *weights,
                  FrameMemory &memory);
void releaseFrame(FrameMemory &memory);
/// Readies the frame for its next run: the strings the last one made are
/// given back (the caller has read its outputs).
void prepareRun(FrameMemory &memory);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_FRAME_H
