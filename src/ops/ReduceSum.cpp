// ReduceSum: the sum over the reduced axes.
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {
constexpr ReduceTraits kTraits{"ReduceSum", CUVIL_REDUCE_SUM};
} // namespace
extern const OpDefinition kReduceSumOp = ReduceOp<kTraits>::definition();
} // namespace cuvil::ops
