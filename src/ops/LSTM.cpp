// LSTM: a one-layer long short-term memory with gates i, o, f, c, optional
// peepholes P and a coupled input and forget gate (input_forget), run
// forward, in reverse or both ways (RecurrentCommon.h); canonicalize turns
// it into the input projection's MatMul and cuvil.Recurrence.
#include "RecurrentCommon.h"

namespace cuvil::ops {

extern const OpDefinition kLSTMOp = {
    OpSchema{"LSTM", 3, 8, 1, 3, recurrentAttributes("LSTM"), inferRecurrent, evalRecurrent},
    lowerRecurrent};

} // namespace cuvil::ops
