// BitShift: a << b or a >> b (direction "LEFT" or "RIGHT") on unsigned
// integers with numpy broadcasting; a shift by the width or more gives 0.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {

bool isLeft(const Node &node) { return node.getString("direction", "") == "LEFT"; }

int64_t shift(int64_t a, int64_t b, bool left, DType dtype) {
  int64_t bits = int64_t(8 * dtypeSize(dtype));
  if (uint64_t(b) >= uint64_t(bits))
    return 0;
  uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  uint64_t value = uint64_t(a) & mask;
  return int64_t((left ? value << b : value >> b) & mask);
}

Status infer(InferContext &ctx) {
  CUVIL_TRY(inferBinary(ctx, BinaryKind::Arithmetic));
  DType dtype = ctx.inputDType(0);
  if (!isUnsignedInt(dtype))
    return ctx.error("expects unsigned integers, got {}", dtypeName(dtype));
  std::string direction = ctx.node().getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return ctx.error("direction must be LEFT or RIGHT, got '{}'", direction);
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &a = *in[0], &b = *in[1];
  bool left = isLeft(node);
  forEachBroadcast(out[0].shape(), a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    out[0].setInt(i, shift(a.getInt(ia), b.getInt(ib), left, a.dtype()));
  });
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  return lowerBinary(node, ctx, isLeft(node) ? CUVIL_BINARY_SHIFT_LEFT : CUVIL_BINARY_SHIFT_RIGHT,
                     BinaryKind::Arithmetic);
}

} // namespace

extern const OpDefinition kBitShiftOp = {
    OpSchema{"BitShift", 2, 2, 1, 1, {{"direction", AttrKind::String}}, infer, eval}, lower};

} // namespace cuvil::ops
