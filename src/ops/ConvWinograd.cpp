// cuvil.ConvWinograd: 3x3, stride-1 convolution by Winograd F(4x4, 3x3) in
// NCHWc (block K = 16 or 8), made by the layout-nchwc pass (see
// src/kernels/WinogradNCHWc.cpp):
//   y = activation(conv(X, W) + B + Residual)
// X, Residual, y: [N, CB, H, W, K]; U: the weights transformed at compile
// time, G W G^T, laid out [36][OCB][ICB][K][K]; B: [OCB * K].
// `tile_block` x `tile_j` is the product's register tile: tiles x output
// blocks, at most 24 accumulators (12 with 8-lane blocks).
// The second result is the kernel's scratch (one slot per task), placed in
// the arena by the memory planner like any short-lived tensor.
#include "ChannelBlock.h"
#include "ConvTiling.h"
#include "FusedActivation.h"
#include "OpSupport.h"

#include <algorithm>
#include <array>

namespace cuvil::ops {
namespace {

// B^T and A^T of F(4x4, 3x3).
constexpr std::array<std::array<double, 6>, 6> kBt = {{{4, 0, -5, 0, 1, 0},
                                                       {0, -4, -4, 1, 1, 0},
                                                       {0, 4, -4, -1, 1, 0},
                                                       {0, -2, -1, 2, 1, 0},
                                                       {0, 2, -1, -2, 1, 0},
                                                       {0, 4, 0, -5, 0, 1}}};
constexpr std::array<std::array<double, 6>, 4> kAt = {
    {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}};

// Tasks per image, each with a scratch slot: enough to keep every core of a
// typical machine busy, few enough to keep the slots small.
constexpr int64_t kMaxTasksPerImage = 8;
// A task multiplies its tiles in runs whose transformed input (V) or
// products (M) stay in L2 (half of a 2 MiB one), so that each slice of the
// transformed weights is loaded once per run.
constexpr int64_t kMaxRunBytes = int64_t(1) << 20;

struct Geometry {
  int64_t N, ICB, IH, IW, OCB, OH, OW, PT, PL, tilesH, tilesW, P, J, K;
  // Small images (few tiles) have more transformed weights than transformed
  // input: the input is then transformed once per image into a shared V
  // (winograd_input), and the tasks split the output blocks, each loading
  // its weights once. Larger images split the tiles, each task transforming
  // its own.
  int64_t tiles() const { return tilesH * tilesW; }
  bool sharedInput() const { return OCB * K > tiles(); } // 36 OCB ICB K K vs 36 ICB tiles K
  int64_t ocbParts() const {
    return sharedInput() ? std::min(kMaxTasksPerImage, (OCB + J - 1) / J) : 1;
  }
  int64_t tileParts() const {
    return sharedInput() ? 1 : std::min(kMaxTasksPerImage, (tiles() + P - 1) / P);
  }
  int64_t tasksPerImage() const { return tileParts() * ocbParts(); }
  int64_t tasks() const { return N * tasksPerImage(); }
  int64_t inputTasksPerImage() const { return std::min(kMaxTasksPerImage, ICB); }
  // T: tiles multiplied at once, a task's share where its V (or, with a
  // shared input, its M) fits kMaxRunBytes.
  int64_t runTiles() const {
    int64_t share = (tiles() + tileParts() - 1) / tileParts();
    int64_t perTile = 36 * (sharedInput() ? J : ICB) * K * int64_t(sizeof(float));
    return std::min(share, std::max(P, kMaxRunBytes / perTile));
  }
  int64_t vFloats() const { return 36 * ICB * (sharedInput() ? tiles() : runTiles()) * K; }
  int64_t mFloats() const { return 36 * runTiles() * J * K; }
  int64_t scratchFloats() const {
    return sharedInput() ? N * vFloats() + tasks() * mFloats() : tasks() * (vFloats() + mFloats());
  }
};

Expected<Geometry> geometry(const Node &node, const Shape &x, const Shape &u) {
  if (x.size() != 5 || !isChannelBlock(x[4]) || u.size() != 5 || u[0] != 36 || u[2] != x[1] ||
      u[3] != x[4] || u[4] != x[4])
    return Status::error(fmt::format("X [{}] and U [{}] are not blocked Winograd operands",
                                     shapeToString(x), shapeToString(u)));
  std::vector<int64_t> pads = node.getInts("pads", {1, 1, 1, 1});
  if (pads.size() != 4)
    return Status::error("pads must have 4 values");
  Geometry g{x[0],
             x[1],
             x[2],
             x[3],
             u[1],
             x[2] + pads[0] + pads[2] - 2,
             x[3] + pads[1] + pads[3] - 2,
             pads[0],
             pads[1],
             0,
             0,
             node.getInt("tile_block", 8),
             node.getInt("tile_j", 3),
             x[4]};
  if (g.OH <= 0 || g.OW <= 0 || g.P < 1 || g.P > 8 || g.J < 1 || g.J > 4 ||
      g.P * g.J > CUVIL_WINOGRAD_MAX_ACCUMULATORS(g.K))
    return Status::error("invalid Winograd geometry");
  g.tilesH = (g.OH + 3) / 4;
  g.tilesW = (g.OW + 3) / 4;
  return g;
}

Status infer(InferContext &ctx) {
  Expected<Geometry> g = geometry(ctx.node(), ctx.inputShape(0), ctx.inputShape(1));
  CUVIL_TRY(g.status());
  CUVIL_TRY(fusedActivation(ctx.node()).status());
  TensorType out{DType::F32, {g->N, g->OCB, g->OH, g->OW, g->K}};
  if (ctx.hasInput(2) && ctx.inputShape(2) != Shape{g->OCB * g->K})
    return ctx.error("bias has shape [{}], expected [{}]", shapeToString(ctx.inputShape(2)),
                     g->OCB * g->K);
  if (ctx.hasInput(3) && ctx.inputType(3) != out)
    return ctx.error("the residual is {}, the result {}", ctx.inputType(3).str(), out.str());
  ctx.setOutput(0, out);
  ctx.setOutput(1, TensorType{DType::F32, {g->scratchFloats()}});
  return Status::success();
}

// The algorithm itself in double precision, tile by tile.
Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &u = *in[1];
  const Tensor *bias = in.size() > 2 ? in[2] : nullptr;
  const Tensor *residual = in.size() > 3 ? in[3] : nullptr;
  Geometry g = *geometry(node, x.shape(), u.shape());
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  const int64_t K = g.K;
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t th = 0; th < g.tilesH; ++th)
      for (int64_t tw = 0; tw < g.tilesW; ++tw)
        for (int64_t ocb = 0; ocb < g.OCB; ++ocb)
          for (int64_t o = 0; o < K; ++o) {
            double m[6][6] = {};
            for (int64_t icb = 0; icb < g.ICB; ++icb)
              for (int64_t i = 0; i < K; ++i) {
                double d[6][6], v[6][6] = {}, t[6][6] = {};
                for (int r = 0; r < 6; ++r)
                  for (int c = 0; c < 6; ++c) {
                    int64_t ih = th * 4 - g.PT + r, iw = tw * 4 - g.PL + c;
                    bool inside = ih >= 0 && ih < g.IH && iw >= 0 && iw < g.IW;
                    d[r][c] =
                        inside
                            ? x.getDouble(((((n * g.ICB + icb) * g.IH + ih) * g.IW + iw) * K) + i)
                            : 0.0;
                  }
                for (int r = 0; r < 6; ++r)
                  for (int c = 0; c < 6; ++c)
                    for (int k = 0; k < 6; ++k)
                      t[r][c] += kBt[size_t(r)][size_t(k)] * d[k][c];
                for (int r = 0; r < 6; ++r)
                  for (int c = 0; c < 6; ++c)
                    for (int k = 0; k < 6; ++k)
                      v[r][c] += t[r][k] * kBt[size_t(c)][size_t(k)];
                for (int xi = 0; xi < 36; ++xi)
                  m[xi / 6][xi % 6] +=
                      v[xi / 6][xi % 6] *
                      u.getDouble(((((int64_t(xi) * g.OCB + ocb) * g.ICB + icb) * K + i) * K) + o);
              }
            double t[4][6] = {}, y[4][4] = {};
            for (int r = 0; r < 4; ++r)
              for (int c = 0; c < 6; ++c)
                for (int k = 0; k < 6; ++k)
                  t[r][c] += kAt[size_t(r)][size_t(k)] * m[k][c];
            for (int r = 0; r < 4; ++r)
              for (int c = 0; c < 4; ++c)
                for (int k = 0; k < 6; ++k)
                  y[r][c] += t[r][k] * kAt[size_t(c)][size_t(k)];
            for (int r = 0; r < 4; ++r)
              for (int c = 0; c < 4; ++c) {
                int64_t oh = th * 4 + r, ow = tw * 4 + c;
                if (oh >= g.OH || ow >= g.OW)
                  continue;
                int64_t index = (((n * g.OCB + ocb) * g.OH + oh) * g.OW + ow) * K + o;
                double value = y[r][c] + (bias ? bias->getDouble(ocb * K + o) : 0.0) +
                               (residual ? residual->getDouble(index) : 0.0);
                out[0].setDouble(index, applyActivation(*activation, value));
              }
          }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<Geometry> g = geometry(node, node.input(0)->type().shape, node.input(1)->type().shape);
  CUVIL_TRY(g.status());
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  // The tile in registers: the pass's P x J where a block is one register;
  // where it takes two (16-lane blocks on AVX2) at most 6 x 1 (12 ymm
  // accumulators) in the same slots, with the transforms done by 8-lane
  // halves.
  Geometry variant = *g;
  bool split = ctx.vectorLanes() < g->K;
  if (split) {
    variant.P = std::min<int64_t>(g->P, 6);
    variant.J = 1;
  }
  KernelArg params = KernelArg::constantArray(
      {g->ICB,
       g->IH,
       g->IW,
       g->OCB,
       g->OH,
       g->OW,
       g->PT,
       g->PL,
       g->tilesH,
       g->tilesW,
       variant.P,
       variant.J,
       activation->code,
       g->tasksPerImage(),
       split ? 1 : 0,
       g->runTiles(),
       g->ocbParts(),
       g->sharedInput() ? 1 : 0,
       g->N,
       g->inputTasksPerImage(),
       weightsStreamFromMemory(int64_t(node.input(1)->type().byteSize())) ? 1 : 0});
  if (g->sharedInput())
    ctx.callKernel(blockedKernel("winograd_input", g->K),
                   {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(1)), params},
                   g->N * g->inputTasksPerImage());
  ctx.callKernel(
      blockedKernel("winograd", g->K),
      {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
       KernelArg::optionalPointer(node.input(2)), KernelArg::optionalPointer(node.input(3)),
       KernelArg::pointer(node.output(0)), KernelArg::pointer(node.output(1)), params,
       KernelArg::constantF32(activation->alpha), KernelArg::constantF32(activation->beta)},
      g->tasks());
  return Status::success();
}

} // namespace

extern const OpDefinition kConvWinogradOp = {OpSchema{"cuvil.ConvWinograd",
                                                      2,
                                                      4,
                                                      2,
                                                      2,
                                                      {{"pads", AttrKind::Ints},
                                                       {"activation", AttrKind::String},
                                                       {"activation_params", AttrKind::Floats},
                                                       {"tile_block", AttrKind::Int},
                                                       {"tile_j", AttrKind::Int}},
                                                      infer,
                                                      eval},
                                             lower};

} // namespace cuvil::ops
