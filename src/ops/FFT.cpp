// cuvil.FFT(signal, twiddles, [window]) -> (y, scratch): DFT and STFT as
// canonicalize gives them (see FourierCommon.h): transforms of `length`
// along `axis`, STFT frames every `frame_step` samples (0 for a DFT),
// `onesided`, `inverse`. twiddles is the FFT plan's table
// (cuvil.FFTTwiddles, folded at compile time). The kernel computes a lane
// group of transforms at a time, one per vector lane (one transform when
// there are fewer than lanes); tasks split the groups, each with a slot of
// the scratch result, at most kMaxTasks of them and kScratchBytes in all.
// Mixed-radix Stockham: radix 4, 2, 3 and 5 butterflies, other primes
// summed directly (O(length * p) per stage, so O(length^2) for a prime
// length); a real signal of even length as a complex one of half the
// length.
#include "FourierCommon.h"
#include "cuvil/kernels/Signal.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

constexpr int64_t kMaxTasks = 16;
constexpr int64_t kScratchBytes = int64_t(2) << 20;

Expected<TransformGeometry> geometry(const Node &node, const Shape &signal) {
  return transformGeometry(signal, node.getInt("axis", 0), node.getInt("length", 0),
                           node.getInt("frame_step", 0), node.getInt("onesided", 0) != 0);
}

struct TaskPlan {
  int64_t lanes, slotElements;
  Dim groups, tasks;
};

TaskPlan taskPlan(const TransformGeometry &g, DType dtype) {
  int64_t width = dtype == DType::F64 ? CUVIL_FFT_LANES_F64 : CUVIL_FFT_LANES_F32;
  TaskPlan plan;
  plan.lanes = g.transforms().max() < width ? 1 : width;
  plan.slotElements = 4 * g.length * plan.lanes;
  plan.groups = ceilDiv(g.transforms(), plan.lanes);
  int64_t slots = kScratchBytes / (plan.slotElements * int64_t(dtypeSize(dtype)));
  plan.tasks = minDim(plan.groups, std::clamp<int64_t>(slots, 1, kMaxTasks));
  return plan;
}

Status infer(InferContext &ctx) {
  DType dtype = ctx.inputDType(0);
  if (dtype != DType::F32 && dtype != DType::F64)
    return ctx.error("element type {} is not supported", dtypeName(dtype));
  Expected<TransformGeometry> g = geometry(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(g.status());
  FftPlan fft = fftPlan(g->length, g->channels == 1);
  if (ctx.inputType(1) != TensorType{dtype, {fft.twiddleCount()}})
    return ctx.error("twiddles are {}, the plan of length {} needs {}[{}]", ctx.inputType(1).str(),
                     g->length, dtypeName(dtype), fft.twiddleCount());
  if (ctx.hasInput(2) && ctx.inputType(2) != TensorType{dtype, {g->length}})
    return ctx.error("the window is {}, frames have {} samples", ctx.inputType(2).str(), g->length);
  if (int64_t(fft.radices().size()) > CUVIL_FFT_MAX_STAGES)
    return ctx.error("length {} has more than {} radix stages", g->length, CUVIL_FFT_MAX_STAGES);
  TaskPlan plan = taskPlan(*g, dtype);
  ctx.setOutput(0, TensorType{dtype, g->output});
  ctx.setOutput(1, TensorType{dtype, {plan.tasks * plan.slotElements}});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  TransformGeometry g = *geometry(node, in[0]->shape());
  evalTransform(g, *in[0], in.size() > 2 ? in[2] : nullptr, node.getInt("inverse", 0) != 0, out[0]);
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  DType dtype = x->type().dtype;
  Expected<TransformGeometry> g = geometry(node, x->type().shape);
  CUVIL_TRY(g.status());
  Expected<const KernelRef *> kernel = fftKernel(dtype);
  CUVIL_TRY(kernel.status());
  TaskPlan plan = taskPlan(*g, dtype);
  ParamBlock<cuvil_fft_params> params;
  params.set(params->outer, g->outer);
  params.set(params->frames, g->frames);
  params.set(params->inner, g->inner);
  params.set(params->signal_len, g->signalLen);
  params.set(params->samples, g->samples);
  params.set(params->groups, plan.groups);
  params.set(params->tasks, plan.tasks);
  params->channels = g->channels;
  params->frame_step = g->frameStep;
  params->length = g->length;
  params->bins = g->bins;
  params->lanes = plan.lanes;
  params->scale_by_length = node.getInt("inverse", 0);
  FftPlan fft = fftPlan(g->length, g->channels == 1);
  params->fft_length = fft.fftLength();
  params->packed_real = fft.packedReal;
  std::vector<int64_t> radices = fft.radices();
  params->stages = int64_t(radices.size());
  std::copy(radices.begin(), radices.end(), params->radix);
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(x),
                         KernelArg::optionalPointer(node.numInputs() > 2 ? node.input(2) : nullptr),
                         KernelArg::pointer(node.input(1)), KernelArg::pointer(node.output(0)),
                         KernelArg::pointer(node.output(1)), KernelArg::params(params)},
                        plan.tasks);
}

std::vector<AttrSpec> attributes() {
  std::vector<AttrSpec> specs;
  for (std::string_view name : {"axis", "length", "frame_step", "onesided", "inverse"})
    specs.push_back({name, AttrKind::Int, std::nullopt, /*required=*/true});
  return specs;
}

} // namespace

extern const OpDefinition kFFTOp = {OpSchema{"cuvil.FFT", 2, 3, 2, 2, attributes(), infer, eval},
                                    lower};

} // namespace cuvil::ops
