// GlobalMaxPool: the maximum of each (n, c) plane; y is [N, C, 1, ...].
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {
constexpr ReduceTraits kTraits{"GlobalMaxPool", CUVIL_REDUCE_MAX};
} // namespace
extern const OpDefinition kGlobalMaxPoolOp = GlobalPoolOp<kTraits>::definition();
} // namespace cuvil::ops
