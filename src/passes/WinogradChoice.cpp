#include "WinogradChoice.h"

namespace cuvil {
namespace {

constexpr int64_t kWinogradMinTiles = 16;

} // namespace

// Winograd F(4x4, 3x3), for 3x3 stride-1 convolutions with enough 4x4
// output tiles, trades multiply-adds (36 per 4x4 tile and channel pair
// instead of 9 per pixel) for 4x the weight bytes, which an inference
// streams once from memory. It is chosen when the flops saved exceed the
// extra bytes times the flops a core does in the time one byte arrives
// from memory (the CPU model's; 12 on the x86-64-v4 one). ResNet-50's
// 14x14 convolutions: 156 Mflop saved for 7 MB more (1.29 -> 1.17 ms); its
// 7x7 ones would save as much for 28 MB more. Its scratch and task split
// are laid out for a static image, so only static spatial extents take it
// (the batch may be symbolic).
bool winogradPays(const PassContext &context, const WindowGeometry &g,
                  std::span<const int64_t> ws) {
  if (!isStatic(g.output))
    return false;
  int64_t OH = g.output[0].constant(), OW = g.output[1].constant();
  int64_t tiles = ((OH + 3) / 4) * ((OW + 3) / 4);
  int64_t channelPairs = ws[0] * ws[1];
  int64_t flopsSaved = 2 * channelPairs * (9 * OH * OW - 36 * tiles);
  int64_t extraBytes = (36 - 9) * channelPairs * int64_t(sizeof(float));
  return context.winograd && ws[2] == 3 && ws[3] == 3 && g.strides == std::vector<int64_t>{1, 1} &&
         g.dilations == std::vector<int64_t>{1, 1} && tiles >= kWinogradMinTiles &&
         double(flopsSaved) > context.cpu.flopsPerMemoryByte() * double(extraBytes);
}

bool convRunsAsWinograd(const Node &conv, std::span<const int64_t> ws, const PassContext &context) {
  const Shape &x = conv.input(0)->type().shape;
  // Grouped and depthwise convolutions keep their direct kernels.
  if (x.size() != 4 || ws.size() != 4 || conv.getInt("group", 1) != 1)
    return false;
  Expected<WindowGeometry> g = windowGeometry(conv, {x[2], x[3]}, {ws[2], ws[3]}, false);
  return g && winogradPays(context, *g, ws);
}

// VNNI's 512-bit vpdpbusd does 64 byte multiply-adds an instruction, four
// times an FMA's lanes, and the integer kernel's shifted-plane packing
// keeps it ahead: ResNet-50's 3x3 convolutions 0.36-0.43 ms on it against
// 0.31-0.59 in FP32 Winograd, the model 15.5 against 16.0-17.1 ms at one
// thread (Zen 5 VM), the same SQNR. Byte products without it (vpmaddubsw
// and vpmaddwd, NEON's widening multiplies) match Winograd at best: its
// FP32 keeps their accuracy.
bool winogradOverInteger(const Node &conv, std::span<const int64_t> ws,
                         const PassContext &context) {
  return !context.cpu.int8Dot && convRunsAsWinograd(conv, ws, context);
}

} // namespace cuvil
