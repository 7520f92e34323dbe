// ReduceL1: the sum of absolute values over the reduced axes.
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {
constexpr ReduceTraits kTraits{"ReduceL1", CUVIL_REDUCE_L1};
} // namespace
extern const OpDefinition kReduceL1Op = ReduceOp<kTraits>::definition();
} // namespace cuvil::ops
