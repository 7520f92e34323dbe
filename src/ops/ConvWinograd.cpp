// cuvil.ConvWinograd: 3x3, stride-1 convolution by Winograd F(4x4, 3x3) in
// NCHWc (block K = 16 or 8), made by the layout-nchwc pass (see
// src/kernels/WinogradNCHWc.cpp):
//   y = activation(conv(X, W) + B + Residual)
// X, Residual, y: [N, CB, H, W, K]; U: the weights transformed at compile
// time, G W G^T, laid out [36][OCB][ICB][K][K]; B: [OCB * K].
// The target decides (planForTarget, called by the layout pass):
// `tile_block` x `tile_j`, the product's register tile (tiles x output
// blocks); `run_bytes`, the L2 share a run of tiles keeps its transformed
// input or products in; `max_tasks`, the most tasks an image is split into.
// The second result is the kernel's scratch (one slot per task), placed in
// the arena by the memory planner like any short-lived tensor.
#include "ChannelBlock.h"
#include "ConvTiling.h"
#include "FusedActivation.h"
#include "OpSupport.h"
#include "WinogradMatrices.h"
#include "cuvil/kernels/Conv.h"

#include <algorithm>
#include <array>

namespace cuvil::ops {
namespace {

using winograd::kAt;
using winograd::kBt;

// Everything per image is static; the batch N may be symbolic.
struct Geometry {
  Dim N;
  int64_t ICB, IH, IW, OCB, OH, OW, PT, PL, tilesH, tilesW, P, J, K;
  // Tasks per image, each with a scratch slot: enough to keep every core
  // busy, few enough to keep the slots small.
  int64_t maxTasksPerImage;
  // A task multiplies its tiles in runs whose transformed input (V) or
  // products (M) stay in L2, so that each slice of the transformed weights
  // is loaded once per run.
  int64_t maxRunBytes;
  // Small images (few tiles) have more transformed weights than transformed
  // input: the input is then transformed once per image into a shared V
  // (winograd_input), and the tasks split the output blocks, each loading
  // its weights once. Larger images split the tiles, each task transforming
  // its own.
  int64_t tiles() const { return tilesH * tilesW; }
  bool sharedInput() const { return OCB * K > tiles(); } // 36 OCB ICB K K vs 36 ICB tiles K
  int64_t ocbParts() const {
    return sharedInput() ? std::min(maxTasksPerImage, (OCB + J - 1) / J) : 1;
  }
  int64_t tileParts() const {
    return sharedInput() ? 1 : std::min(maxTasksPerImage, (tiles() + P - 1) / P);
  }
  int64_t tasksPerImage() const { return tileParts() * ocbParts(); }
  Dim tasks() const { return N * tasksPerImage(); }
  int64_t inputTasksPerImage() const { return std::min(maxTasksPerImage, ICB); }
  // T: tiles multiplied at once, a task's share where its V (or, with a
  // shared input, its M) fits maxRunBytes.
  int64_t runTiles() const {
    int64_t share = (tiles() + tileParts() - 1) / tileParts();
    int64_t perTile = 36 * (sharedInput() ? J : ICB) * K * int64_t(sizeof(float));
    return std::min(share, std::max(P, maxRunBytes / perTile));
  }
  int64_t vFloats() const { return 36 * ICB * (sharedInput() ? tiles() : runTiles()) * K; }
  int64_t mFloats() const { return 36 * runTiles() * J * K; }
  Dim scratchFloats() const {
    return sharedInput() ? N * vFloats() + tasks() * mFloats() : tasks() * (vFloats() + mFloats());
  }
};

// Its scratch and task split are laid out for a static image (the layout
// pass makes only such); the number of images may be symbolic.
Expected<Geometry> geometry(const Node &node, const Shape &xShape, const Shape &uShape) {
  if (xShape.empty() || !isStatic(std::span(xShape).subspan(1)) || !isStatic(uShape))
    return Status::error(fmt::format("X [{}] and U [{}]: Winograd needs static images",
                                     shapeToString(xShape), shapeToString(uShape)));
  Shape image = xShape;
  image[0] = 1;
  std::vector<int64_t> x = staticDims(image), u = staticDims(uShape);
  if (x.size() != 5 || !isChannelBlock(x[4]) || u.size() != 5 || u[0] != 36 || u[2] != x[1] ||
      u[3] != x[4] || u[4] != x[4])
    return Status::error(fmt::format("X [{}] and U [{}] are not blocked Winograd operands",
                                     shapeToString(xShape), shapeToString(uShape)));
  std::vector<int64_t> pads = node.getInts("pads", {1, 1, 1, 1});
  if (pads.size() != 4)
    return Status::error("pads must have 4 values");
  for (const char *planned : {"tile_block", "tile_j", "run_bytes", "max_tasks"})
    if (!node.hasAttr(planned))
      return Status::error(fmt::format("attribute {} is missing (planForTarget sets it)", planned));
  Geometry g{};
  g.N = xShape[0];
  g.ICB = x[1];
  g.IH = x[2];
  g.IW = x[3];
  g.OCB = u[1];
  g.OH = x[2] + pads[0] + pads[2] - 2;
  g.OW = x[3] + pads[1] + pads[3] - 2;
  g.PT = pads[0];
  g.PL = pads[1];
  g.P = node.getInt("tile_block", 0);
  g.J = node.getInt("tile_j", 0);
  g.K = x[4];
  g.maxTasksPerImage = node.getInt("max_tasks", 0);
  g.maxRunBytes = node.getInt("run_bytes", 0);
  if (g.OH <= 0 || g.OW <= 0 || !CUVIL_WINOGRAD_TILE_INSTANTIATED(g.K, g.P, g.J) ||
      g.maxTasksPerImage < 1 || g.maxRunBytes < 1)
    return Status::error("invalid Winograd geometry");
  g.tilesH = (g.OH + 3) / 4;
  g.tilesW = (g.OW + 3) / 4;
  return g;
}

// The register tile: as many output blocks as the registers leave weight
// vectors for (dividing the output blocks evenly), then as many tiles as
// accumulators remain for, within what the kernel instantiates.
Status plan(Node &node, const CpuModel &cpu) {
  Shape image = node.input(0)->type().shape; // the batch may be symbolic
  image[0] = 1;
  std::vector<int64_t> x = staticDims(image);
  int64_t K = x[4], OCB = node.input(1)->type().shape[1].constant();
  std::vector<int64_t> pads = node.getInts("pads", {1, 1, 1, 1});
  int64_t tiles =
      ((x[2] + pads[0] + pads[2] - 2 + 3) / 4) * ((x[3] + pads[1] + pads[3] - 2 + 3) / 4);
  TileBudget budget = tileBudget(cpu, K);
  int64_t J = std::min(budget.blocks, OCB);
  while (OCB % J != 0)
    --J;
  int64_t P = std::max<int64_t>(1, std::min(budget.accumulators / J, tiles));
  while (P > 1 && !CUVIL_WINOGRAD_TILE_INSTANTIATED(K, P, J))
    --P;
  node.setAttr("tile_block", P);
  node.setAttr("tile_j", J);
  node.setAttr("run_bytes", cpu.l2Bytes);
  node.setAttr("max_tasks", cpu.parallelSlots());
  return Status::success();
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
  for (int64_t n = 0; n < g.N.constant(); ++n)
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
                out[0].setDouble(index, activation->apply(value));
              }
          }
  return Status::success();
}

// U [36][OCB][ICB][K][K] holds 36 products' weights per output channel and
// each tile of them yields 16 outputs: U's elements / (OCB x K) / 16
// multiply-adds per output element (2.25 per input channel, against 9 direct).
Dim winogradFlops(const Node &node) {
  const Shape &u = node.input(1)->type().shape;
  return floorDiv(convolutionFlops(node.output(0), node.input(1), u[1] * u[4]), Dim(16));
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<Geometry> g = geometry(node, node.input(0)->type().shape, node.input(1)->type().shape);
  CUVIL_TRY(g.status());
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  // The tile in registers: the planned P x J where a block is one
  // register; where it takes two (16-lane blocks on AVX2) within this
  // variant's budget, in the same scratch slots, with the transforms done by
  // 8-lane halves.
  bool split = ctx.vectorLanes() < g->K;
  TileBudget budget = tileBudget(ctx.cpu(), g->K);
  ParamBlock<cuvil_winograd_params> params;
  params->ICB = g->ICB;
  params->OCB = g->OCB;
  params->window = {g->IH, g->IW, g->OH, g->OW, 3, 3, 1, 1, 1, 1, g->PT, g->PL, 0, 0};
  params->tiles_h = g->tilesH;
  params->tiles_w = g->tilesW;
  params->tile.blocks = std::min(g->J, budget.blocks);
  params->tile.pixels = std::min(g->P, budget.accumulators / params->tile.blocks);
  params->activation = activation->kernel();
  params->tasks_per_image = g->tasksPerImage();
  params->half_vectors = split ? 1 : 0;
  params->run_tiles = g->runTiles();
  params->ocb_parts = g->ocbParts();
  params->shared_input = g->sharedInput() ? 1 : 0;
  params.set(params->images, g->N);
  params->input_tasks = g->inputTasksPerImage();
  params->prefetch_weights =
      weightsStreamFromMemory(node.input(1)->type().byteSize().constant(), ctx.cpu()) ? 1 : 0;
  if (g->sharedInput())
    CUVIL_TRY(ctx.callKernel(kWinogradInputKernels.forBlock(g->K),
                             {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(1)),
                              KernelArg::params(params)},
                             g->N * g->inputTasksPerImage()));
  return ctx.callKernel(kWinogradKernels.forBlock(g->K),
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::optionalPointer(node.input(3)),
                         KernelArg::pointer(node.output(0)), KernelArg::pointer(node.output(1)),
                         KernelArg::params(params)},
                        g->tasks(), winogradFlops(node));
}

} // namespace

extern const OpDefinition kConvWinogradOp = {
    withTargetPlan(OpSchema{"cuvil.ConvWinograd",
                            2,
                            4,
                            2,
                            2,
                            {{"pads", AttrKind::Ints},
                             {"activation", AttrKind::String},
                             {"activation_params", AttrKind::Floats},
                             {"tile_block", AttrKind::Int},
                             {"tile_j", AttrKind::Int},
                             {"run_bytes", AttrKind::Int},
                             {"max_tasks", AttrKind::Int}},
                            infer,
                            eval},
                   plan),
    lower};

} // namespace cuvil::ops
