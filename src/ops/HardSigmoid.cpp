// HardSigmoid: y = max(0, min(1, alpha * x + beta)), alpha 0.2, beta 0.5 by default.
#include "Elementwise.h"

#include <algorithm>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"HardSigmoid", CUVIL_UNARY_HARDSIGMOID,
                              [](double x, const Node &node) {
                                double y = double(node.getFloat("alpha", 0.2f)) * x +
                                           double(node.getFloat("beta", 0.5f));
                                return std::clamp(y, 0.0, 1.0);
                              },
                              [](const Node &node, float &alpha, float &beta) {
                                alpha = node.getFloat("alpha", 0.2f);
                                beta = node.getFloat("beta", 0.5f);
                                return Status::success();
                              }};
} // namespace
extern const OpDefinition kHardSigmoidOp =
    UnaryOp<kTraits>::definition({{"alpha", AttrKind::Float}, {"beta", AttrKind::Float}});
} // namespace cuvil::ops
