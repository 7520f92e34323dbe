// GRU: a one-layer gated recurrent unit with gates z, r and h, the reset
// gate applied before or after (linear_before_reset) the recurrence
// weights, run forward, in reverse or both ways (RecurrentCommon.h);
// canonicalize turns it into the input projection's MatMul and
// cuvil.Recurrence.
#include "RecurrentCommon.h"

namespace cuvil::ops {

extern const OpDefinition kGRUOp = {
    OpSchema{"GRU", 3, 6, 1, 2, recurrentAttributes("GRU"), inferRecurrent, evalRecurrent},
    lowerRecurrent};

} // namespace cuvil::ops
