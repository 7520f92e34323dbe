// cuvil.PadChannels: a per-channel vector (C values, in any shape whose
// other dims are 1) padded with `fill` to whole blocks of `block` channels,
// as [CB * K] (`layout` "flat": a blocked op's bias) or [1, CB, 1, 1, K]
// ("nchwc": a per-channel operand of a blocked elementwise op). Made by
// layout-nchwc on constants and folded there: it has no kernel.
#include "ChannelBlock.h"
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  int64_t K = ctx.node().getInt("block", 0);
  std::string layout = ctx.node().getString("layout", "flat");
  if (ctx.inputDType(0) != DType::F32 || !isChannelBlock(K) ||
      (layout != "flat" && layout != "nchwc"))
    return ctx.error("cannot pad {} to blocks of {} as '{}'", ctx.inputType(0).str(), K, layout);
  Dim blocks = ceilDiv(ctx.inputType(0).numElements(), K);
  ctx.setOutput(
      0, TensorType{DType::F32, layout == "flat" ? Shape{blocks * K} : Shape{1, blocks, 1, 1, K}});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  int64_t channels = in[0]->numElements();
  double fill = node.getFloat("fill", 0.0f);
  for (int64_t i = 0; i < out[0].numElements(); ++i)
    out[0].setDouble(i, i < channels ? in[0]->getDouble(i) : fill);
  return Status::success();
}

} // namespace

extern const OpDefinition kPadChannelsOp = {
    OpSchema{"cuvil.PadChannels",
             1,
             1,
             1,
             1,
             {{"block", AttrKind::Int}, {"fill", AttrKind::Float}, {"layout", AttrKind::String}},
             infer,
             eval},
    lowerCompileTimeOnly};

} // namespace cuvil::ops
