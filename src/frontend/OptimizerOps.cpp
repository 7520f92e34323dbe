#include "OptimizerOps.h"

#include <fmt/format.h>

namespace cuvil {
namespace {

// Builds elementwise expressions in a graph, each node named after the
// optimiser node's first result.
class Expression {
public:
  Expression(Graph &graph, std::string base) : graph_(graph), base_(std::move(base)) {}

  Value *constant(float value) {
    return graph_.addConstant(base_ + ".c", Tensor::scalarF32(value));
  }
  Value *op(const std::string &op, const std::vector<Value *> &inputs) {
    return graph_.addNode(op, inputs, {base_ + "." + op})->output(0);
  }
  Value *add(Value *a, Value *b) { return op("Add", {a, b}); }
  Value *sub(Value *a, Value *b) { return op("Sub", {a, b}); }
  Value *mul(Value *a, Value *b) { return op("Mul", {a, b}); }
  Value *div(Value *a, Value *b) { return op("Div", {a, b}); }
  Value *sqrt(Value *a) { return op("Sqrt", {a}); }
  // T as a float, and T > 0.
  Value *asFloat(Value *t) {
    Node *cast = graph_.addNode("Cast", {t}, {base_ + ".T"});
    cast->setAttr("to", int64_t(1)); // FLOAT
    return cast->output(0);
  }
  Value *positive(Value *t) {
    int64_t zero = 0;
    return op("Greater",
              {t, graph_.addConstant(base_ + ".zero",
                                     Tensor::fromInt64s(std::span<const int64_t>(&zero, 1), {}))});
  }

private:
  Graph &graph_;
  std::string base_;
};

float floatAttribute(const onnx::NodeProto &node, std::string_view name, float fallback) {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return attr.f();
  return fallback;
}

std::string stringAttribute(const onnx::NodeProto &node, std::string_view name,
                            const std::string &fallback) {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return attr.s();
  return fallback;
}

// The tensors an optimiser updates: `groups` lists of `count` each after R
// and T (X..., G..., and V... or H...).
Expected<size_t> tensorCount(const onnx::NodeProto &node, const std::vector<Value *> &inputs,
                             size_t groups, size_t outputGroups) {
  if (inputs.size() < 2 + groups || (inputs.size() - 2) % groups != 0)
    return Status::error(fmt::format("takes R, T and {} lists of tensors of one length", groups));
  size_t count = (inputs.size() - 2) / groups;
  if (size_t(node.output_size()) != outputGroups * count)
    return Status::error(
        fmt::format("returns {} results for {} tensors updated", node.output_size(), count));
  for (Value *input : inputs)
    if (!input)
      return Status::error("every input must be given");
  return count;
}

//   r = R / (1 + T * decay_factor); G' = norm_coefficient * X + G
//   H_new = H + G' * G'; X_new = X - r * G' / (sqrt(H_new) + epsilon)
Expected<std::vector<Value *>> adagrad(const onnx::NodeProto &node, Graph &graph,
                                       const std::vector<Value *> &in) {
  Expected<size_t> n = tensorCount(node, in, 3, 2);
  CUVIL_TRY(n.status());
  Expression e(graph, node.output(0));
  Value *T = e.asFloat(in[1]);
  Value *r = e.div(
      in[0], e.add(e.constant(1), e.mul(T, e.constant(floatAttribute(node, "decay_factor", 0)))));
  std::vector<Value *> xs, hs;
  for (size_t i = 0; i < *n; ++i) {
    Value *X = in[2 + i], *G = in[2 + *n + i], *H = in[2 + 2 * *n + i];
    Value *g = e.add(e.mul(e.constant(floatAttribute(node, "norm_coefficient", 0)), X), G);
    Value *h = e.add(H, e.mul(g, g));
    Value *adaptive = e.add(e.sqrt(h), e.constant(floatAttribute(node, "epsilon", 1e-6f)));
    xs.push_back(e.sub(X, e.div(e.mul(r, g), adaptive)));
    hs.push_back(h);
  }
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

//   G' = norm_coefficient * X + G; beta' = T > 0 ? beta : 1
//   V_new = alpha * V + beta' * G'
//   X_new = X - R * V_new (standard), X - R * (G' + alpha * V_new) (nesterov)
Expected<std::vector<Value *>> momentum(const onnx::NodeProto &node, Graph &graph,
                                        const std::vector<Value *> &in) {
  Expected<size_t> n = tensorCount(node, in, 3, 2);
  CUVIL_TRY(n.status());
  std::string mode = stringAttribute(node, "mode", "standard");
  if (mode != "standard" && mode != "nesterov")
    return Status::error(fmt::format("mode '{}' is neither standard nor nesterov", mode));
  Expression e(graph, node.output(0));
  Value *alpha = e.constant(floatAttribute(node, "alpha", 0));
  Value *beta = e.op(
      "Where", {e.positive(in[1]), e.constant(floatAttribute(node, "beta", 0)), e.constant(1)});
  std::vector<Value *> xs, vs;
  for (size_t i = 0; i < *n; ++i) {
    Value *X = in[2 + i], *G = in[2 + *n + i], *V = in[2 + 2 * *n + i];
    Value *g = e.add(e.mul(e.constant(floatAttribute(node, "norm_coefficient", 0)), X), G);
    Value *v = e.add(e.mul(alpha, V), e.mul(beta, g));
    Value *step = mode == "standard" ? v : e.add(g, e.mul(alpha, v));
    xs.push_back(e.sub(X, e.mul(in[0], step)));
    vs.push_back(v);
  }
  xs.insert(xs.end(), vs.begin(), vs.end());
  return xs;
}

//   G' = norm_coefficient * X + G
//   V_new = alpha * V + (1 - alpha) * G'; H_new = beta * H + (1 - beta) * G' * G'
//   R' = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
//   X_new = (1 - norm_coefficient_post) * (X - R' * V_new / (sqrt(H_new) + epsilon))
Expected<std::vector<Value *>> adam(const onnx::NodeProto &node, Graph &graph,
                                    const std::vector<Value *> &in) {
  Expected<size_t> n = tensorCount(node, in, 4, 3);
  CUVIL_TRY(n.status());
  Expression e(graph, node.output(0));
  float alphaValue = floatAttribute(node, "alpha", 0.9f),
        betaValue = floatAttribute(node, "beta", 0.999f);
  Value *alpha = e.constant(alphaValue), *beta = e.constant(betaValue), *one = e.constant(1);
  Value *T = e.asFloat(in[1]);
  Value *corrected = e.div(e.mul(in[0], e.sqrt(e.sub(one, e.op("Pow", {beta, T})))),
                           e.sub(one, e.op("Pow", {alpha, T})));
  Value *r = e.op("Where", {e.positive(in[1]), corrected, in[0]});
  Value *keep = e.constant(1 - floatAttribute(node, "norm_coefficient_post", 0));
  std::vector<Value *> xs, vs, hs;
  for (size_t i = 0; i < *n; ++i) {
    Value *X = in[2 + i], *G = in[2 + *n + i], *V = in[2 + 2 * *n + i], *H = in[2 + 3 * *n + i];
    Value *g = e.add(e.mul(e.constant(floatAttribute(node, "norm_coefficient", 0)), X), G);
    Value *v = e.add(e.mul(alpha, V), e.mul(e.constant(1 - alphaValue), g));
    Value *h = e.add(e.mul(beta, H), e.mul(e.constant(1 - betaValue), e.mul(g, g)));
    Value *root = e.add(e.sqrt(h), e.constant(floatAttribute(node, "epsilon", 1e-6f)));
    xs.push_back(e.mul(keep, e.sub(X, e.div(e.mul(r, v), root))));
    vs.push_back(v);
    hs.push_back(h);
  }
  xs.insert(xs.end(), vs.begin(), vs.end());
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

} // namespace

bool isOptimizerOp(const onnx::NodeProto &node) {
  return node.domain() == kTrainingDomain &&
         (node.op_type() == "Adagrad" || node.op_type() == "Adam" || node.op_type() == "Momentum");
}

Expected<std::vector<Value *>> importOptimizerOp(const onnx::NodeProto &node, Graph &graph,
                                                 const std::vector<Value *> &inputs) {
  if (node.op_type() == "Adagrad")
    return adagrad(node, graph, inputs);
  if (node.op_type() == "Adam")
    return adam(node, graph, inputs);
  return momentum(node, graph, inputs);
}

} // namespace cuvil
