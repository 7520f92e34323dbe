// RNN: a one-layer simple RNN, H_t = f(X_t W^T + H_t-1 R^T + Wb + Rb), run
// forward, in reverse or both ways (RecurrentCommon.h); canonicalize turns
// it into the input projection's MatMul and cuvil.Recurrence.
#include "RecurrentCommon.h"

namespace cuvil::ops {

extern const OpDefinition kRNNOp = {
    OpSchema{"RNN", 3, 6, 1, 2, recurrentAttributes("RNN"), inferRecurrent, evalRecurrent},
    lowerRecurrent};

} // namespace cuvil::ops
