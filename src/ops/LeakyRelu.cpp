// LeakyRelu: y = x < 0 ? alpha * x : x (alpha defaults to 0.01).
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"LeakyRelu", CUVIL_UNARY_LEAKYRELU,
                              [](double x, const Node &node) {
                                return x < 0 ? double(node.getFloat("alpha", 0.01f)) * x : x;
                              },
                              [](const Node &node, float &alpha, float &) {
                                alpha = node.getFloat("alpha", 0.01f);
                                return Status::success();
                              }};
} // namespace
extern const OpDefinition kLeakyReluOp = UnaryOp<kTraits>::definition({{"alpha", AttrKind::Float}});
} // namespace cuvil::ops
