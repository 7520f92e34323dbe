// Attention(Q, K, V, [attn_mask], [past_key], [past_value]) ->
//   q, k, v  = 3-D ? Transpose(Reshape(x, [0, 0, heads, -1]), [0, 2, 1, 3]) : x
//   present  = past ? Concat(past, k or v, axis 2) : k or v      (outputs 1, 2)
//   k, v     = grouped ? Reshape(Expand(Unsqueeze(present, 2), [1, 1, r, 1, 1]),
//                                [B, q_heads, T, head]) : present
//   scores   = MatMul(q, Transpose(k, [0, 1, 3, 2])) * scale
//   scores   = softcap ? softcap * Tanh(scores / softcap) : scores
//   scores  += mask: bool -> Where(mask, 0, -inf); padded with -inf to T
//   scores  += causal: Where(Trilu(ones [S, T], k = P, lower), 0, -inf)
//   scores  += nonpad_kv_seqlen: Where(CumSum(ones [T]) <= nonpad [B, 1], 0,
//              -inf) as [B, 1, 1, T]: key j of batch b kept when j < nonpad[b];
//              with is_causal the diagonal ends at nonpad[b] instead
//              (paddedCausalBias)
//   y        = MatMul(Softmax(scores), v), 0 for a query the masks leave no
//              key (as ONNX Runtime), for 3-D Reshape(Transpose(y, [0, 2, 1,
//              3]), [0, 0, -1])
// The softcap comes before the mask as ONNX Runtime computes it: the spec's
// diagram adds the mask first, which would make a -inf mask -softcap and
// let masked keys through. The fourth output is the scores after stage
// qk_matmul_output_mode of that order (ORT's: 0 the product, 1 the
// softcap, 2 the mask, 3 the softmax). The product, scale, mask and
// softmax are the pattern fuse-attention makes one cuvil.Attention of.
#include "CanonicalizeAttention.h"

#include "PassUtils.h"

#include <cmath>

namespace cuvil {
namespace {

constexpr size_t kMask = 3, kPastKey = 4, kPastValue = 5, kNonpad = 6;

class AttentionRewrite {
public:
  AttentionRewrite(Graph &graph, Node &node)
      : graph_(graph), node_(node), base_(node.output(0)->name()) {}

  Status run() {
    Value *q = node_.input(0), *k = node_.input(1), *v = node_.input(2);
    const bool flat = q->type().shape.size() == 3;
    if (flat) {
      q = heads(q, node_.getInt("q_num_heads"), "q");
      k = heads(k, node_.getInt("kv_num_heads"), "k");
      v = heads(v, node_.getInt("kv_num_heads"), "v");
    }
    CUVIL_TRY(status_);
    const Shape &qs = q->type().shape, &ks = k->type().shape; // checked by the shape rule
    const int64_t qHeads = qs[1].constant(), kvHeads = ks[1].constant();
    const int64_t head = qs[3].constant();
    Value *presentKey =
        node_.input(kPastKey) ? concat({node_.input(kPastKey), k}, "present_key") : k;
    Value *presentValue =
        node_.input(kPastValue) ? concat({node_.input(kPastValue), v}, "present_value") : v;
    k = grouped(presentKey, qHeads, kvHeads, "k_grouped");
    v = grouped(presentValue, qHeads, kvHeads, "v_grouped");

    Value *kt = add("Transpose", {k}, "kt", {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
    const double scale =
        node_.hasAttr("scale") ? node_.getFloat("scale") : 1.0 / std::sqrt(double(head));
    Value *scores = add("Mul", {add("MatMul", {q, kt}, "qk"), scalar(scale, "scale")}, "scores");
    Value *stages[4] = {scores, nullptr, nullptr, nullptr};
    if (const float cap = node_.getFloat("softcap"); cap > 0) {
      Value *tanh =
          add("Tanh", {add("Mul", {scores, scalar(1.0 / cap, "inv_cap")}, "capped")}, "tanh");
      scores = add("Mul", {tanh, scalar(cap, "cap")}, "softcapped");
    }
    stages[1] = scores;
    Value *bias = maskBias(scores);
    if (bias)
      scores = add("Add", {scores, bias}, "masked");
    stages[2] = scores;
    Value *probabilities = add("Softmax", {scores}, "probabilities", {{"axis", int64_t(-1)}});
    stages[3] = probabilities;
    Value *y = add("MatMul", {probabilities, v}, "heads_out");
    if (bias) {
      // A query that sees no key gives 0, as ONNX Runtime (the spec's
      // softmax would give NaN).
      Value *best = add("ReduceMax", {bias, ints({-1})}, "best_bias", {{"keepdims", int64_t(1)}});
      Value *seesAKey = add("Greater", {best, scalar(-INFINITY, "nothing")}, "sees_a_key");
      y = add("Where", {seesAKey, y, scalar(0.0, "unseen")}, "seen_out");
    }
    if (flat)
      y = add("Reshape",
              {add("Transpose", {y}, "seq_major", {{"perm", std::vector<int64_t>{0, 2, 1, 3}}}),
               ints({0, 0, -1})},
              "flat");
    CUVIL_TRY(status_);
    Value *results[4] = {y, presentKey, presentValue,
                         stages[node_.getInt("qk_matmul_output_mode", 0)]};
    for (size_t i = 0; i < node_.numOutputs(); ++i)
      graph_.replaceAllUsesWith(node_.output(i), results[i]);
    graph_.eraseNode(&node_);
    return Status::success();
  }

private:
  // [B, S, heads x head] -> [B, heads, S, head].
  Value *heads(Value *x, int64_t count, const std::string &name) {
    Value *split = add("Reshape", {x, ints({0, 0, count, -1})}, name + "_split");
    return add("Transpose", {split}, name + "_heads", {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  }

  // Each of the kv heads repeated for its q_heads / kv_heads query heads.
  Value *grouped(Value *x, int64_t qHeads, int64_t kvHeads, const std::string &name) {
    if (qHeads == kvHeads || !status_.ok())
      return x;
    Value *unsqueezed = add("Unsqueeze", {x, ints({2})}, name + "_unsqueezed");
    Value *repeated =
        add("Expand", {unsqueezed, ints({1, 1, qHeads / kvHeads, 1, 1})}, name + "_repeated");
    if (!status_.ok())
      return repeated;
    // [B, kv, r, T, D] -> [B, q, T, D]: the shape from Shape(x), so the
    // symbols stay.
    Value *shape = add("Shape", {x}, name + "_shape");
    Value *merged = concat(
        {slice(shape, 0, 1, name + "_batch"), ints({qHeads}), slice(shape, 2, 4, name + "_rest")},
        name + "_merged_shape", 0);
    return add("Reshape", {repeated, merged}, name);
  }

  // The additive bias of attn_mask and is_causal, or null.
  Value *maskBias(Value *scores) {
    Value *bias = nullptr;
    if (Value *mask = node_.input(kMask)) {
      if (mask->type().dtype == DType::Bool)
        mask = add("Where", {mask, scalar(0.0, "attend"), scalar(-INFINITY, "masked_out")},
                   "mask_bias");
      bias = padToTotal(mask, scores);
    }
    if (node_.getInt("is_causal", 0) != 0 && node_.input(kNonpad)) {
      Value *causal = paddedCausalBias(scores, node_.input(kNonpad));
      bias = bias ? add("Add", {bias, causal}, "bias") : causal;
    } else if (node_.getInt("is_causal", 0) != 0) {
      // ones [S, T] kept on and below diagonal P: query i sees keys to P + i.
      Value *shape = slice(add("Shape", {scores}, "scores_shape"), 2, 4, "causal_shape");
      Value *ones = add("Expand", {scalar(1.0, "one"), shape}, "ones");
      Value *past = node_.input(kPastKey)
                        ? add("Squeeze",
                              {slice(add("Shape", {node_.input(kPastKey)}, "past_shape"), 2, 3,
                                     "past_length_1d"),
                               ints({0})},
                              "past_length")
                        : zero();
      Value *visible = add("Trilu", {ones, past}, "visible", {{"upper", int64_t(0)}});
      Value *causal = add(
          "Where",
          {add("Cast", {visible}, "visible_bool", {{"to", int64_t(dtypeOnnxCode(DType::Bool))}}),
           scalar(0.0, "causal_attend"), scalar(-INFINITY, "causal_masked")},
          "causal_bias");
      bias = bias ? add("Add", {bias, causal}, "bias") : causal;
    }
    if (Value *lengths = node_.input(kNonpad)) {
      // Positions 1..T along the keys (CumSum of ones keeps T's symbol).
      Value *keys = slice(add("Shape", {scores}, "keys_shape"), 3, 4, "keys");
      Value *positions =
          add("CumSum", {add("Expand", {scalar(1.0, "key_one"), keys}, "key_ones"), zero()},
              "key_positions");
      Value *limit =
          add("Unsqueeze",
              {add("Cast", {lengths}, "nonpad_f32", {{"to", int64_t(dtypeOnnxCode(DType::F32))}}),
               ints({1})},
              "nonpad_column");
      Value *kept = add("LessOrEqual", {positions, limit}, "nonpad_kept");
      Value *padding = add(
          "Unsqueeze",
          {add("Where", {kept, scalar(0.0, "nonpad_attend"), scalar(-INFINITY, "nonpad_masked")},
               "nonpad_rows"),
           ints({1, 2})},
          "nonpad_bias");
      bias = bias ? add("Add", {bias, padding}, "padded_bias") : padding;
    }
    return bias;
  }

  // With nonpad_kv_seqlen the queries are the last S of batch b's nonpad[b]
  // keys (ONNX Runtime's alignment): query i sees key j when j <= i +
  // nonpad[b] - S, i.e. (j + 1) + (S - i) <= nonpad[b] + 1, from positions
  // counted by CumSum (forward along the keys, reversed along the queries,
  // so the symbols stay). [B, 1, S, T].
  Value *paddedCausalBias(Value *scores, Value *lengths) {
    Value *shape = add("Shape", {scores}, "scores_dims");
    auto count = [&](int64_t axis, bool reverse, const std::string &name) {
      Value *ones = add(
          "Expand", {scalar(1.0, name + "_one"), slice(shape, axis, axis + 1, name + "_extent")},
          name + "_ones");
      return add("CumSum", {ones, zero()}, name + "_positions", {{"reverse", int64_t(reverse)}});
    };
    Value *reach = add("Add",
                       {add("Unsqueeze", {count(2, true, "queries"), ints({1})}, "queries_column"),
                        count(3, false, "keys")},
                       "causal_reach");
    Value *limit = add(
        "Add",
        {add("Cast", {lengths}, "nonpad_limit_f32", {{"to", int64_t(dtypeOnnxCode(DType::F32))}}),
         scalar(1.0, "limit_one")},
        "nonpad_limit");
    Value *visible =
        add("LessOrEqual", {reach, add("Unsqueeze", {limit, ints({1, 2})}, "limit_3d")},
            "causal_visible");
    return add(
        "Unsqueeze",
        {add("Where", {visible, scalar(0.0, "padded_attend"), scalar(-INFINITY, "padded_masked")},
             "padded_causal"),
         ints({1})},
        "padded_causal_bias");
  }

  // A mask shorter than the total length (known at compile time) is
  // padded with masked columns, as ONNX's reference does.
  Value *padToTotal(Value *mask, Value *scores) {
    if (!status_.ok())
      return mask;
    const Shape &m = mask->type().shape, &s = scores->type().shape;
    const Dim &have = m.back(), &need = s.back();
    if (!have.isConstant() || !need.isConstant() || have.constant() >= need.constant() ||
        have.constant() == 1)
      return mask;
    std::vector<int64_t> pads(2 * m.size(), 0);
    pads.back() = need.constant() - have.constant();
    return add("Pad", {mask, ints(pads), scalar(-INFINITY, "pad_masked")}, "mask_padded");
  }

  // An i64 scalar 0 (CumSum's axis, Trilu's diagonal without a cache).
  Value *zero() {
    return graph_.addConstant(graph_.uniqueName(base_ + ".zero"),
                              Tensor::fromInt64s(std::vector<int64_t>{0}, {}));
  }
  Value *ints(const std::vector<int64_t> &values) {
    return addInt64sConstant(graph_, values, graph_.uniqueName(base_ + ".ints"));
  }
  Value *scalar(double value, const std::string &name) {
    return addScalarConstant(graph_, value, DType::F32, graph_.uniqueName(base_ + "." + name));
  }
  // shape[begin:end] of a 1-D shape value.
  Value *slice(Value *shape, int64_t begin, int64_t end, const std::string &name) {
    return add("Slice", {shape, ints({begin}), ints({end})}, name);
  }
  Value *concat(const std::vector<Value *> &inputs, const std::string &name, int64_t axis = 2) {
    return add("Concat", inputs, name, {{"axis", axis}});
  }
  // A new node before the rewritten one, typed; a failure is kept for
  // run(), and the rest of the rewrite goes on harmlessly.
  Value *add(const std::string &op, const std::vector<Value *> &inputs, const std::string &name,
             const std::vector<std::pair<std::string, Attribute>> &attributes = {}) {
    Node *made = graph_.addNode(op, inputs, {graph_.uniqueName(base_ + "." + name)}, &node_);
    for (const auto &[key, value] : attributes)
      made->setAttr(key, value);
    if (status_.ok())
      status_ = inferNodeTypes(*made);
    return made->output(0);
  }

  Graph &graph_;
  Node &node_;
  std::string base_;
  Status status_ = Status::success();
};

} // namespace

Status rewriteAttention(Graph &graph, Node &node) { return AttentionRewrite(graph, node).run(); }

} // namespace cuvil
