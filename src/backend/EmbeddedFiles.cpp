#include "EmbeddedFiles.h"

#include <fmt/format.h>

// Defined by EmbeddedKernels.S for each architecture the build embeds.
#define CUVIL_DECLARE_EMBEDDED(arch)                                                               \
  extern "C" const char cuvil_kernels_##arch[], cuvil_runtime_##arch[], cuvil_embed_##arch[];      \
  extern "C" const unsigned long long cuvil_kernels_##arch##_size, cuvil_runtime_##arch##_size,    \
      cuvil_embed_##arch##_size;
#define CUVIL_EMBEDDED_ROW(arch)                                                                   \
  {#arch,                                                                                          \
   {{cuvil_kernels_##arch, &cuvil_kernels_##arch##_size},                                          \
    {cuvil_runtime_##arch, &cuvil_runtime_##arch##_size},                                          \
    {cuvil_embed_##arch, &cuvil_embed_##arch##_size}}},

CUVIL_DECLARE_EMBEDDED(x86_64)
#if CUVIL_EMBEDS_AARCH64
CUVIL_DECLARE_EMBEDDED(aarch64)
#endif

namespace cuvil {
namespace {

struct EmbeddedBytes {
  const char *bytes;
  const unsigned long long *size;
};

struct EmbeddedArch {
  std::string_view arch;
  EmbeddedBytes files[3]; // by EmbeddedKind
};

const EmbeddedArch kEmbedded[] = {CUVIL_EMBEDDED_ROW(x86_64)
#if CUVIL_EMBEDS_AARCH64
                                      CUVIL_EMBEDDED_ROW(aarch64)
#endif
};

} // namespace

Expected<std::string_view> embeddedFile(std::string_view triple, EmbeddedKind kind) {
  std::string_view arch = triple.substr(0, triple.find('-'));
  std::string built;
  for (const EmbeddedArch &entry : kEmbedded) {
    if (entry.arch == arch) {
      const EmbeddedBytes &file = entry.files[int(kind)];
      return std::string_view(file.bytes, size_t(*file.size));
    }
    built += fmt::format("{}{}", built.empty() ? "" : ", ", entry.arch);
  }
  return Status::error(fmt::format(
      "this cuvil was built without the {} kernels and runtime (it has: {}); rebuild it with "
      "the cross libraries installed (scripts/install-deps.sh build)",
      arch, built));
}

} // namespace cuvil
