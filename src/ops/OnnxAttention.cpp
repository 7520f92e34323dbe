// Attention (opsets 23, 24; what exporters write for scaled dot-product
// attention): Q, K, V as [B, heads, S, head] or, with q_num_heads and
// kv_num_heads, as [B, S, heads x head]; K and V appended to past_key and
// past_value (present_key, present_value); grouped-query attention when
// there are fewer K/V heads than Q heads (each K/V head serves
// q_heads / kv_heads consecutive Q heads); a boolean or additive attn_mask
// (its last dim padded with "masked" up to the total length), is_causal
// (query i, at position past + i, sees keys up to there), scale (1 /
// sqrt(head) by default), softcap (c tanh(s / c), before the mask as ONNX
// Runtime applies it); the fourth output the scores after the product, the
// softcap, the mask or the softmax (qk_matmul_output_mode 0 to 3, ORT's
// order). canonicalize writes it out in MatMul,
// Softmax and elementwise ops (CanonicalizeAttention.cpp), which
// fuse-attention makes one cuvil.Attention again. f32; softmax_precision is
// accepted (the softmax runs in f32); nonpad_kv_seqlen (opset 24; i64 [B])
// masks each batch's keys from that count on.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

constexpr size_t kQ = 0, kK = 1, kV = 2, kMask = 3, kPastKey = 4, kPastValue = 5, kNonpad = 6;

struct AttentionShapes {
  bool flat = false; // 3-D inputs
  Dim batch, querySeq, total;
  int64_t qHeads = 0, kvHeads = 0, head = 0, valueHead = 0;
};

// A dim that must be known, or an error naming it.
Expected<int64_t> known(const InferContext &ctx, const Dim &dim, const char *what) {
  if (!dim.isConstant())
    return ctx.error("{} must be known at compile time, is {}", what, dim.str());
  return dim.constant();
}

Expected<AttentionShapes> shapes(const InferContext &ctx) {
  for (size_t i : {kQ, kK, kV, kPastKey, kPastValue})
    if (ctx.hasInput(i) && ctx.inputDType(i) != DType::F32)
      return ctx.error("Q, K, V and the past must be f32, input {} is {}", i,
                       dtypeName(ctx.inputDType(i)));
  if (ctx.hasInput(kPastKey) != ctx.hasInput(kPastValue))
    return ctx.error("past_key and past_value must be given together");
  const Shape &q = ctx.inputShape(kQ), &k = ctx.inputShape(kK), &v = ctx.inputShape(kV);
  if (q.size() != k.size() || q.size() != v.size() || (q.size() != 3 && q.size() != 4))
    return ctx.error("Q, K and V must all be rank 3 or all rank 4, are [{}], [{}], [{}]",
                     shapeToString(q), shapeToString(k), shapeToString(v));
  AttentionShapes s;
  s.flat = q.size() == 3;
  s.batch = q[0];
  Dim kvSeq;
  if (s.flat) {
    s.qHeads = ctx.node().getInt("q_num_heads", 0);
    s.kvHeads = ctx.node().getInt("kv_num_heads", 0);
    if (s.qHeads < 1 || s.kvHeads < 1)
      return ctx.error("3-D Q, K and V need q_num_heads and kv_num_heads");
    Expected<int64_t> qHidden = known(ctx, q[2], "Q's hidden size");
    Expected<int64_t> kHidden = known(ctx, k[2], "K's hidden size");
    Expected<int64_t> vHidden = known(ctx, v[2], "V's hidden size");
    for (const auto *e : {&qHidden, &kHidden, &vHidden})
      CUVIL_TRY(e->status());
    if (*qHidden % s.qHeads || *kHidden % s.kvHeads || *vHidden % s.kvHeads)
      return ctx.error("hidden sizes {}, {}, {} do not split into {} and {} heads", *qHidden,
                       *kHidden, *vHidden, s.qHeads, s.kvHeads);
    s.head = *qHidden / s.qHeads;
    if (*kHidden / s.kvHeads != s.head)
      return ctx.error("K's heads have {} features, Q's {}", *kHidden / s.kvHeads, s.head);
    s.valueHead = *vHidden / s.kvHeads;
    s.querySeq = q[1];
    kvSeq = k[1];
    if (!(k[0] == s.batch) || !(v[0] == s.batch) || !(v[1] == kvSeq))
      return ctx.error("K [{}] and V [{}] do not match Q [{}]", shapeToString(k), shapeToString(v),
                       shapeToString(q));
  } else {
    Expected<int64_t> qHeads = known(ctx, q[1], "Q's heads");
    Expected<int64_t> kvHeads = known(ctx, k[1], "K's heads");
    Expected<int64_t> head = known(ctx, q[3], "Q's head size");
    Expected<int64_t> valueHead = known(ctx, v[3], "V's head size");
    for (const auto *e : {&qHeads, &kvHeads, &head, &valueHead})
      CUVIL_TRY(e->status());
    s = {false, q[0], q[2], Dim(), *qHeads, *kvHeads, *head, *valueHead};
    kvSeq = k[2];
    if (!(k == Shape{s.batch, Dim(s.kvHeads), kvSeq, Dim(s.head)}) ||
        !(v == Shape{s.batch, Dim(s.kvHeads), kvSeq, Dim(s.valueHead)}))
      return ctx.error("K [{}] and V [{}] do not match Q [{}]", shapeToString(k), shapeToString(v),
                       shapeToString(q));
  }
  if (s.qHeads % s.kvHeads != 0)
    return ctx.error("{} query heads do not group over {} key/value heads", s.qHeads, s.kvHeads);
  s.total = kvSeq;
  if (ctx.hasInput(kPastKey)) {
    const Shape &pk = ctx.inputShape(kPastKey), &pv = ctx.inputShape(kPastValue);
    if (pk.size() != 4 || pv.size() != 4 ||
        !(pk == Shape{s.batch, Dim(s.kvHeads), pk[2], Dim(s.head)}) ||
        !(pv == Shape{s.batch, Dim(s.kvHeads), pk[2], Dim(s.valueHead)}))
      return ctx.error("past_key [{}] and past_value [{}] must be [B, {}, P, {}] and [B, {}, P, "
                       "{}]",
                       shapeToString(pk), shapeToString(pv), s.kvHeads, s.head, s.kvHeads,
                       s.valueHead);
    s.total = pk[2] + kvSeq;
  }
  if (ctx.hasInput(kMask)) {
    const DType mask = ctx.inputDType(kMask);
    if (mask != DType::Bool && mask != DType::F32)
      return ctx.error("attn_mask must be bool or f32, is {}", dtypeName(mask));
    const Shape &m = ctx.inputShape(kMask);
    if (m.empty() || m.size() > 4)
      return ctx.error("attn_mask [{}] must have rank 1 to 4", shapeToString(m));
  }
  if (ctx.hasInput(kNonpad) &&
      (ctx.inputDType(kNonpad) != DType::I64 || !(ctx.inputShape(kNonpad) == Shape{s.batch})))
    return ctx.error("nonpad_kv_seqlen must be i64 [{}], is {}", s.batch.str(),
                     ctx.inputType(kNonpad).str());
  const int64_t mode = ctx.node().getInt("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3)
    return ctx.error("qk_matmul_output_mode {} is not 0 to 3", mode);
  return s;
}

Status infer(InferContext &ctx) {
  Expected<AttentionShapes> s = shapes(ctx);
  CUVIL_TRY(s.status());
  const Dim qHeads(s->qHeads), kvHeads(s->kvHeads);
  const Shape y = s->flat ? Shape{s->batch, s->querySeq, Dim(s->qHeads * s->valueHead)}
                          : Shape{s->batch, qHeads, s->querySeq, Dim(s->valueHead)};
  const Shape outputs[] = {y,
                           {s->batch, kvHeads, s->total, Dim(s->head)},
                           {s->batch, kvHeads, s->total, Dim(s->valueHead)},
                           {s->batch, qHeads, s->querySeq, s->total}};
  for (size_t i = 0; i < ctx.node().numOutputs(); ++i)
    ctx.setOutput(i, TensorType{DType::F32, outputs[i]});
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites Attention");
}

} // namespace

extern const OpDefinition kOnnxAttentionOp = {
    OpSchema{"Attention",
             3,
             7,
             1,
             4,
             {{"is_causal", AttrKind::Int, Attribute(int64_t(0))},
              {"kv_num_heads", AttrKind::Int},
              {"q_num_heads", AttrKind::Int},
              {"qk_matmul_output_mode", AttrKind::Int, Attribute(int64_t(0))},
              {"scale", AttrKind::Float},
              {"softcap", AttrKind::Float, Attribute(0.0f)},
              {"softmax_precision", AttrKind::Int}},
             infer,
             nullptr},
    lower};

} // namespace cuvil::ops
