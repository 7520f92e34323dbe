// Col2Im (opset 18; torch.nn.Fold): input [N, C * prod(block_shape), L]
// holds, for each of the L sliding blocks of an image of image_shape (the
// blocks a convolution window of block_shape with these strides, dilations
// and pads visits, in row-major order), the C x block values; each is added
// into the image [N, C, image_shape...] at its tap's pixel, those in the
// padding dropped:
//   y[n, c, l * s - pad_begin + k * d] += input[n, c * K + k, l]
// for every block l and tap k (per spatial axis). image_shape and
// block_shape must be known at compile time. canonicalize rewrites it into a
// transpose and ConvTranspose's scatter (CanonicalizeGeometry.cpp), which is
// the same sum. Debian's ONNX 1.12 predates it. f32.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

struct Col2ImGeometry {
  Shape image;
  std::vector<int64_t> block;
  WindowGeometry window; // its output: the blocks along each axis
  int64_t channels = 0;
};

Expected<Col2ImGeometry> geometry(InferContext &ctx) {
  const Shape &in = ctx.inputShape(0);
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("input must be f32, is {}", dtypeName(ctx.inputDType(0)));
  if (in.size() != 3)
    return ctx.error("input must be [N, C x block, L], has rank {}", in.size());
  Expected<std::vector<int64_t>> image = constantInts(ctx.node(), 1, "image_shape");
  CUVIL_TRY(image.status());
  Expected<std::vector<int64_t>> block = constantInts(ctx.node(), 2, "block_shape");
  CUVIL_TRY(block.status());
  if (image->size() != block->size() || image->empty() || image->size() > 3)
    return ctx.error("image_shape [{}] and block_shape [{}] must have one to three extents each",
                     fmt::join(*image, ","), fmt::join(*block, ","));
  Col2ImGeometry g;
  int64_t taps = 1;
  for (size_t d = 0; d < image->size(); ++d) {
    if ((*image)[d] < 0 || (*block)[d] < 1)
      return ctx.error("image_shape [{}] must not be negative, block_shape [{}] positive",
                       fmt::join(*image, ","), fmt::join(*block, ","));
    g.image.push_back((*image)[d]);
    if (__builtin_mul_overflow(taps, (*block)[d], &taps))
      return ctx.error("block_shape [{}] has more taps than an int64 holds",
                       fmt::join(*block, ","));
  }
  g.block = *block;
  Expected<WindowGeometry> window = windowGeometry(ctx.node(), g.image, g.block, false);
  CUVIL_TRY(window.status());
  g.window = *window;
  if (!in[1].isConstant() || in[1].constant() % taps != 0)
    return ctx.error("input's {} rows are not the channels times the {} taps of block_shape [{}]",
                     in[1].str(), taps, fmt::join(*block, ","));
  g.channels = in[1].constant() / taps;
  Dim blocks = numElements(g.window.output);
  if (!(blocks == in[2]))
    return ctx.error("input has {} blocks, image_shape [{}] gives {}", in[2].str(),
                     fmt::join(*image, ","), blocks.str());
  return g;
}

Status infer(InferContext &ctx) {
  Expected<Col2ImGeometry> g = geometry(ctx);
  CUVIL_TRY(g.status());
  Shape out = {ctx.inputShape(0)[0], Dim(g->channels)};
  out.insert(out.end(), g->image.begin(), g->image.end());
  ctx.setOutput(0, TensorType{DType::F32, out});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  InferContext ctx(node);
  Col2ImGeometry g = *geometry(ctx);
  const Tensor &cols = *in[0];
  const size_t rank = g.block.size();
  std::vector<int64_t> image = staticDims(g.image), blocks = staticDims(g.window.output);
  const int64_t N = cols.dim(0), C = g.channels, L = cols.dim(2);
  const int64_t taps = cols.dim(1) / std::max<int64_t>(C, 1),
                pixels = numElements(g.image).constant();
  for (int64_t i = 0; i < out[0].numElements(); ++i)
    out[0].setDouble(i, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t k = 0; k < taps; ++k)
        for (int64_t l = 0; l < L; ++l) {
          // Row-major coordinates of tap k and block l; the pixel they meet.
          int64_t pixel = 0, pixelStride = 1, kRest = k, lRest = l;
          bool inside = true;
          for (size_t d = rank; d-- > 0;) {
            const int64_t kd = kRest % g.block[d], ld = lRest % blocks[d];
            kRest /= g.block[d];
            lRest /= blocks[d];
            const int64_t at = ld * g.window.strides[d] - g.window.padsBegin[d].constant() +
                               kd * g.window.dilations[d];
            inside = inside && at >= 0 && at < image[d];
            pixel += at * pixelStride;
            pixelStride *= image[d];
          }
          if (inside) {
            const int64_t at = (n * C + c) * pixels + pixel;
            out[0].setDouble(at, out[0].getDouble(at) +
                                     cols.getDouble((n * cols.dim(1) + c * taps + k) * L + l));
          }
        }
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites Col2Im");
}

} // namespace

extern const OpDefinition kCol2ImOp = {
    OpSchema{"Col2Im",
             3,
             3,
             1,
             1,
             {{"dilations", AttrKind::Ints}, {"pads", AttrKind::Ints}, {"strides", AttrKind::Ints}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
