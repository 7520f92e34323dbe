// cuvil.PackRecurrentWeights: the recurrence weights R [D, gates x H, H] of
// an RNN, GRU or LSTM in the panels cuvil.Recurrence's matrix-vector
// products stream, [D, gates, ceil(H/64), H, 64] (R[d, g] transposed, 64
// hidden units a panel, zero padded). Canonicalize folds it on constant
// weights; weights given at run time are packed by its kernel.
#include "OpSupport.h"
#include "cuvil/kernels/Recurrence.h"

namespace cuvil::ops {
namespace {

constexpr int64_t kPanel = CUVIL_RECURRENCE_PANEL;

struct Packing {
  int64_t directions, gates, hidden, panels;
};

Expected<Packing> packing(const Node &node, const Shape &r) {
  int64_t gates = node.getInt("gates");
  if (r.size() != 3 || !isStatic(r) || gates < 1 || r[1].constant() != gates * r[2].constant())
    return Status::error(
        fmt::format("packs a static [D, {} x H, H] matrix, not [{}]", gates, shapeToString(r)));
  int64_t hidden = r[2].constant();
  return Packing{r[0].constant(), gates, hidden, (hidden + kPanel - 1) / kPanel};
}

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("packs f32 weights, not {}", dtypeName(ctx.inputDType(0)));
  Expected<Packing> p = packing(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(p.status());
  ctx.setOutput(0, TensorType{DType::F32, {p->directions, p->gates, p->panels, p->hidden, kPanel}});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  Packing p = *packing(node, in[0]->shape());
  const int64_t H = p.hidden;
  const float *r = in[0]->data<float>();
  float *packed = out[0].mutableData<float>(); // zero: the padding units
  for (int64_t matrix = 0; matrix < p.directions * p.gates; ++matrix)
    for (int64_t n = 0; n < H; ++n)
      for (int64_t k = 0; k < H; ++k)
        packed[((matrix * p.panels + n / kPanel) * H + k) * kPanel + n % kPanel] =
            r[(matrix * H + n) * H + k];
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Packing p = *packing(node, node.input(0)->type().shape);
  cuvil_pack_recurrent_params params{p.hidden, p.panels};
  return ctx.callKernel(kPackRecurrentKernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0)),
                         KernelArg::params(params)},
                        p.directions * p.gates);
}

} // namespace

extern const OpDefinition kPackRecurrentWeightsOp = {
    OpSchema{"cuvil.PackRecurrentWeights",
             1,
             1,
             1,
             1,
             {{"gates", AttrKind::Int, std::nullopt, true}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
