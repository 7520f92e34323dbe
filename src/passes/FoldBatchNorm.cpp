// fold-batchnorm: Conv followed by inference BatchNormalization becomes one
// Conv with rescaled weights and bias:
//   a[m] = scale[m] / sqrt(var[m] + eps)
//   W'[m, ...] = W[m, ...] * a[m]
//   B'[m] = (B[m] - mean[m]) * a[m] + bias[m]
// Needs constant W, B and BN parameters, and the Conv result used only by the
// BatchNormalization.
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

#include <cmath>

namespace cuvil {
namespace {

bool foldable(const Node &bn) {
  if (bn.op() != "BatchNormalization" || bn.numOutputs() != 1)
    return false;
  const Node *conv = bn.input(0)->producer();
  if (!conv || conv->op() != "Conv" || !bn.input(0)->hasOneUse())
    return false;
  if (!conv->input(1)->isConstant() || (conv->hasInput(2) && !conv->input(2)->isConstant()))
    return false;
  for (size_t i = 1; i < 5; ++i)
    if (!bn.input(i)->isConstant())
      return false;
  return conv->input(1)->type().dtype == DType::F32;
}

void fold(Graph &graph, Node &bn) {
  Node &conv = *bn.input(0)->producer();
  const Tensor &weights = conv.input(1)->constant();
  int64_t channels = weights.dim(0), perChannel = weights.numElements() / channels;
  double epsilon = bn.getFloat("epsilon");
  const Tensor &scale = bn.input(1)->constant(), &shift = bn.input(2)->constant();
  const Tensor &mean = bn.input(3)->constant(), &variance = bn.input(4)->constant();

  Tensor newWeights = weights;
  Tensor newBias(TensorType{DType::F32, {channels}});
  float *w = newWeights.mutableData<float>();
  for (int64_t m = 0; m < channels; ++m) {
    double a = scale.getDouble(m) / std::sqrt(variance.getDouble(m) + epsilon);
    for (int64_t i = 0; i < perChannel; ++i)
      w[m * perChannel + i] = float(w[m * perChannel + i] * a);
    double bias = conv.hasInput(2) ? conv.input(2)->constant().getDouble(m) : 0.0;
    newBias.setDouble(m, (bias - mean.getDouble(m)) * a + shift.getDouble(m));
  }
  conv.setInput(1, graph.addConstant(conv.input(1)->name(), std::move(newWeights)));
  conv.setInput(2, graph.addConstant(conv.output(0)->name() + ".bias", std::move(newBias)));
  graph.replaceAllUsesWith(bn.output(0), conv.output(0));
  graph.eraseNode(&bn);
}

} // namespace

Status runFoldBatchNorm(Graph &graph, PassContext &) {
  std::vector<Node *> candidates;
  for (const auto &node : graph.nodes())
    if (foldable(*node))
      candidates.push_back(node.get());
  for (Node *bn : candidates)
    fold(graph, *bn);
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
