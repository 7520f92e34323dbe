// The build artefacts the compiler carries per target architecture
// (EmbeddedKernels.S): kernel bitcode, the infer.bin runtime archive and the
// model-library runtime archive.
#pragma once

#include "cuvil/support/Status.h"

#include <string_view>

namespace cuvil {

enum class EmbeddedKind { Kernels, Runtime, Embed };

/// The bytes of `kind` for the architecture of `triple` ("aarch64-..."), or
/// an error naming the architectures this compiler was built with.
Expected<std::string_view> embeddedFile(std::string_view triple, EmbeddedKind kind);

} // namespace cuvil
