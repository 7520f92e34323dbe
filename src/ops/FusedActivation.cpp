#include "FusedActivation.h"

#include "Elementwise.h"

namespace cuvil::ops {

Expected<FusedActivation> fusedActivation(const Node &node, std::string_view prefix) {
  std::string name = node.getString(fmt::format("{}activation", prefix), "");
  std::vector<float> params = node.getFloats(fmt::format("{}activation_params", prefix));
  if (name.empty()) {
    if (!params.empty())
      return Status::error("activation parameters without an activation");
    return FusedActivation{};
  }
  const OpDefinition *op = findOpDefinition(name);
  const std::optional<ElementwiseFacts> *facts = op ? &op->schema.elementwise : nullptr;
  bool activation = facts && *facts && (*facts)->arity == ElementwiseFacts::Arity::Unary &&
                    (*facts)->finiteAtZero;
  if (!activation)
    return Status::error(fmt::format("'{}' is not an activation a kernel can fuse", name));
  if (params.size() != (*facts)->paramCount)
    return Status::error(fmt::format("activation {} takes {} parameters, got {}", name,
                                     (*facts)->paramCount, params.size()));
  return FusedActivation{op, std::move(params)};
}

cuvil_unary FusedActivation::kernel() const {
  return op ? unaryKernelOf(*op, params) : cuvil_unary{CUVIL_UNARY_IDENTITY, 0, 0};
}

double FusedActivation::apply(double x) const {
  return op ? op->elementwise.unaryReference(x, params) : x;
}

} // namespace cuvil::ops
