// canonicalize's rewrites of activations written out in elementwise ops
// (CanonicalizeActivations.h): SiLU and GELU, erf form and tanh form.
#include "CanonicalizeActivations.h"

#include "PassUtils.h"

#include <cmath>

namespace cuvil {
namespace {

// Scalar constant within a relative 1e-5 of `expected`.
bool isScalar(const Value *value, double expected) {
  return value && value->isConstant() && value->constant().numElements() == 1 &&
         std::fabs(value->constant().getDouble(0) - expected) <= 1e-5 * std::fabs(expected);
}

// The producer of `value` if it is `op` and `value` has no other use.
Node *soleProducer(const Value *value, std::string_view op) {
  Node *producer = value->producer();
  return producer && producer->op() == op && value->hasOneUse() ? producer : nullptr;
}

// The operand of `mul` (a Mul) that the other, a scalar `factor`,
// multiplies, or null.
Value *scaledBy(const Node *mul, double factor) {
  if (!mul || mul->op() != "Mul")
    return nullptr;
  for (size_t i = 0; i < 2; ++i)
    if (isScalar(mul->input(1 - i), factor))
      return mul->input(i);
  return nullptr;
}

// x where `value` is x^3: Pow(x, 3), x * (x * x) or (x * x) * x.
Value *cubed(const Value *value, std::vector<Node *> &nodes) {
  if (Node *pow = soleProducer(value, "Pow"); pow && isScalar(pow->input(1), 3.0)) {
    nodes.push_back(pow);
    return pow->input(0);
  }
  Node *outer = soleProducer(value, "Mul");
  for (size_t i = 0; outer && i < 2; ++i) {
    Node *square = soleProducer(outer->input(i), "Mul");
    Value *x = outer->input(1 - i);
    if (square && square->input(0) == x && square->input(1) == x) {
      nodes.insert(nodes.end(), {outer, square});
      return x;
    }
  }
  return nullptr;
}

// x where `value` is GELU's tanh argument, sqrt(2/pi) (x + 0.044715 x^3).
Value *matchTanhArgument(const Value *value, std::vector<Node *> &nodes) {
  Node *scale = soleProducer(value, "Mul");
  Node *sum = nullptr;
  if (Value *inner = scaledBy(scale, std::sqrt(2.0 / M_PI)))
    sum = soleProducer(inner, "Add");
  for (size_t i = 0; sum && i < 2; ++i) {
    Value *x = sum->input(i);
    Node *cubic = soleProducer(sum->input(1 - i), "Mul");
    Value *cube = scaledBy(cubic, 0.044715);
    std::vector<Node *> matched = {scale, sum, cubic};
    if (cube && cube->hasOneUse() && cubed(cube, matched) == x) {
      nodes.insert(nodes.end(), matched.begin(), matched.end());
      return x;
    }
  }
  return nullptr;
}

// x where `value` is GELU's erf argument, x / sqrt 2 or x * sqrt(1/2).
Value *matchErfArgument(const Value *value, std::vector<Node *> &nodes) {
  Node *scale = value->hasOneUse() ? value->producer() : nullptr;
  Value *x = nullptr;
  if (scale && scale->op() == "Div" && isScalar(scale->input(1), std::sqrt(2.0)))
    x = scale->input(0);
  else
    x = scaledBy(scale, std::sqrt(0.5));
  if (x)
    nodes.push_back(scale);
  return x;
}

// 1 + erf(x / sqrt 2) (GELU) or 1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))
// (its tanh approximation, GPT-2's gelu_new) built from `sum`; returns x
// (null if neither), appends the matched nodes and says which form it is.
Value *matchOnePlusGeluTerm(Value *sum, std::vector<Node *> &nodes, bool &tanhForm) {
  Node *add = soleProducer(sum, "Add");
  if (!add)
    return nullptr;
  Value *term = isScalar(add->input(0), 1.0) ? add->input(1) : add->input(0);
  if (!isScalar(otherOperand(*add, term), 1.0))
    return nullptr;
  std::vector<Node *> matched = {add};
  Value *x = nullptr;
  if (Node *erf = soleProducer(term, "Erf")) {
    matched.push_back(erf);
    x = matchErfArgument(erf->input(0), matched);
    tanhForm = false;
  } else if (Node *tanh = soleProducer(term, "Tanh")) {
    matched.push_back(tanh);
    x = matchTanhArgument(tanh->input(0), matched);
    tanhForm = true;
  }
  if (x)
    nodes.insert(nodes.end(), matched.begin(), matched.end());
  return x;
}

// Exporters before opset 20 write GELU, and its tanh approximation, as
// elementwise ops in either of these shapes (matched at the final Mul, so
// every matched node precedes it; F is erf(x / sqrt 2) or the tanh form):
//   (x * (1 + F(x))) * 0.5      (x * 0.5) * (1 + F(x))
Status rewriteGelu(Graph &graph, Node &root) {
  std::vector<Node *> chain;
  Value *x = nullptr;
  bool tanhForm = false;
  for (size_t i = 0; i < 2 && !x; ++i) {
    Value *half = root.input(1 - i), *rest = root.input(i);
    chain.clear();
    if (isScalar(half, 0.5)) {
      // (x * (1 + F(x))) * 0.5
      if (Node *product = soleProducer(rest, "Mul")) {
        for (size_t j = 0; j < 2 && !x; ++j) {
          chain = {product};
          Value *candidate = matchOnePlusGeluTerm(product->input(j), chain, tanhForm);
          if (candidate == product->input(1 - j))
            x = candidate;
        }
      }
    } else if (Node *halved = soleProducer(half, "Mul")) {
      // (x * 0.5) * (1 + F(x))
      if (Value *xHalf = scaledBy(halved, 0.5)) {
        chain = {halved};
        Value *candidate = matchOnePlusGeluTerm(rest, chain, tanhForm);
        if (candidate == xHalf)
          x = candidate;
      }
    }
  }
  if (!x)
    return Status::success();
  Node *gelu = graph.addNode("Gelu", {x}, {root.output(0)->name() + ".gelu"}, &root);
  gelu->setName(root.name());
  if (tanhForm)
    gelu->setAttr("approximate", Attribute(std::string("tanh")));
  CUVIL_TRY(inferNodeTypes(*gelu));
  graph.replaceAllUsesWith(root.output(0), gelu->output(0));
  graph.eraseNode(&root);
  for (Node *node : chain) // matched consumers before producers
    graph.eraseNode(node);
  return Status::success();
}

} // namespace

// SiLU as exporters write it, x * Sigmoid(x), becomes one cuvil.Silu (then
// a single elementwise step or epilogue activation); otherwise GELU.
Status rewriteMul(Graph &graph, Node &mul) {
  for (size_t i = 0; i < 2; ++i) {
    Node *sigmoid = soleProducer(mul.input(i), "Sigmoid");
    Value *x = mul.input(1 - i);
    if (!sigmoid || sigmoid->input(0) != x || x->type().dtype != DType::F32)
      continue;
    Node *silu = graph.addNode("cuvil.Silu", {x}, {mul.output(0)->name() + ".silu"}, &mul);
    silu->setName(mul.name());
    CUVIL_TRY(inferNodeTypes(*silu));
    graph.replaceAllUsesWith(mul.output(0), silu->output(0));
    graph.eraseNode(&mul);
    graph.eraseNode(sigmoid);
    return Status::success();
  }
  return rewriteGelu(graph, mul);
}

} // namespace cuvil
