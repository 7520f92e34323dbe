#include "BitwiseCommon.h"

#include <array>

namespace cuvil::ops {
namespace {

struct Bitwise {
  std::string_view op;
  cuvil_binary_op code;
  int64_t (*apply)(int64_t, int64_t);
};

constexpr std::array<Bitwise, 3> kBitwise = {{
    {"BitwiseAnd", CUVIL_BINARY_BITWISE_AND, [](int64_t a, int64_t b) { return a & b; }},
    {"BitwiseOr", CUVIL_BINARY_BITWISE_OR, [](int64_t a, int64_t b) { return a | b; }},
    {"BitwiseXor", CUVIL_BINARY_BITWISE_XOR, [](int64_t a, int64_t b) { return a ^ b; }},
}};

const Bitwise &bitwiseOf(const Node &node) {
  for (const Bitwise &bitwise : kBitwise)
    if (bitwise.op == node.op())
      return bitwise;
  return kBitwise[0]; // unreachable: only these ops use these functions
}

} // namespace

Status inferBitwise(InferContext &ctx) {
  CUVIL_TRY(inferBinary(ctx, BinaryKind::Arithmetic));
  DType dtype = ctx.inputDType(0);
  if (!isSignedInt(dtype) && !isUnsignedInt(dtype))
    return ctx.error("expects integers, got {}", dtypeName(dtype));
  return Status::success();
}

Status evalBitwise(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &a = *in[0], &b = *in[1];
  const Bitwise &bitwise = bitwiseOf(node);
  forEachBroadcast(out[0].shape(), a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    out[0].setInt(i, bitwise.apply(a.getInt(ia), b.getInt(ib)));
  });
  return Status::success();
}

Status lowerBitwise(const Node &node, LoweringContext &ctx) {
  return lowerBinary(node, ctx, bitwiseOf(node).code, BinaryKind::Arithmetic);
}

} // namespace cuvil::ops
