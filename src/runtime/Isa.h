#ifndef CUVIL_RUNTIME_ISA_H
#define CUVIL_RUNTIME_ISA_H

#include "cuvil/runtime/ModelABI.h"

#include <string>

namespace cuvil::runtime {

/// "avx512", "avx2" or "baseline" for a cuvil_isa_level value.
const char *isaLevelName(int32_t level);

/// Throws std::runtime_error when this CPU (or CUVIL_ISA) cannot run the
/// model's fallback variant, or when CUVIL_ISA is not a known name.
void checkIsaSupport(const cuvil_model_info &model);

/// The variant cuvil_run will take on this CPU, e.g. "avx2 (CUVIL_ISA=avx2)".
std::string selectedVariant(const cuvil_model_info &model);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_ISA_H
