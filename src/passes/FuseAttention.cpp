// fuse-attention: scaled dot-product attention as one cuvil.Attention node,
//   MatMul(Q, Kt) | cuvil.FusedMatMul(Q, Kt, _, Mask) {scale}
//     -> Softmax(last axis) -> MatMul(., V)
// so that the M x N scores of each head never reach memory: in a 1500-frame
// Whisper encoder they are 72 MB per layer, written and read four times.
// fuse-epilogues has already folded attention's 1/sqrt(d) and an additive
// mask into the first product; one with a bias or an activation is not
// attention and stays. Further masks between the product and the softmax
// (decoders add a causal and a padding mask, the causal one often as a
// Where, GPT-2's) are summed into the one additive mask the kernel takes.
// Q, Kt and V must share their batch dims (no broadcasting), the
// intermediate values must have no other use, and all of it must be f32.
// Transposes of Q, Kt and V and of the result (the heads split and merged)
// become the kernel's strides.
#include "PassUtils.h"

#include "cuvil/ir/Broadcast.h"

#include "cuvil/passes/Passes.h"

#include <algorithm>
#include <numeric>

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

// A fill this negative stays exactly the fill when a score is added to it
// (|score| < 2^76), and the softmax gives it exactly 0 either way.
constexpr double kMaskedFill = -0x1p100;

// Where(condition, scores, fill) with a constant condition and a scalar
// fill of at most kMaskedFill (-inf, or the float minimum exporters write),
// or its mirror Where(condition, fill, scores): the scores plus a constant
// mask, 0 where they are kept and the fill elsewhere.
std::optional<std::pair<Value *, Tensor>> additiveWhere(const Node &where) {
  const Value *condition = where.input(0);
  if (where.op() != "Where" || !condition->isConstant() || condition->type().dtype != DType::Bool)
    return std::nullopt;
  for (size_t kept = 1; kept <= 2; ++kept) {
    const Value *fill = where.input(3 - kept);
    if (!isF32(fill) || !fill->isConstant() || fill->constant().numElements() != 1 ||
        !(fill->constant().getDouble(0) <= kMaskedFill))
      continue;
    Tensor mask(TensorType{DType::F32, condition->type().shape});
    for (int64_t i = 0; i < mask.numElements(); ++i)
      if ((condition->constant().getInt(i) != 0) != (kept == 1))
        mask.setDouble(i, fill->constant().getDouble(0));
    return std::pair{where.input(kept), std::move(mask)};
  }
  return std::nullopt;
}

// Whether a mask of `shape` can be added to `scores` as the kernel's mask:
// broadcasting to them and varying along the keys.
bool isMaskFor(const Shape &shape, const TensorType &scores) {
  if (shape.empty() || shape.back() != scores.shape.back())
    return false;
  Expected<Shape> broadcast = broadcastShapes(shape, scores.shape);
  return broadcast.ok() && *broadcast == scores.shape;
}

// Walks from the softmax's input back through the Adds of masks and the
// additive Wheres to the scores' product; collects the masks and the nodes
// passed (each result with one use), consumers first.
Value *peelMasks(Graph &graph, Value *scores, std::vector<Value *> &masks,
                 std::vector<Node *> &peeled) {
  const TensorType type = scores->type();
  for (Node *node = scores->producer(); node && scores->hasOneUse(); node = scores->producer()) {
    std::optional<std::pair<Value *, Tensor>> where = additiveWhere(*node);
    if (where && where->first->type() == type && isMaskFor(where->second.shape(), type)) {
      masks.push_back(graph.addConstant(graph.uniqueName(node->output(0)->name() + ".mask"),
                                        std::move(where->second)));
      scores = where->first;
    } else if (node->op() == "Add") {
      size_t i = 0;
      while (i < 2 && (node->input(i)->type() != type || !isF32(node->input(1 - i)) ||
                       !isMaskFor(node->input(1 - i)->type().shape, type)))
        ++i;
      if (i == 2)
        break;
      masks.push_back(node->input(1 - i));
      scores = node->input(i);
    } else {
      break;
    }
    peeled.push_back(node);
  }
  return scores;
}

// Transpose's perm, the reversal when it has none.
std::vector<int64_t> transposePerm(const Node &transpose) {
  std::vector<int64_t> perm(transpose.input(0)->type().rank());
  std::iota(perm.rbegin(), perm.rend(), int64_t(0));
  return transpose.hasAttr("perm") ? transpose.getInts("perm") : perm;
}

// The transposes that split heads out of [B, S, H, D] (K's to [B, H, D, S])
// and merge them back become the kernel's strides: an operand made by a
// Transpose is read through it, a result whose one user is a Transpose is
// written as its result. The kernel needs unit column strides on Q, V and
// O, and Kt's along K or N; each perm says which stored dim a logical dim
// is, so a logical dim has unit stride where its perm entry is the last.
void foldOperandTransposes(std::vector<Value *> &inputs, Node &attention) {
  static const char *const kPerms[] = {"q_perm", "kt_perm", "v_perm"};
  for (size_t i = 0; i < 3; ++i) {
    const Node *transpose = inputs[i]->producer();
    if (!transpose || transpose->op() != "Transpose")
      continue;
    std::vector<int64_t> perm = transposePerm(*transpose);
    const int64_t last = int64_t(perm.size()) - 1;
    if (last < 1 || !(perm.back() == last || (i == 1 && perm[size_t(last) - 1] == last)))
      continue;
    inputs[i] = transpose->input(0);
    attention.setAttr(kPerms[i], Attribute(perm));
  }
}

Status fuse(Graph &graph, Node &softmax, PassContext &context) {
  Node *second = soleUser(softmax.output(0));
  if (softmax.input(0)->type().dtype != DType::F32 || !softmax.input(0)->hasOneUse() || !second ||
      second->op() != "MatMul" || second->input(0) != softmax.output(0))
    return Status::success();
  std::vector<Value *> masks;
  std::vector<Node *> peeled;
  Value *scores = peelMasks(graph, softmax.input(0), masks, peeled);
  Node *product = scores->producer();
  if (!product || !isScoreProduct(*product) || !scores->hasOneUse())
    return Status::success();
  Value *q = product->input(0), *kt = product->input(1), *v = second->input(1);
  if (product->input(3))
    masks.push_back(product->input(3));
  if (!isF32(q) || !isF32(kt) || !isF32(v) || !std::all_of(masks.begin(), masks.end(), isF32) ||
      !chains(q->type().shape, kt->type().shape, v->type().shape))
    return Status::success();
  int64_t rank = int64_t(scores->type().rank());
  int64_t axis = softmax.getInt("axis", -1);
  if (axis != -1 && axis != rank - 1)
    return Status::success();
  std::vector<Value *> inputs = {q, kt, v};
  // The masks' sum, added once per attention rather than per head (a
  // decoder's causal and padding masks sum to [1, 1, M, N]).
  Value *mask = masks.empty() ? nullptr : masks[0];
  for (size_t i = 1; i < masks.size(); ++i) {
    Expected<Value *> sum =
        insertNode(graph, "Add", {mask, masks[i]}, &softmax, softmax.output(0)->name() + ".mask");
    CUVIL_TRY(sum.status());
    mask = *sum;
  }
  if (mask)
    inputs.push_back(mask);
  Value *result = second->output(0);
  Node *merge = soleUser(result);
  if (merge && (merge->op() != "Transpose" || transposePerm(*merge).back() != rank - 1))
    merge = nullptr;
  Node *attention = graph.addNode(
      "cuvil.Attention", {}, {result->name() + ".attention", result->name() + ".scratch"}, second);
  attention->setName(second->name());
  attention->setAttr("scale", product->getFloat("scale", 1.0f));
  foldOperandTransposes(inputs, *attention);
  for (Value *input : inputs)
    attention->addInput(input);
  if (merge)
    attention->setAttr("out_perm", Attribute(transposePerm(*merge)));
  CUVIL_TRY(planForTarget(*attention, context));
  graph.replaceAllUsesWith(merge ? merge->output(0) : result, attention->output(0));
  if (merge)
    graph.eraseNode(merge);
  graph.eraseNode(second);
  graph.eraseNode(&softmax);
  for (Node *node : peeled)
    graph.eraseNode(node);
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
