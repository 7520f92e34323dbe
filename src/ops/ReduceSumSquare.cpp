// ReduceSumSquare: the sum of squares over the reduced axes.
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {
constexpr ReduceTraits kTraits{"ReduceSumSquare", CUVIL_REDUCE_SUM_SQUARE};
} // namespace
extern const OpDefinition kReduceSumSquareOp = ReduceOp<kTraits>::definition();
} // namespace cuvil::ops
