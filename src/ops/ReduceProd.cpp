// ReduceProd: the product over the reduced axes.
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {
constexpr ReduceTraits kTraits{"ReduceProd", CUVIL_REDUCE_PROD};
} // namespace
extern const OpDefinition kReduceProdOp = ReduceOp<kTraits>::definition();
} // namespace cuvil::ops
