#include "DeformConvCommon.h"

namespace cuvil::ops {

Expected<DeformGeometry> deformGeometry(const InferContext &ctx, const Shape &x,
                                        const std::vector<int64_t> &kernel, size_t offsetInput,
                                        size_t maskInput) {
  const Node &node = ctx.node();
  const Shape &offset = ctx.inputShape(offsetInput);
  for (size_t i : {size_t(0), offsetInput, maskInput})
    if (ctx.hasInput(i) && ctx.inputDType(i) != DType::F32)
      return ctx.error("X, offset and mask must be f32, input {} is {}", i,
                       dtypeName(ctx.inputDType(i)));
  if (x.size() != 4 || kernel.size() != 2)
    return ctx.error("only 2-D deformable convolutions are supported: X must be [N, C, H, W], "
                     "has rank {}",
                     x.size());
  if (!x[1].isConstant())
    return ctx.error("X's channels must be known at compile time, are {}", x[1].str());
  DeformGeometry g;
  g.channels = x[1].constant();
  g.groups = node.getInt("group", 1);
  g.offsetGroups = node.getInt("offset_group", 1);
  if (g.groups < 1 || g.offsetGroups < 1 || g.channels % g.groups != 0 ||
      g.channels % g.offsetGroups != 0)
    return ctx.error("X's {} channels do not split into group {} and offset_group {}", g.channels,
                     g.groups, g.offsetGroups);
  if (kernel[0] < 1 || kernel[1] < 1 || kernel[0] > (int64_t(1) << 16) ||
      kernel[1] > (int64_t(1) << 16))
    return ctx.error("kernel [{}] must be two extents in [1, 65536]", fmt::join(kernel, ", "));
  g.taps = kernel[0] * kernel[1];
  int64_t offsetChannels = 0, columns = 0;
  if (__builtin_mul_overflow(g.offsetGroups, 2 * g.taps, &offsetChannels) ||
      __builtin_mul_overflow(g.channels, g.taps, &columns))
    return ctx.error("{} channels in offset_group {} times the kernel's {} taps overflow int64",
                     g.channels, g.offsetGroups, g.taps);
  Expected<WindowGeometry> window = windowGeometry(node, Shape(x.begin() + 2, x.end()), kernel,
                                                   /*ceilMode=*/false);
  CUVIL_TRY(window.status());
  g.window = *window;
  const Dim &OH = g.window.output[0], &OW = g.window.output[1];
  Shape expected = {x[0], Dim(offsetChannels), OH, OW};
  if (!(offset == expected))
    return ctx.error("offset is [{}], the window and offset_group {} need [{}]",
                     shapeToString(offset), g.offsetGroups, shapeToString(expected));
  if (ctx.hasInput(maskInput)) {
    expected[1] = Dim(offsetChannels / 2);
    if (!(ctx.inputShape(maskInput) == expected))
      return ctx.error("mask is [{}], the window and offset_group {} need [{}]",
                       shapeToString(ctx.inputShape(maskInput)), g.offsetGroups,
                       shapeToString(expected));
  }
  return g;
}

std::vector<AttrSpec> deformAttributes() {
  return {{"kernel_shape", AttrKind::Ints},
          {"pads", AttrKind::Ints},
          {"strides", AttrKind::Ints},
          {"dilations", AttrKind::Ints},
          {"group", AttrKind::Int, Attribute(int64_t(1))},
          {"offset_group", AttrKind::Int, Attribute(int64_t(1))}};
}

} // namespace cuvil::ops
