// ReduceMax: the maximum over the reduced axes.
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {
constexpr ReduceTraits kTraits{"ReduceMax", CUVIL_REDUCE_MAX};
} // namespace
extern const OpDefinition kReduceMaxOp = ReduceOp<kTraits>::definition();
} // namespace cuvil::ops
