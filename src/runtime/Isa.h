#ifndef CUVIL_RUNTIME_ISA_H
#define CUVIL_RUNTIME_ISA_H

#include "cuvil/runtime/ModelABI.h"

#include <string>

namespace cuvil::runtime {

/// "avx512bf16", "avx512vnni", "avx512", "avx2" or "baseline" for a
/// cuvil_isa_level value.
const char *isaLevelName(int32_t level);
/// How many levels there are, and their names as a list for messages.
int32_t isaLevelCount();
const char *isaLevelNames();

/// The level CUVIL_ISA caps the CPU's at: -1 when unset, kUnknownIsaCap for
/// a name that is none of the levels'.
constexpr int32_t kUnknownIsaCap = -2;
int32_t requestedIsaCap();

/// The CPU's level under that cap (what cuvil_isa_level answers).
int32_t effectiveIsaLevel();

/// The SVE vector length in bits when the SVE variant runs, else 0.
int32_t scalableVectorBits();

/// Throws std::runtime_error when this CPU (or CUVIL_ISA) cannot run the
/// model's fallback variant, or when CUVIL_ISA is not a known name.
void checkIsaSupport(const cuvil_model_info &model);

/// The variant cuvil_run will take on this CPU, e.g. "avx2 (CUVIL_ISA=avx2)".
std::string selectedVariant(const cuvil_model_info &model);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_ISA_H
