// MelWeightMatrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
// upper_edge_hertz): the [dft_length / 2 + 1, num_mel_bins] matrix that
// maps a onesided spectrogram to mel bands, one triangle per band (see
// cuvil_mel_params for the edges), in output_datatype (f32 by default).
// The two extents are known at compile time (constants, --value) or
// extents (--value-range); the rest is data. Constant inputs fold (in
// double); the kernel computes the matrix at run time in double too, for
// f32 and f64 results. A band edge outside the spectrogram is refused, as
// ONNX Runtime refuses it.
#include "OpSupport.h"
#include "cuvil/kernels/Signal.h"

#include <cmath>

namespace cuvil::ops {
namespace {

struct Extents {
  Dim melBins, dftLength;
};

Expected<Extents> extents(const Node &node) {
  Dim values[2];
  for (size_t i = 0; i < 2; ++i) {
    const char *what = i == 0 ? "num_mel_bins" : "dft_length";
    Expected<std::vector<Dim>> dims = dimsInput(node, i, what);
    CUVIL_TRY(dims.status());
    if (dims->size() != 1)
      return Status::error(fmt::format("{} must be a scalar, has {} elements", what, dims->size()));
    const Dim &n = dims->front();
    if (n.min() < (i == 0 ? 0 : 1))
      return Status::error(fmt::format("{} must be {}, is {}{}", what,
                                       i == 0 ? "non-negative" : "positive", n,
                                       n.isConstant() ? "" : fmt::format(" (from {})", n.min())));
    values[i] = dims->front();
  }
  return Extents{values[0], values[1]};
}

Status infer(InferContext &ctx) {
  for (size_t i = 0; i < 3; ++i)
    if (ctx.inputDType(i) != ctx.inputDType(0) || !isSignedInt(ctx.inputDType(i)))
      return ctx.error("num_mel_bins, dft_length and sample_rate must be integers of one type, "
                       "input {} is {}",
                       i, dtypeName(ctx.inputDType(i)));
  if (!isFloat(ctx.inputDType(3)) || ctx.inputDType(4) != ctx.inputDType(3))
    return ctx.error("lower_edge_hertz and upper_edge_hertz must be floats of one type, are {} "
                     "and {}",
                     dtypeName(ctx.inputDType(3)), dtypeName(ctx.inputDType(4)));
  for (size_t i = 2; i < 5; ++i)
    if (!ctx.inputType(i).numElements().is(1))
      return ctx.error("input {} must be a scalar, is {}", i, ctx.inputType(i).str());
  Expected<DType> dtype = numericTypeAttribute(ctx.node(), "output_datatype");
  CUVIL_TRY(dtype.status());
  Expected<Extents> e = extents(ctx.node());
  CUVIL_TRY(e.status());
  ctx.setOutput(0, TensorType{*dtype, {floorDiv(e->dftLength, 2) + 1, e->melBins}});
  return Status::success();
}

double melOfHertz(double hz) { return 2595 * std::log10(1 + hz / 700); }
double hertzOfMel(double mel) { return 700 * (std::pow(10.0, mel / 2595) - 1); }

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  Tensor &y = out[0];
  const int64_t bins = in[0]->getInt(0), dftLength = in[1]->getInt(0), spectrum = y.dim(0);
  const double sampleRate = double(in[2]->getInt(0));
  const double low = melOfHertz(in[3]->getDouble(0)), high = melOfHertz(in[4]->getDouble(0));
  const double step = (high - low) / double(bins + 2);
  std::vector<int64_t> edges;
  for (int64_t e = 0; e < bins + 2; ++e) {
    double at = std::floor(double(dftLength + 1) * hertzOfMel(low + double(e) * step) / sampleRate);
    if (!(at >= 0 && at < double(spectrum)))
      return Status::error(fmt::format("mel band edge {} falls on spectrogram bin {}, outside the "
                                       "{} bins of dft_length {} at sample_rate {}",
                                       e, at, spectrum, dftLength, sampleRate));
    edges.push_back(int64_t(at));
  }
  for (int64_t i = 0; i < bins; ++i) {
    int64_t left = edges[size_t(i)], center = edges[size_t(i) + 1], right = edges[size_t(i) + 2];
    if (center == left)
      y.setDouble(center * bins + i, 1);
    for (int64_t j = left; j <= center && center != left; ++j)
      y.setDouble(j * bins + i, double(j - left) / double(center - left));
    for (int64_t j = center; j < right; ++j)
      y.setDouble(j * bins + i, double(right - j) / double(right - center));
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *y = node.output(0);
  DType rate = node.input(2)->type().dtype, hertz = node.input(3)->type().dtype;
  Expected<const KernelRef *> kernel = melWeightsKernel(rate, hertz, y->type().dtype);
  if (!kernel.ok())
    return Status::error(fmt::format("computed at run time, MelWeightMatrix takes an i32 or i64 "
                                     "sample rate, f32 or f64 frequencies and writes f32 or f64, "
                                     "not {}, {} and {}: make its inputs constants",
                                     dtypeName(rate), dtypeName(hertz),
                                     dtypeName(y->type().dtype)));
  Expected<Extents> e = extents(node);
  CUVIL_TRY(e.status());
  ParamBlock<cuvil_mel_params> params;
  params.set(params->mel_bins, e->melBins);
  params.set(params->dft_length, e->dftLength);
  return ctx.callKernel(
      **kernel,
      {KernelArg::pointer(node.input(2)), KernelArg::pointer(node.input(3)),
       KernelArg::pointer(node.input(4)), KernelArg::pointer(y),
       KernelArg::error({"a mel band edge falls on spectrogram bin {}, outside the spectrogram: "
                         "upper_edge_hertz is too high (or lower_edge_hertz negative) for "
                         "dft_length and sample_rate"}),
       KernelArg::params(params)},
      1);
}

} // namespace

extern const OpDefinition kMelWeightMatrixOp = {
    OpSchema{"MelWeightMatrix",
             5,
             5,
             1,
             1,
             {{"output_datatype", AttrKind::Int, Attribute(int64_t(1))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
