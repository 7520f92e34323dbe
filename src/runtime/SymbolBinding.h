#ifndef CUVIL_RUNTIME_SYMBOLBINDING_H
#define CUVIL_RUNTIME_SYMBOLBINDING_H

#include "cuvil/runtime/ModelABI.h"

#include <cstddef>
#include <cstdint>

namespace cuvil::runtime {

/// Whether dim d of an input or output is a symbol's (not fixed at compile time).
inline bool isSymbolicDim(const cuvil_tensor_info &info, int32_t d) {
  return info.dim_symbols && info.dim_symbols[d] >= 0;
}

/// Binds the model's input symbols to the values the inputs give: their
/// symbolic dims, and the elements of inputs whose values a --value /
/// --value-range compile fixed or ranged. inputDims[i] holds input i's rank
/// dims; inputData[i] its data (read only for those inputs, whose dtype and
/// element count the caller checked). Writes one value per symbol to
/// `symbols` (0 for those the run computes) and returns true, or returns
/// false with a message naming the input, the dim or element and the symbol
/// in `error`: a value outside its symbol's range, two places that give one
/// symbol different values, an element unlike the value it was compiled for.
/// libc only (no C++ runtime library), for model libraries as for infer.bin.
bool bindInputSymbols(const cuvil_model_info &model, const int64_t *const *inputDims,
                      const void *const *inputData, int64_t *symbols, char *error,
                      size_t errorSize);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_SYMBOLBINDING_H
