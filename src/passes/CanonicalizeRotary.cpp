// RotaryEmbedding(x, cos_cache, sin_cache, [position_ids]) in x's own
// layout, heads on axis h (1 for [B, H, S, D]; 2 for [B, S, hidden] viewed
// as [B, S, H, D]):
//   x4   = rank 3 ? Reshape(x, [0, 0, num_heads, -1]) : x
//   cos  = Unsqueeze(Slice(position_ids ? Gather(cos_cache, position_ids) : cos_cache,
//                          ..rot/2 on axis 2), h)          [B, 1, S, rot/2] or [B, S, 1, rot/2]
//   x1, x2 = the two halves of x4[..., :rot], or with interleaved its even
//            and odd features
//   real = cos x1 - sin x2,  imag = sin x1 + cos x2
//   y    = Concat(halves ? Concat(real, imag) : Reshape(Concat(real[..., None],
//                 imag[..., None]), [0, 0, 0, rot]), x4[..., rot:]), reshaped
//          back to [0, 0, -1] for a rank-3 x
#include "CanonicalizeRotary.h"

#include "PassUtils.h"

namespace cuvil {
namespace {

class RotaryRewrite {
public:
  RotaryRewrite(Graph &graph, Node &node)
      : graph_(graph), node_(node), base_(node.output(0)->name()) {}

  Status run() {
    Value *x = node_.input(0);
    const bool flat = x->type().shape.size() == 3;
    const int64_t heads = node_.getInt("num_heads");
    const int64_t head =
        flat ? x->type().shape[2].constant() / heads : x->type().shape[3].constant();
    const int64_t rot =
        node_.getInt("rotary_embedding_dim") ? node_.getInt("rotary_embedding_dim") : head;
    const int64_t half = rot / 2, headAxis = flat ? 2 : 1;
    Value *x4 = flat ? add("Reshape", {x, ints({0, 0, heads, -1})}, "heads") : x;
    Value *cos = angles(node_.input(1), half, headAxis, "cos");
    Value *sin = angles(node_.input(2), half, headAxis, "sin");
    Value *rotated = rot < head ? slice(x4, 0, rot, 1, "rotated") : x4;
    const bool interleaved = node_.getInt("interleaved") != 0;
    Value *x1 = interleaved ? slice(rotated, 0, rot, 2, "even") : slice(rotated, 0, half, 1, "x1");
    Value *x2 = interleaved ? slice(rotated, 1, rot, 2, "odd") : slice(rotated, half, rot, 1, "x2");
    Value *real =
        add("Sub", {add("Mul", {cos, x1}, "cos_x1"), add("Mul", {sin, x2}, "sin_x2")}, "real");
    Value *imag =
        add("Add", {add("Mul", {sin, x1}, "sin_x1"), add("Mul", {cos, x2}, "cos_x2")}, "imag");
    Value *y = interleaved ? add("Reshape",
                                 {concat({add("Unsqueeze", {real, ints({-1})}, "real_pair"),
                                          add("Unsqueeze", {imag, ints({-1})}, "imag_pair")},
                                         "pairs"),
                                  ints({0, 0, 0, rot})},
                                 "interleaved")
                           : concat({real, imag}, "halves");
    if (rot < head)
      y = concat({y, slice(x4, rot, head, 1, "kept")}, "joined");
    if (flat)
      y = add("Reshape", {y, ints({0, 0, -1})}, "flat");
    CUVIL_TRY(status_);
    graph_.replaceAllUsesWith(node_.output(0), y);
    graph_.eraseNode(&node_);
    return Status::success();
  }

private:
  Value *ints(const std::vector<int64_t> &values) {
    return addInt64sConstant(graph_, values, base_ + ".ints");
  }

  // A new node before the rewritten one, typed by typed(); a failure is kept
  // for run(), and the rest of the rewrite goes on harmlessly.
  Node *node(const std::string &op, const std::vector<Value *> &inputs, const std::string &name) {
    return graph_.addNode(op, inputs, {graph_.uniqueName(base_ + "." + name)}, &node_);
  }
  Value *typed(Node *made) {
    if (status_.ok())
      status_ = inferNodeTypes(*made);
    return made->output(0);
  }
  Value *add(const std::string &op, const std::vector<Value *> &inputs, const std::string &name) {
    return typed(node(op, inputs, name));
  }
  Value *concat(const std::vector<Value *> &inputs, const std::string &name) {
    Node *made = node("Concat", inputs, name);
    made->setAttr("axis", Attribute(int64_t(-1)));
    return typed(made);
  }
  // value[..., begin:end:step] on the last axis.
  Value *slice(Value *value, int64_t begin, int64_t end, int64_t step, const std::string &name) {
    return add("Slice", {value, ints({begin}), ints({end}), ints({-1}), ints({step})}, name);
  }
  // The cos or sin of every (batch, position) as [B, S, half], with the
  // heads' axis inserted.
  Value *angles(Value *cache, int64_t half, int64_t headAxis, const std::string &name) {
    Value *table = node_.input(3) ? add("Gather", {cache, node_.input(3)}, name + "_at") : cache;
    if (!status_.ok())
      return table;
    const Shape &shape = table->type().shape; // [B, S, n]: the shape rule checked the ranks
    if (!shape[2].isConstant() || shape[2].constant() != half)
      table = slice(table, 0, half, 1, name + "_half");
    return add("Unsqueeze", {table, ints({headAxis})}, name);
  }

  Graph &graph_;
  Node &node_;
  std::string base_;
  Status status_ = Status::success();
};

} // namespace

Status rewriteRotaryEmbedding(Graph &graph, Node &node) { return RotaryRewrite(graph, node).run(); }

} // namespace cuvil
