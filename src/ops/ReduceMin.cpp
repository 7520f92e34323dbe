// ReduceMin: the minimum over the reduced axes.
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {
constexpr ReduceTraits kTraits{"ReduceMin", CUVIL_REDUCE_MIN};
} // namespace
extern const OpDefinition kReduceMinOp = ReduceOp<kTraits>::definition();
} // namespace cuvil::ops
