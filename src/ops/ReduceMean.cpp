// ReduceMean: the mean over the reduced axes.
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {
constexpr ReduceTraits kTraits{"ReduceMean", CUVIL_REDUCE_MEAN};
} // namespace
extern const OpDefinition kReduceMeanOp = ReduceOp<kTraits>::definition();
} // namespace cuvil::ops
