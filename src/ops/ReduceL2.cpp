// ReduceL2: the Euclidean norm over the reduced axes.
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {
constexpr ReduceTraits kTraits{"ReduceL2", CUVIL_REDUCE_L2};
} // namespace
extern const OpDefinition kReduceL2Op = ReduceOp<kTraits>::definition();
} // namespace cuvil::ops
