// cuvil.Attention: scaled dot-product attention, made by the fuse-attention
// pass from MatMul -> Softmax(last axis) -> MatMul (see
// src/kernels/Attention.cpp):
//   O = softmax(scale * Q . Kt + Mask) . V
// Q: [b.., M, K], Kt: [b.., K, N], V: [b.., N, D], O: [b.., M, D], with the
// same batch dims b..; Mask (optional) broadcasts to [b.., M, N] and varies
// along N. The second result is the kernel's scratch, one slot per batch
// entry, placed in the arena by the memory planner; `block_rows` (the
// queries whose scores a slot holds at once) is planned for the target.
// `q_perm`, `kt_perm`, `v_perm` (optional) say that an operand is given
// untransposed: Q is Transpose(input 0, q_perm), and so on; `out_perm`
// that the result is stored as Transpose(O, out_perm). fuse-attention
// folds the transposes that split heads out of [B, S, H, D] and merge them
// back into these, so that the kernel reads and writes the heads in place.
#include "cuvil/kernels/Attention.h"
#include "MatMulCommon.h"
#include "OpSupport.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace cuvil::ops {
namespace {

struct Geometry {
  Shape batch;
  Dim M, N, K, D;
  Dim batches() const { return numElements(batch); }
  // Packed Kt and V, the block's score rows (64-column panels), then their
  // softmax sums' inverses.
  Dim slotFloats(int64_t blockRows) const {
    Dim columns = ceilDiv(N, kGemmPanel) * kGemmPanel;
    return columns * K + ceilDiv(D, kGemmPanel) * kGemmPanel * N + columns * blockRows +
           Dim(blockRows);
  }
};

constexpr std::array<const char *, 3> kOperandPerms = {"q_perm", "kt_perm", "v_perm"};

// The operand's or result's permutation: `name`, or the identity.
Expected<std::vector<int64_t>> permutation(const Node &node, const char *name, size_t rank) {
  std::vector<int64_t> identity(rank);
  std::iota(identity.begin(), identity.end(), 0);
  return permutationAttr(node, name, rank, std::move(identity));
}

// Transpose's rule: dim i of the result is dim perm[i] of `dims`.
template <typename T>
std::vector<T> permuted(const std::vector<T> &dims, std::span<const int64_t> perm) {
  std::vector<T> out;
  for (int64_t axis : perm)
    out.push_back(dims[size_t(axis)]);
  return out;
}

// Q, Kt and V as the product sees them (their perms applied).
Expected<std::array<Shape, 3>> logicalOperands(const Node &node, std::array<Shape, 3> stored) {
  for (size_t i = 0; i < 3; ++i) {
    Expected<std::vector<int64_t>> perm = permutation(node, kOperandPerms[i], stored[i].size());
    CUVIL_TRY(perm.status());
    stored[i] = permuted(stored[i], *perm);
  }
  return stored;
}

Expected<Geometry> geometry(const Shape &q, const Shape &kt, const Shape &v) {
  size_t rank = q.size();
  if (rank < 2 || kt.size() != rank || v.size() != rank)
    return Status::error(fmt::format("Q [{}], Kt [{}] and V [{}] must have one rank >= 2",
                                     shapeToString(q), shapeToString(kt), shapeToString(v)));
  Geometry g{Shape(q.begin(), q.end() - 2), q[rank - 2], kt[rank - 1], q[rank - 1], v[rank - 1]};
  if (Shape(kt.begin(), kt.end() - 2) != g.batch || Shape(v.begin(), v.end() - 2) != g.batch ||
      kt[rank - 2] != g.K || v[rank - 2] != g.N)
    return Status::error(fmt::format("Q [{}], Kt [{}] and V [{}] do not chain", shapeToString(q),
                                     shapeToString(kt), shapeToString(v)));
  return g;
}

Shape scoresShape(const Geometry &g) {
  Shape scores = g.batch;
  scores.push_back(g.M);
  scores.push_back(g.N);
  return scores;
}

Expected<Geometry> nodeGeometry(const Node &node) {
  Expected<std::array<Shape, 3>> operands =
      logicalOperands(node, {node.input(0)->type().shape, node.input(1)->type().shape,
                             node.input(2)->type().shape});
  CUVIL_TRY(operands.status());
  return geometry((*operands)[0], (*operands)[1], (*operands)[2]);
}

// Score rows held at once: a quarter of L2 per slot, in whole register
// tiles, no more than the (served) number of queries needs.
Status plan(Node &node, const CpuModel &cpu) {
  Expected<Geometry> g = nodeGeometry(node);
  CUVIL_TRY(g.status());
  int64_t rowBytes = ceilDiv(g->N, kGemmPanel).opt() * kGemmPanel * int64_t(sizeof(float));
  int64_t tileRows = chooseGemmTile(cpu, g->M.opt()).pixels;
  int64_t rows = std::max<int64_t>(1, cpu.l2Bytes / 4 / rowBytes) / tileRows * tileRows;
  int64_t needed = (g->M.opt() + tileRows - 1) / tileRows * tileRows;
  node.setAttr("block_rows", std::clamp<int64_t>(rows, tileRows, std::max(needed, tileRows)));
  return Status::success();
}

Status infer(InferContext &ctx) {
  for (size_t i = 0; i < ctx.node().numInputs(); ++i)
    if (ctx.hasInput(i) && ctx.inputDType(i) != DType::F32)
      return ctx.error("operand {} is {}, only f32 is supported", i, dtypeName(ctx.inputDType(i)));
  Expected<std::array<Shape, 3>> operands =
      logicalOperands(ctx.node(), {ctx.inputShape(0), ctx.inputShape(1), ctx.inputShape(2)});
  CUVIL_TRY(operands.status());
  Expected<Geometry> g = geometry((*operands)[0], (*operands)[1], (*operands)[2]);
  CUVIL_TRY(g.status());
  if (ctx.hasInput(3)) {
    Shape scores = scoresShape(*g);
    Expected<Shape> broadcast = broadcastShapes(ctx.inputShape(3), scores);
    if (!broadcast || *broadcast != scores)
      return ctx.error("the mask [{}] does not broadcast to the scores [{}]",
                       shapeToString(ctx.inputShape(3)), shapeToString(scores));
  }
  int64_t blockRows = ctx.node().getInt("block_rows", 0);
  if (blockRows < 1)
    return ctx.error("block_rows must be positive (planForTarget sets it)");
  Shape out = g->batch;
  out.push_back(g->M);
  out.push_back(g->D);
  Expected<std::vector<int64_t>> outPerm = permutation(ctx.node(), "out_perm", out.size());
  CUVIL_TRY(outPerm.status());
  ctx.setOutput(0, TensorType{DType::F32, permuted(out, *outPerm)});
  ctx.setOutput(1, TensorType{DType::F32, {g->batches() * g->slotFloats(blockRows)}});
  return Status::success();
}

// `stored` transposed by `perm` into a dense tensor.
Tensor transposed(const Tensor &stored, const std::vector<int64_t> &perm) {
  Tensor out(TensorType{stored.dtype(), permuted(stored.shape(), perm)});
  copyStrided(stored, 0, permuted(staticStrides(stored.shape()), perm), out, 0,
              staticStrides(out.shape()), out.dims());
  return out;
}

// The reference: the unfused semantics on the transposed operands, row by
// row in double.
Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  std::vector<Tensor> operands;
  for (size_t i = 0; i < 3; ++i) {
    Expected<std::vector<int64_t>> perm = permutation(node, kOperandPerms[i], in[i]->type().rank());
    CUVIL_TRY(perm.status());
    operands.push_back(transposed(*in[i], *perm));
  }
  const Tensor &q = operands[0], &kt = operands[1], &v = operands[2];
  Expected<Geometry> g = geometry(q.shape(), kt.shape(), v.shape());
  CUVIL_TRY(g.status());
  const int64_t M = g->M.constant(), N = g->N.constant(), K = g->K.constant();
  const int64_t D = g->D.constant(), batches = g->batches().constant();
  Shape logicalOut = g->batch;
  logicalOut.push_back(g->M);
  logicalOut.push_back(g->D);
  Tensor o(TensorType{DType::F32, logicalOut});
  const Tensor *mask = in.size() > 3 ? in[3] : nullptr;
  Shape scores = scoresShape(*g);
  std::vector<int64_t> maskStrides, scoreDims = staticDims(scores);
  if (mask)
    maskStrides = staticBroadcastStrides(mask->shape(), scores);
  double scale = node.getFloat("scale", 1.0f);
  std::vector<double> row(size_t(N), 0.0);
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t m = 0; m < M; ++m) {
      double maxValue = -INFINITY, sum = 0;
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k)
          s += q.getDouble((b * M + m) * K + k) * kt.getDouble((b * K + k) * N + n);
        s *= scale;
        if (mask) {
          int64_t offset = 0, rest = (b * M + m) * N + n;
          for (size_t d = scoreDims.size(); d-- > 0;) {
            offset += (rest % scoreDims[d]) * maskStrides[d];
            rest /= scoreDims[d];
          }
          s += mask->getDouble(offset);
        }
        row[size_t(n)] = s;
        maxValue = std::max(maxValue, s);
      }
      for (double &s : row)
        sum += (s = std::exp(s - maxValue));
      for (int64_t d = 0; d < D; ++d) {
        double weighted = 0;
        for (int64_t n = 0; n < N; ++n)
          weighted += row[size_t(n)] * v.getDouble((b * N + n) * D + d);
        o.setDouble((b * M + m) * D + d, weighted / sum);
      }
    }
  Expected<std::vector<int64_t>> outPerm = permutation(node, "out_perm", logicalOut.size());
  CUVIL_TRY(outPerm.status());
  out[0] = transposed(o, *outPerm);
  return Status::success();
}

// Element strides of the operand or result as the product indexes it:
// `stored` is dense, `perm` maps the logical dims to its dims (an operand's
// perm), or the inverse (the result's out_perm, `inverse`).
std::vector<Dim> logicalStrides(const Shape &stored, const std::vector<int64_t> &perm,
                                bool inverse) {
  std::vector<Dim> own = contiguousStrides(stored);
  if (!inverse)
    return permuted(own, perm);
  std::vector<Dim> strides(own.size(), Dim(0));
  for (size_t i = 0; i < perm.size(); ++i)
    strides[size_t(perm[i])] = own[i];
  return strides;
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<Geometry> g = nodeGeometry(node);
  CUVIL_TRY(g.status());
  // Q, Kt, V, O.
  std::array<std::vector<Dim>, 4> strides;
  for (size_t i = 0; i < 4; ++i) {
    const Value *value = i < 3 ? node.input(i) : node.output(0);
    Expected<std::vector<int64_t>> perm =
        permutation(node, i < 3 ? kOperandPerms[i] : "out_perm", value->type().rank());
    CUVIL_TRY(perm.status());
    strides[i] = logicalStrides(value->type().shape, *perm, i == 3);
  }
  const size_t rank = strides[0].size();
  const Dim &ktK = strides[1][rank - 2], &ktN = strides[1][rank - 1];
  if (!strides[0].back().is(1) || !strides[2].back().is(1) || !strides[3].back().is(1) ||
      !(ktK.is(1) || ktN.is(1)))
    return Status::error("Q, V and O need unit column strides and Kt one along K or N");
  const Value *mask = node.input(3);
  Shape scores = scoresShape(*g);
  std::vector<Dim> maskStrides(scores.size(), 0);
  if (mask) {
    maskStrides = broadcastStrides(mask->type().shape, scores);
    if (!maskStrides.back().is(1))
      return Status::error("the mask must vary along the keys");
  }
  // Size-1 batch dims carry nothing; the rest end the kernel's arrays.
  std::vector<size_t> used;
  for (size_t d = 0; d < g->batch.size(); ++d)
    if (!g->batch[d].is(1))
      used.push_back(d);
  if (used.size() > CUVIL_ATTENTION_MAX_BATCH_RANK)
    return Status::error(
        fmt::format("more than {} non-trivial batch dimensions", CUVIL_ATTENTION_MAX_BATCH_RANK));
  int64_t blockRows = node.getInt("block_rows", 0);
  ParamBlock<cuvil_attention_params> params;
  std::fill(std::begin(params->batch), std::end(params->batch), 1);
  size_t first = CUVIL_ATTENTION_MAX_BATCH_RANK - used.size();
  for (size_t i = 0; i < used.size(); ++i) {
    params.set(params->batch[first + i], g->batch[used[i]]);
    params.set(params->mask_batch_strides[first + i], maskStrides[used[i]]);
    params.set(params->q_batch_strides[first + i], strides[0][used[i]]);
    params.set(params->kt_batch_strides[first + i], strides[1][used[i]]);
    params.set(params->v_batch_strides[first + i], strides[2][used[i]]);
    params.set(params->o_batch_strides[first + i], strides[3][used[i]]);
  }
  params.set(params->q_row_stride, strides[0][rank - 2]);
  params.set(params->kt_k_stride, ktK);
  params.set(params->kt_n_stride, ktN);
  params.set(params->v_row_stride, strides[2][rank - 2]);
  params.set(params->o_row_stride, strides[3][rank - 2]);
  params.set(params->mask_row_stride, maskStrides[scores.size() - 2]);
  params.set(params->M, g->M);
  params.set(params->N, g->N);
  params.set(params->K, g->K);
  params.set(params->D, g->D);
  params->tile = chooseGemmTile(ctx.cpu(), blockRows);
  params->block_rows = blockRows;
  params->chunk_k = chooseChunkK(ctx.cpu());
  params.set(params->slot_floats, g->slotFloats(blockRows));
  params->scale = node.getFloat("scale", 1.0f);
  Dim flops = Dim(2) * g->batches() * g->M * g->N * (g->K + g->D);
  return ctx.callKernel(kAttentionKernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
                         KernelArg::pointer(node.input(2)), KernelArg::optionalPointer(mask),
                         KernelArg::pointer(node.output(0)), KernelArg::pointer(node.output(1)),
                         KernelArg::params(params)},
                        g->batches(), flops);
}

} // namespace

extern const OpDefinition kAttentionOp = {withTargetPlan(OpSchema{"cuvil.Attention",
                                                                  3,
                                                                  4,
                                                                  2,
                                                                  2,
                                                                  {{"scale", AttrKind::Float},
                                                                   {"block_rows", AttrKind::Int},
                                                                   {"q_perm", AttrKind::Ints},
                                                                   {"kt_perm", AttrKind::Ints},
                                                                   {"v_perm", AttrKind::Ints},
                                                                   {"out_perm", AttrKind::Ints}},
                                                                  infer,
                                                                  eval},
                                                         plan),
                                          lower};

} // namespace cuvil::ops
