// What ScatterElements and ScatterND share: the `reduction` attribute (how
// an update combines with the element it lands on), its reference, and the
// output's start as a copy of data.
#pragma once

#include "OpSupport.h"
#include "cuvil/kernels/Indexing.h"

namespace cuvil::ops {

// The node's `reduction` as the kernels' code; an error for a name ONNX
// does not define.
Expected<cuvil_scatter_reduction> scatterReduction(const Node &node);

// out[at] = out[at] (reduction) updates[from], as the kernels compute it.
void combineElement(cuvil_scatter_reduction reduction, Tensor &out, int64_t at,
                    const Tensor &updates, int64_t from);

// Data (input 0) copied into the output, which the scatter kernel then
// updates in place.
Status copyDataToOutput(const Node &node, LoweringContext &ctx);

} // namespace cuvil::ops
