// ArgMax: the index of the largest element along an axis (ArgReduce.cpp).
#include "ArgReduce.h"

namespace cuvil::ops {
extern const OpDefinition kArgMaxOp = argReduceDefinition("ArgMax", /*minimum=*/false);
} // namespace cuvil::ops
