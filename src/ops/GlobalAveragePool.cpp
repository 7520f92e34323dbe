// GlobalAveragePool: the mean of each (n, c) plane; y is [N, C, 1, ...].
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {
constexpr ReduceTraits kTraits{"GlobalAveragePool", CUVIL_REDUCE_MEAN};
} // namespace
extern const OpDefinition kGlobalAveragePoolOp = GlobalPoolOp<kTraits>::definition();
} // namespace cuvil::ops
