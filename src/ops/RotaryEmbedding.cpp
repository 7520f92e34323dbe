// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim (0:
// all) features of each head of x ([batch, heads, seq, head_size], or
// [batch, seq, hidden] with num_heads) pairwise by the angles whose cos and
// sin come from the caches ([max_position + 1, rot/2] indexed by
// position_ids, or [batch, seq, rot/2] without them); pairs are the two
// halves, or with interleaved adjacent features. canonicalize rewrites it
// into Slice, Gather, Mul, Sub, Add and Concat (CanonicalizeRotary.cpp);
// Debian's ONNX 1.12 predates the op.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Node &node = ctx.node();
  const Shape &x = ctx.inputShape(0);
  if (x.size() != 3 && x.size() != 4)
    return ctx.error("expects x of rank 3 or 4, got rank {}", x.size());
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects float x, got {}", dtypeName(ctx.inputDType(0)));
  const int64_t heads = node.getInt("num_heads");
  if (!x.back().isConstant())
    return ctx.error("the last dim of x must be known at compile time");
  int64_t headSize = x.back().constant();
  if (x.size() == 3) {
    if (heads < 1 || headSize % heads != 0)
      return ctx.error("num_heads {} must divide the hidden size {} of a rank-3 x", heads,
                       headSize);
    headSize /= heads;
  }
  const int64_t rotary = node.getInt("rotary_embedding_dim");
  if (rotary < 0 || rotary > headSize || rotary % 2 != 0)
    return ctx.error("rotary_embedding_dim {} must be even and at most the head size {}", rotary,
                     headSize);
  if (node.input(3) && ctx.inputShape(3).size() != 2)
    return ctx.error("position_ids must be [batch, sequence], not of rank {}",
                     ctx.inputShape(3).size());
  const size_t cacheRank = node.input(3) ? 2 : 3;
  for (size_t i = 1; i < 3; ++i)
    if (ctx.inputShape(i).size() != cacheRank)
      return ctx.error("{} must have rank {} {} position_ids, not {}",
                       i == 1 ? "cos_cache" : "sin_cache", cacheRank,
                       cacheRank == 2 ? "with" : "without", ctx.inputShape(i).size());
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites RotaryEmbedding");
}

} // namespace

extern const OpDefinition kRotaryEmbeddingOp = {
    OpSchema{"RotaryEmbedding",
             3,
             4,
             1,
             1,
             {{"interleaved", AttrKind::Int, int64_t(0)},
              {"num_heads", AttrKind::Int, int64_t(0)},
              {"rotary_embedding_dim", AttrKind::Int, int64_t(0)}},
             infer,
             /*reference: see canonicalize*/ nullptr},
    lower};

} // namespace cuvil::ops
