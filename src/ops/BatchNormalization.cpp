// BatchNormalization: per channel c (dim 1),
//   y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c]
// with the given mean and var, or with training_mode those of x's batch
// (over every dim but 1; the population variance), the optional outputs
// then the running statistics input * momentum + batch * (1 - momentum).
// The fold-batchnorm pass merges an inference one into a preceding Conv;
// canonicalisation rewrites the rest (CanonicalizeBatchNorm.cpp), so it
// has no lowering of its own.
#include "OpSupport.h"

#include <cmath>
#include <vector>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  if (x.size() < 2)
    return ctx.error("input must have a channel dimension");
  bool training = ctx.node().getInt("training_mode") != 0;
  if (ctx.node().numOutputs() > 1 && !training)
    return ctx.error("the running mean/var outputs are training_mode's");
  for (size_t i = 1; i < 5; ++i)
    if (ctx.inputShape(i) != Shape{x[1]})
      return ctx.error("parameter {} has shape [{}], expected [{}]", i,
                       shapeToString(ctx.inputShape(i)), x[1]);
  ctx.setOutput(0, ctx.inputType(0));
  for (size_t i = 1; i < ctx.node().numOutputs(); ++i)
    ctx.setOutput(i, ctx.inputType(2 + i)); // running mean, running var: [C]
  return Status::success();
}

// Per channel: the batch's mean and population variance over every dim but 1.
void batchStatistics(const Tensor &x, std::vector<double> &mean, std::vector<double> &var) {
  const int64_t channels = x.dim(1), inner = x.numElements() / x.dim(0) / channels;
  const int64_t count = x.numElements() / channels;
  mean.assign(size_t(channels), 0.0);
  var.assign(size_t(channels), 0.0);
  for (int64_t i = 0; i < x.numElements(); ++i)
    mean[size_t((i / inner) % channels)] += x.getDouble(i) / double(count);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    double d = x.getDouble(i) - mean[size_t((i / inner) % channels)];
    var[size_t((i / inner) % channels)] += d * d / double(count);
  }
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Shape &x = in[0]->shape();
  int64_t channels = x[1].constant(), inner = numElements(std::span(x).subspan(2)).constant();
  double epsilon = node.getFloat("epsilon"), momentum = node.getFloat("momentum");
  std::vector<double> mean(static_cast<size_t>(channels)), var(mean);
  for (int64_t c = 0; c < channels; ++c) {
    mean[size_t(c)] = in[3]->getDouble(c);
    var[size_t(c)] = in[4]->getDouble(c);
  }
  if (node.getInt("training_mode"))
    batchStatistics(*in[0], mean, var);
  for (int64_t i = 0, n = in[0]->numElements(); i < n; ++i) {
    size_t c = size_t((i / inner) % channels);
    double normalized = (in[0]->getDouble(i) - mean[c]) / std::sqrt(var[c] + epsilon);
    out[0].setDouble(i, normalized * in[1]->getDouble(int64_t(c)) + in[2]->getDouble(int64_t(c)));
  }
  for (size_t o = 1; o < out.size(); ++o)
    for (int64_t c = 0; c < channels; ++c)
      out[o].setDouble(c, in[2 + o]->getDouble(c) * momentum +
                              (o == 1 ? mean : var)[size_t(c)] * (1 - momentum));
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: BatchNormalization should have been canonicalised");
}

} // namespace

extern const OpDefinition kBatchNormalizationOp = {
    OpSchema{"BatchNormalization",
             5,
             5,
             1,
             3,
             {{"epsilon", AttrKind::Float, 1e-5f},
              {"momentum", AttrKind::Float, 0.9f},
              {"training_mode", AttrKind::Int, int64_t(0)},
              {"spatial", AttrKind::Int}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
