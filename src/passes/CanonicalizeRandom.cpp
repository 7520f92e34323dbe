// Dropout(x, ratio, training_mode = true) with a ratio that is not a
// constant 0 (default 0.5) drops each element with probability ratio and
// scales the kept ones, as ONNX Runtime does:
//   u     = RandomUniformLike(x, dtype = f32, seed)      u in [0, 1)
//   mask  = GreaterOrEqual(u, Cast(ratio, f32))           kept where u >= ratio
//   y     = Where(mask, Mul(x, Div(1, Sub(1, ratio))), 0) (the scale folds for a
//                                                        constant ratio)
// Bernoulli(p, dtype, seed) -> Cast(Less(RandomUniformLike(p, f32, seed),
//                                       Cast(p, f32)), dtype)
// Multinomial(x: f64) -> Multinomial(Cast(x, f32)).
#include "CanonicalizeRandom.h"

#include "PassUtils.h"

namespace cuvil {
bool isRandomDropout(const Node &dropout) {
  const Value *training = dropout.input(2);
  if (!training || !training->isConstant() || training->constant().numElements() != 1 ||
      training->constant().getInt(0) == 0)
    return false;
  const Value *ratio = dropout.input(1);
  return !ratio || !ratio->isConstant() || ratio->constant().numElements() != 1 ||
         ratio->constant().getDouble(0) != 0;
}

Status rewriteRandomDropout(Graph &graph, Node &dropout) {
  const std::string base = dropout.output(0)->name();
  Value *x = dropout.input(0);
  const DType dtype = x->type().dtype;
  Value *ratio =
      dropout.input(1) ? dropout.input(1) : addScalarConstant(graph, 0.5, dtype, base + ".ratio");
  Node *draw =
      graph.addNode("RandomUniformLike", {x}, {graph.uniqueName(base + ".uniform")}, &dropout);
  draw->setAttr("dtype", Attribute(int64_t(dtypeOnnxCode(DType::F32))));
  if (dropout.hasAttr("seed"))
    draw->setAttr("seed", Attribute(float(dropout.getInt("seed")))); // an int here
  CUVIL_TRY(inferNodeTypes(*draw));
  Expected<Value *> threshold =
      insertCast(graph, ratio, DType::F32, &dropout, graph.uniqueName(base + ".threshold"));
  CUVIL_TRY(threshold.status());
  Expected<Value *> mask = insertNode(graph, "GreaterOrEqual", {draw->output(0), *threshold},
                                      &dropout, graph.uniqueName(base + ".mask"));
  CUVIL_TRY(mask.status());
  Expected<Value *> rate =
      insertCast(graph, ratio, dtype, &dropout, graph.uniqueName(base + ".rate"));
  CUVIL_TRY(rate.status());
  Value *one = addScalarConstant(graph, 1.0, dtype, base + ".one");
  Expected<Value *> keep =
      insertNode(graph, "Sub", {one, *rate}, &dropout, graph.uniqueName(base + ".keep"));
  CUVIL_TRY(keep.status());
  Expected<Value *> scale =
      insertNode(graph, "Div", {one, *keep}, &dropout, graph.uniqueName(base + ".scale"));
  CUVIL_TRY(scale.status());
  Expected<Value *> scaled =
      insertNode(graph, "Mul", {x, *scale}, &dropout, graph.uniqueName(base + ".scaled"));
  CUVIL_TRY(scaled.status());
  Expected<Value *> y = insertNode(
      graph, "Where", {*mask, *scaled, addScalarConstant(graph, 0.0, dtype, base + ".zero")},
      &dropout, graph.uniqueName(base + ".dropped"));
  CUVIL_TRY(y.status());
  graph.replaceAllUsesWith(dropout.output(0), *y);
  if (dropout.numOutputs() > 1)
    graph.replaceAllUsesWith(dropout.output(1), *mask);
  graph.eraseNode(&dropout);
  return Status::success();
}

Status rewriteBernoulli(Graph &graph, Node &bernoulli) {
  const std::string base = bernoulli.output(0)->name();
  Value *p = bernoulli.input(0);
  Node *draw =
      graph.addNode("RandomUniformLike", {p}, {graph.uniqueName(base + ".uniform")}, &bernoulli);
  draw->setAttr("dtype", Attribute(int64_t(dtypeOnnxCode(DType::F32))));
  if (bernoulli.hasAttr("seed"))
    draw->setAttr("seed", Attribute(bernoulli.getFloat("seed")));
  CUVIL_TRY(inferNodeTypes(*draw));
  Expected<Value *> threshold =
      insertCast(graph, p, DType::F32, &bernoulli, graph.uniqueName(base + ".p"));
  CUVIL_TRY(threshold.status());
  Expected<Value *> drawn = insertNode(graph, "Less", {draw->output(0), *threshold}, &bernoulli,
                                       graph.uniqueName(base + ".drawn"));
  CUVIL_TRY(drawn.status());
  Expected<Value *> y = insertCast(graph, *drawn, bernoulli.output(0)->type().dtype, &bernoulli,
                                   graph.uniqueName(base + ".cast"));
  CUVIL_TRY(y.status());
  graph.replaceAllUsesWith(bernoulli.output(0), *y);
  graph.eraseNode(&bernoulli);
  return Status::success();
}

Status rewriteMultinomialInput(Graph &graph, Node &multinomial) {
  Value *logits = multinomial.input(0);
  if (logits->type().dtype == DType::F32)
    return Status::success();
  Expected<Value *> narrowed = insertCast(graph, logits, DType::F32, &multinomial,
                                          graph.uniqueName(logits->name() + ".f32"));
  CUVIL_TRY(narrowed.status());
  multinomial.setInput(0, *narrowed);
  return Status::success();
}

} // namespace cuvil
