// BatchNormalization, per channel c of x (dim 1):
//   inference:  y = x * a + b, a = scale / sqrt(var + eps), b = B - mean * a,
//               a and b shaped [C, 1, ...] (they fold when the parameters
//               are constants)
//   training:   m = ReduceMean(x) and v = ReduceMean((x - m)^2) over every
//               dim but 1 (kept), y = (x - m) / sqrt(v + eps) * scale + B;
//               running mean/var = input * momentum + m/v * (1 - momentum)
#include "CanonicalizeBatchNorm.h"

#include "PassUtils.h"

#include <numeric>

namespace cuvil {
namespace {

struct Builder {
  Graph &graph;
  Node &bn;
  std::string base;

  Expected<Value *> add(const std::string &op, std::vector<Value *> inputs,
                        const std::string &suffix) {
    return insertNode(graph, op, inputs, &bn, base + suffix);
  }
  Value *scalar(float value, const std::string &suffix) {
    return graph.addConstant(graph.uniqueName(base + suffix), Tensor::scalarF32(value));
  }
  Value *ints(std::vector<int64_t> values, const std::string &suffix) {
    int64_t size = int64_t(values.size());
    return graph.addConstant(graph.uniqueName(base + suffix), Tensor::fromInt64s(values, {size}));
  }

  // [C] -> [C, 1, ..., 1], broadcasting along dim 1 of x (rank `rank`).
  Expected<Value *> perChannel(Value *value, int64_t rank, const std::string &suffix) {
    if (!channelShape) {
      std::vector<int64_t> shape(size_t(rank - 1), 1);
      shape[0] = -1;
      channelShape = ints(shape, ".shape");
    }
    return add("Reshape", {value, channelShape}, suffix);
  }
  Value *channelShape = nullptr;
};

Status rewriteInference(Builder &b, int64_t rank) {
  Node &bn = b.bn;
  Expected<Value *> shifted =
      b.add("Add", {bn.input(4), b.scalar(bn.getFloat("epsilon"), ".eps")}, ".var");
  CUVIL_TRY(shifted.status());
  Expected<Value *> deviation = b.add("Sqrt", {*shifted}, ".std");
  CUVIL_TRY(deviation.status());
  Expected<Value *> a = b.add("Div", {bn.input(1), *deviation}, ".a");
  CUVIL_TRY(a.status());
  Expected<Value *> meanA = b.add("Mul", {bn.input(3), *a}, ".ma");
  CUVIL_TRY(meanA.status());
  Expected<Value *> shift = b.add("Sub", {bn.input(2), *meanA}, ".b");
  CUVIL_TRY(shift.status());
  Expected<Value *> a2 = b.perChannel(*a, rank, ".a2");
  CUVIL_TRY(a2.status());
  Expected<Value *> b2 = b.perChannel(*shift, rank, ".b2");
  CUVIL_TRY(b2.status());
  Expected<Value *> scaled = b.add("Mul", {bn.input(0), *a2}, ".scaled");
  CUVIL_TRY(scaled.status());
  Expected<Value *> result = b.add("Add", {*scaled, *b2}, ".affine");
  CUVIL_TRY(result.status());
  b.graph.replaceAllUsesWith(bn.output(0), *result);
  return Status::success();
}

// input * momentum + batch * (1 - momentum), batch [1, C, 1, ...] as [C].
Expected<Value *> runningStatistic(Builder &b, Value *input, Value *batch,
                                   const std::string &suffix) {
  float momentum = b.bn.getFloat("momentum");
  Expected<Value *> flat =
      b.add("Reshape", {batch, b.ints({-1}, ".flat_shape")}, suffix + ".batch");
  CUVIL_TRY(flat.status());
  Expected<Value *> kept = b.add("Mul", {input, b.scalar(momentum, ".momentum")}, suffix + ".kept");
  CUVIL_TRY(kept.status());
  Expected<Value *> added =
      b.add("Mul", {*flat, b.scalar(1 - momentum, ".rest")}, suffix + ".added");
  CUVIL_TRY(added.status());
  return b.add("Add", {*kept, *added}, suffix);
}

Status rewriteTraining(Builder &b, int64_t rank) {
  Node &bn = b.bn;
  std::vector<int64_t> axes(size_t(rank - 1));
  std::iota(axes.begin() + 1, axes.end(), 2); // 0, 2, 3, ...
  Value *axesValue = b.ints(axes, ".axes");
  auto reduceMean = [&](Value *value, const std::string &suffix) -> Expected<Value *> {
    Node *reduce = b.graph.addNode("ReduceMean", {value, axesValue}, {b.base + suffix}, &bn);
    reduce->setAttr("keepdims", int64_t(1));
    CUVIL_TRY(inferNodeTypes(*reduce));
    return reduce->output(0);
  };
  Expected<Value *> mean = reduceMean(bn.input(0), ".mean");
  CUVIL_TRY(mean.status());
  Expected<Value *> centered = b.add("Sub", {bn.input(0), *mean}, ".centered");
  CUVIL_TRY(centered.status());
  Expected<Value *> squares = b.add("Mul", {*centered, *centered}, ".squares");
  CUVIL_TRY(squares.status());
  Expected<Value *> var = reduceMean(*squares, ".batch_var");
  CUVIL_TRY(var.status());
  Expected<Value *> shifted =
      b.add("Add", {*var, b.scalar(bn.getFloat("epsilon"), ".eps")}, ".var");
  CUVIL_TRY(shifted.status());
  Expected<Value *> deviation = b.add("Sqrt", {*shifted}, ".std");
  CUVIL_TRY(deviation.status());
  Expected<Value *> normalized = b.add("Div", {*centered, *deviation}, ".normalized");
  CUVIL_TRY(normalized.status());
  Expected<Value *> scale = b.perChannel(bn.input(1), rank, ".scale");
  CUVIL_TRY(scale.status());
  Expected<Value *> shift = b.perChannel(bn.input(2), rank, ".shift");
  CUVIL_TRY(shift.status());
  Expected<Value *> scaled = b.add("Mul", {*normalized, *scale}, ".scaled");
  CUVIL_TRY(scaled.status());
  Expected<Value *> result = b.add("Add", {*scaled, *shift}, ".affine");
  CUVIL_TRY(result.status());
  b.graph.replaceAllUsesWith(bn.output(0), *result);
  for (size_t o = 1; o < bn.numOutputs(); ++o) {
    if (!bn.output(o))
      continue;
    Expected<Value *> running = runningStatistic(b, bn.input(2 + o), o == 1 ? *mean : *var,
                                                 o == 1 ? ".running_mean" : ".running_var");
    CUVIL_TRY(running.status());
    b.graph.replaceAllUsesWith(bn.output(o), *running);
  }
  return Status::success();
}

} // namespace

Status rewriteBatchNorm(Graph &graph, Node &bn) {
  Builder builder{graph, bn, bn.output(0)->name(), nullptr};
  int64_t rank = bn.input(0)->type().rank();
  CUVIL_TRY(bn.getInt("training_mode") ? rewriteTraining(builder, rank)
                                       : rewriteInference(builder, rank));
  graph.eraseNode(&bn);
  return Status::success();
}

} // namespace cuvil
