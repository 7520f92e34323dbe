// ArgMin: the index of the smallest element along an axis (ArgReduce.cpp).
#include "ArgReduce.h"

namespace cuvil::ops {
extern const OpDefinition kArgMinOp = argReduceDefinition("ArgMin", /*minimum=*/true);
} // namespace cuvil::ops
