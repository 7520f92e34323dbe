// fuse-attention: scaled dot-product attention as one cuvil.Attention node,
//   MatMul(Q, Kt) | cuvil.FusedMatMul(Q, Kt, _, Mask) {scale}
//     -> Softmax(last axis) -> MatMul(., V)
// so that the M x N scores of each head never reach memory: in a 1500-frame
// Whisper encoder they are 72 MB per layer, written and read four times.
// fuse-epilogues has already folded attention's 1/sqrt(d) and additive mask
// into the first product; one with a bias or an activation is not
// attention and stays. Q, Kt and V must share their batch dims (no
// broadcasting), the intermediate values must have no other use, and all
// of it must be f32.
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

namespace cuvil {
namespace {

bool isF32(const Value *value) { return value && value->type().dtype == DType::F32; }

// Q [b.., M, K] x Kt [b.., K, N] -> . x V [b.., N, D] with equal b.. .
bool chains(const Shape &q, const Shape &kt, const Shape &v) {
  size_t rank = q.size();
  if (rank < 2 || kt.size() != rank || v.size() != rank)
    return false;
  for (size_t d = 0; d + 2 < rank; ++d)
    if (q[d] != kt[d] || q[d] != v[d])
      return false;
  return q[rank - 1] == kt[rank - 2] && kt[rank - 1] == v[rank - 2];
}

// The scores' producer when it is a plain product of two run-time operands,
// with at most a scale and an additive mask fused into it.
bool isScoreProduct(const Node &node) {
  if (node.op() == "MatMul")
    return true;
  return node.op() == "cuvil.FusedMatMul" && !node.hasInput(2) && node.getInt("b_packed", 0) == 0 &&
         node.getString("activation", "").empty();
}

Status fuse(Graph &graph, Node &softmax, PassContext &context) {
  Value *scores = softmax.input(0);
  Node *product = scores->producer();
  Node *second = soleUser(softmax.output(0));
  if (!product || !isScoreProduct(*product) || soleUser(scores) != &softmax || !second ||
      second->op() != "MatMul" || second->input(0) != softmax.output(0))
    return Status::success();
  Value *q = product->input(0), *kt = product->input(1), *v = second->input(1);
  Value *mask = product->input(3);
  if (!isF32(q) || !isF32(kt) || !isF32(v) || (mask && !isF32(mask)) ||
      !chains(q->type().shape, kt->type().shape, v->type().shape))
    return Status::success();
  int64_t rank = int64_t(scores->type().rank());
  int64_t axis = softmax.getInt("axis", -1);
  if (axis != -1 && axis != rank - 1)
    return Status::success();
  std::vector<Value *> inputs = {q, kt, v};
  if (mask)
    inputs.push_back(mask);
  Value *result = second->output(0);
  Node *attention =
      graph.addNode("cuvil.Attention", inputs,
                    {result->name() + ".attention", result->name() + ".scratch"}, second);
  attention->setName(second->name());
  attention->setAttr("scale", product->getFloat("scale", 1.0f));
  CUVIL_TRY(planForTarget(*attention, context));
  graph.replaceAllUsesWith(result, attention->output(0));
  graph.eraseNode(second);
  graph.eraseNode(&softmax);
  graph.eraseNode(product);
  return Status::success();
}

} // namespace

Status runFuseAttention(Graph &graph, PassContext &context) {
  std::vector<Node *> softmaxes;
  for (const auto &node : graph.nodes())
    if (node->op() == "Softmax")
      softmaxes.push_back(node.get());
  for (Node *softmax : softmaxes)
    CUVIL_TRY(fuse(graph, *softmax, context));
  return Status::success();
}

} // namespace cuvil
