// cuvil.FakeQuantize: a QuantizeLinear whose 8-bit result only its
// DequantizeLinear reads (same per-tensor scale and zero point), which
// fuse-qdq writes where a pre-quantized model's op stays in f32 (a
// depthwise convolution and its neighbours, a pooling): the value rounded
// to the quantization's grid, in f32, so that it fuses into the producing
// op's epilogue or an elementwise chain instead of two passes over an
// 8-bit tensor:
//   y = (saturate(round_half_even(x / scale) + zero_point) - zero_point) * scale
// with [low, high] the 8-bit type's range (0..255 or -128..127). Multiplying
// by 1 / scale where QuantizeLinear divides, a value within an ulp of a tie
// may round one step from the pair.
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {

Status validate(const Node &node) {
  const float low = node.getFloat("low", 0.0f), high = node.getFloat("high", 255.0f);
  if (!((low == 0.0f && high == 255.0f) || (low == -128.0f && high == 127.0f)))
    return Status::error(
        fmt::format("low {} and high {} are not an 8-bit type's range", low, high));
  if (!(node.getFloat("scale", 1.0f) > 0.0f))
    return Status::error("the scale must be positive");
  return Status::success();
}

const UnaryTraits kTraits{
    .name = "cuvil.FakeQuantize",
    .kernel = CUVIL_UNARY_FAKE_QUANT_U8,
    .reference = [](double x, std::span<const float> p) -> double {
      const float q = std::nearbyint(float(x) * (1.0f / p[0]));
      return double(std::clamp(q, p[2] - p[1], p[3] - p[1]) * p[0]);
    },
    .params = {{"scale", 1.0f}, {"zero_point", 0.0f}, {"low", 0.0f}, {"high", 255.0f}},
    .kernelFor = [](std::span<const float> p) -> cuvil_unary {
      return {p[2] == 0.0f ? CUVIL_UNARY_FAKE_QUANT_U8 : CUVIL_UNARY_FAKE_QUANT_I8, p[0], p[1]};
    },
    .validate = validate,
    .finiteAtZero = true};

} // namespace
extern const OpDefinition kFakeQuantizeOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
