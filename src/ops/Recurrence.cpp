// cuvil.Recurrence(xw, r_panels, [B], [sequence_lens], [initial_h],
// [initial_c], [P]): the steps of an RNN, GRU or LSTM (attribute `cell`) as
// canonicalize rewrites it. xw [S, B, D x gates x H] ([B, S, ...] with
// layout 1) is X . W^T for every step, one GEMM before it; r_panels is R
// packed by cuvil.PackRecurrentWeights; the other inputs and the
// attributes are the ONNX op's, with hidden_size always given. Results: Y,
// Y_h and Y_c as ONNX's (Y_c for every cell), then the kernel's scratch, a
// record per direction and batch row.
#include "MatMulCommon.h"
#include "RecurrentCommon.h"

namespace cuvil::ops {
namespace {

constexpr int64_t kPanel = CUVIL_RECURRENCE_PANEL;

Expected<RecurrentGeometry> geometry(const Node &node, const Shape &xw) {
  const RecurrentCell *cell = recurrentCell(node.getString("cell"));
  if (!cell)
    return Status::error(fmt::format("cell '{}' is not RNN, GRU or LSTM", node.getString("cell")));
  return recurrentGeometry(node, *cell, xw, node.getInt("hidden_size"));
}

int64_t panelsOf(const RecurrentGeometry &g) { return (g.hidden + kPanel - 1) / kPanel; }

// Floats per scratch record: h, c, the gates and r h, 64 x panels each.
int64_t recordFloats(const RecurrentGeometry &g) {
  return (3 + g.cell->gates) * panelsOf(g) * kPanel;
}

Status infer(InferContext &ctx) {
  const Shape &xw = ctx.inputShape(0);
  Expected<RecurrentGeometry> g = geometry(ctx.node(), xw);
  CUVIL_TRY(g.status());
  const int64_t D = g->directions, G = g->cell->gates, H = g->hidden;
  if (!xw[2].is(D * G * H))
    return ctx.error("xw has {} values a row, expected {}", xw[2], D * G * H);
  Shape panels = {D, G, panelsOf(*g), H, kPanel};
  if (!(ctx.inputShape(1) == panels))
    return ctx.error("r_panels is [{}], expected [{}]", shapeToString(ctx.inputShape(1)),
                     shapeToString(panels));
  CUVIL_TRY(recurrentActivations(ctx.node(), *g).status());
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("computes in f32, not {}", dtypeName(ctx.inputDType(0)));
  CUVIL_TRY(inferRecurrentResults(ctx, *g, 2, DType::F32));
  ctx.setOutput(3, TensorType{DType::F32, {D, g->batch, recordFloats(*g)}});
  return Status::success();
}

// The result, or null when nothing reads it (the kernel skips it).
const Value *used(const Value *result) {
  return result->uses().empty() && !result->isGraphOutput() ? nullptr : result;
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *xw = node.input(0);
  RecurrentGeometry g = *geometry(node, xw->type().shape);
  std::vector<RecurrentActivation> activations = *recurrentActivations(node, g);
  const int64_t D = g.directions, H = g.hidden, G = g.cell->gates;
  const Dim S = g.steps, B = g.batch, rowValues = D * G * H;
  ParamBlock<cuvil_recurrence_params> params;
  params->cell = g.cell->kernel;
  params->gates = G;
  params->directions = D;
  params->reverse = g.reverse;
  params.set(params->steps, S);
  params.set(params->batch, B);
  params->hidden = H;
  params->panels = panelsOf(g);
  // Strides of [S, B, ...] and [S, D, B, H], or [B, S, ...] and [B, S, D, H].
  params.set(params->xw_step, g.batchMajor ? rowValues : B * rowValues);
  params.set(params->xw_batch, g.batchMajor ? S * rowValues : rowValues);
  params.set(params->y_step, g.batchMajor ? Dim(D * H) : D * B * H);
  params.set(params->y_direction, g.batchMajor ? Dim(H) : B * H);
  params.set(params->y_batch, g.batchMajor ? S * D * H : Dim(H));
  params.set(params->state_direction, g.batchMajor ? Dim(H) : B * H);
  params.set(params->state_batch, g.batchMajor ? D * H : H);
  params->linear_before_reset = node.getInt("linear_before_reset") != 0;
  params->input_forget = node.getInt("input_forget") != 0;
  params->clip = node.hasAttr("clip") ? node.getFloat("clip") : 0.0;
  const size_t perDirection = g.cell->activations.size();
  for (int64_t d = 0; d < D; ++d)
    for (size_t k = 0; k < 3; ++k)
      params->activations[d][k] = k < perDirection
                                      ? activations[size_t(d) * perDirection + k].kernel
                                      : cuvil_unary{CUVIL_UNARY_IDENTITY, 0, 0};
  // The GEMM's tile for the batch rows; a single row takes a whole panel,
  // whose 4 vectors of accumulators hide the FMA latency.
  params->tile = chooseGemmTile(ctx.cpu(), B.opt());
  if (params->tile.pixels == 1)
    params->tile.blocks = 4;
  const bool lengths = node.hasInput(3);
  return ctx.callKernel(
      kRecurrenceKernel,
      {KernelArg::pointer(xw), KernelArg::pointer(node.input(1)),
       KernelArg::optionalPointer(node.input(2)), KernelArg::optionalPointer(node.input(3)),
       KernelArg::optionalPointer(node.input(4)), KernelArg::optionalPointer(node.input(5)),
       KernelArg::optionalPointer(node.input(6)), KernelArg::optionalPointer(used(node.output(0))),
       KernelArg::optionalPointer(used(node.output(1))),
       KernelArg::optionalPointer(used(node.output(2))), KernelArg::pointer(node.output(3)),
       lengths ? KernelArg::error({"a sequence length is {}, outside [0, seq_length]"})
               : KernelArg::optionalPointer(nullptr),
       KernelArg::params(params)},
      D * ceilDiv(B, params->tile.pixels), multiplyAddFlops(xw, Dim(H)));
}

} // namespace

extern const OpDefinition kRecurrenceOp = {OpSchema{"cuvil.Recurrence", 2, 7, 4, 4,
                                                    recurrentAttributes("cuvil.Recurrence"), infer,
                                                    nullptr},
                                           lower};

} // namespace cuvil::ops
