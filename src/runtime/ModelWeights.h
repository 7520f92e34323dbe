#ifndef CUVIL_RUNTIME_MODELWEIGHTS_H
#define CUVIL_RUNTIME_MODELWEIGHTS_H

#include "cuvil/runtime/ModelABI.h"

#include <cstddef>
#include <cstdint>

namespace cuvil::runtime {

/// Where `model`'s weights are in this process (cuvil_frame_header.weights):
/// model.weights when they were loaded with the program; otherwise the
/// section model.weights_section of the file the model was loaded from
/// (an executable or shared library, found through /proc/self/maps and
/// checked to be that very file), mapped read-only once per process and
/// kept until it exits. Returns nullptr with a message in `message` when
/// they cannot be mapped. Needs nothing but libc, like the frame.
const void *modelWeights(const cuvil_model_info &model, char *message, size_t size);

/// The mapping itself: section `section`, of `bytes` bytes, of the ELF file
/// open as `fd`, read-only and 64-byte aligned (a page-aligned section is
/// mapped in place, any other copied). Every offset and size read from the
/// file is checked against the file's size. Returns nullptr with a message
/// when the file is not such an ELF file or has no such section.
const void *mapElfSection(int fd, const char *section, uint64_t bytes, char *message, size_t size);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_MODELWEIGHTS_H
