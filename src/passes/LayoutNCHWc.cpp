// layout-nchwc: moves convolutional regions of the graph into the blocked
// NCHW16c layout, where a 16-channel block is one AVX-512 vector.
//
// Each Conv / cuvil.FusedConv (2-D, f32, dense or depthwise) becomes a
// cuvil.ConvNCHWc whose weights are packed here, at compile time. Its
// result is published as `FromNCHWc(blocked)`, so every consumer still sees
// the plain tensor; consumers that work on blocks (elementwise ops, pools,
// global pools, channel concats, further convolutions) look through the
// FromNCHWc and take the blocked tensor instead. Reorders thus remain only
// where a plain consumer needs them, and dce removes the rest. A first
// convolution with at most 4 input channels reads the plain input directly.
//
// Padding channels (when C is not a multiple of 16) hold zero weights and
// bias, and every blocked op keeps them finite, so they never leak into real
// channels.
#include "PassUtils.h"

#include "cuvil/ir/WindowGeometry.h"
#include "cuvil/passes/Passes.h"

#include <algorithm>
#include <array>
#include <map>

namespace cuvil {
namespace {

constexpr int64_t kBlock = 16;
int64_t blocksOf(int64_t channels) { return (channels + kBlock - 1) / kBlock; }

// Unary ops that map 0 to a finite value (padding lanes stay harmless).
constexpr std::array<std::string_view, 13> kBlockedUnary = {
    "Relu", "Clip", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "HardSwish",
    "Neg",  "Abs",  "Erf",     "Sqrt", "Exp",       "Floor"};
constexpr std::array<std::string_view, 6> kBlockedBinary = {"Add", "Sub", "Mul",
                                                            "Div", "Max", "Min"};

template <size_t N>
bool contains(const std::array<std::string_view, N> &list, const std::string &op) {
  return std::find(list.begin(), list.end(), op) != list.end();
}

// [M, C/g, KH, KW] -> dense [OCB, ICB, KH, KW, 16ic, 16oc], plain-input
// [OCB, C, KH, KW, 16oc] or depthwise [CB, KH, KW, 16]; zero padded.
Tensor packWeights(const Tensor &w, bool plain, bool depthwise) {
  const Shape &s = w.shape();
  int64_t M = s[0], C = s[1], KH = s[2], KW = s[3], OCB = blocksOf(M);
  const float *src = w.data<float>();
  auto at = [&](int64_t m, int64_t c, int64_t kh, int64_t kw) {
    return src[((m * C + c) * KH + kh) * KW + kw];
  };
  if (depthwise) {
    Tensor packed(TensorType{DType::F32, {OCB, KH, KW, kBlock}});
    float *dst = packed.mutableData<float>();
    for (int64_t m = 0; m < M; ++m)
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw)
          dst[(((m / kBlock) * KH + kh) * KW + kw) * kBlock + m % kBlock] = at(m, 0, kh, kw);
    return packed;
  }
  if (plain) {
    Tensor packed(TensorType{DType::F32, {OCB, C, KH, KW, kBlock}});
    float *dst = packed.mutableData<float>();
    for (int64_t m = 0; m < M; ++m)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t kh = 0; kh < KH; ++kh)
          for (int64_t kw = 0; kw < KW; ++kw)
            dst[((((m / kBlock) * C + c) * KH + kh) * KW + kw) * kBlock + m % kBlock] =
                at(m, c, kh, kw);
    return packed;
  }
  int64_t ICB = blocksOf(C);
  Tensor packed(TensorType{DType::F32, {OCB, ICB, KH, KW, kBlock, kBlock}});
  float *dst = packed.mutableData<float>();
  for (int64_t m = 0; m < M; ++m)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw)
          dst[(((((m / kBlock) * ICB + c / kBlock) * KH + kh) * KW + kw) * kBlock + c % kBlock) *
                  kBlock +
              m % kBlock] = at(m, c, kh, kw);
  return packed;
}

// A per-channel vector padded to whole blocks with `fill`.
Tensor padChannels(const Tensor &values, int64_t channels, float fill) {
  Tensor padded(TensorType{DType::F32, {blocksOf(channels) * kBlock}});
  for (int64_t i = 0; i < padded.numElements(); ++i)
    padded.setDouble(i, i < channels ? values.getDouble(i) : fill);
  return padded;
}

class LayoutPass {
public:
  explicit LayoutPass(Graph &graph) : graph_(graph) {}

  Status run() {
    std::vector<Node *> nodes;
    for (const auto &node : graph_.nodes())
      nodes.push_back(node.get());
    for (Node *node : nodes)
      CUVIL_TRY(convert(*node));
    graph_.eraseUnusedConstants();
    return Status::success();
  }

private:
  // The blocked tensor a plain value was reordered from, if any.
  static Value *blockedSource(const Value *value) {
    const Node *producer = value->producer();
    return producer && producer->op() == "cuvil.FromNCHWc" ? producer->input(0) : nullptr;
  }

  static bool isPlainImage(const Value *value) {
    return value->type().dtype == DType::F32 && value->type().rank() == 4;
  }

  Value *asBlocked(Value *value, Node *before) {
    if (Value *source = blockedSource(value))
      return source;
    Value *&cached = toBlocked_[value];
    if (!cached) {
      Node *reorder = graph_.addNode("cuvil.ToNCHWc", {value}, {value->name() + ".nchwc"}, before);
      (void)inferNodeTypes(*reorder);
      cached = reorder->output(0);
    }
    return cached;
  }

  // Replaces `original` (the plain result of `node`) by FromNCHWc(blocked),
  // then erases `node`.
  Status publish(Node &node, Node &blockedNode, int64_t channels) {
    CUVIL_TRY(inferNodeTypes(blockedNode));
    Value *original = node.output(0);
    Node *from = graph_.addNode("cuvil.FromNCHWc", {blockedNode.output(0)},
                                {original->name() + ".plain"}, &node);
    from->setAttr("channels", channels);
    CUVIL_TRY(inferNodeTypes(*from));
    graph_.replaceAllUsesWith(original, from->output(0));
    graph_.eraseNode(&node);
    return Status::success();
  }

  Node *blockedClone(Node &node, std::vector<Value *> inputs, const std::string &op) {
    Node *clone = graph_.addNode(op, inputs, {node.output(0)->name() + ".b"}, &node);
    clone->setName(node.name());
    for (const auto &[name, attr] : node.attributes())
      clone->setAttr(name, attr);
    return clone;
  }

  Status convert(Node &node) {
    if (node.numOutputs() != 1 || !node.output(0)->hasType())
      return Status::success();
    const std::string &op = node.op();
    if (op == "Conv" || op == "cuvil.FusedConv")
      return convertConv(node);
    if (!blockedSource(node.input(0)) || !isPlainImage(node.input(0)))
      return Status::success();
    int64_t channels = node.input(0)->type().shape[1];
    if (contains(kBlockedUnary, op))
      return convertUnary(node, channels);
    if (contains(kBlockedBinary, op))
      return convertBinary(node, channels);
    if (op == "MaxPool" || op == "AveragePool")
      return convertPool(node, channels);
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool")
      return convertGlobalPool(node, channels);
    if (op == "Concat")
      return convertConcat(node);
    return Status::success();
  }

  Status convertConv(Node &node) {
    Value *x = node.input(0), *w = node.input(1);
    if (!isPlainImage(x) || !w->isConstant() || (node.hasInput(2) && !node.input(2)->isConstant()))
      return Status::success();
    const Shape &xs = x->type().shape, &ws = w->type().shape;
    int64_t C = xs[1], M = ws[0], group = node.getInt("group", 1);
    bool depthwise = group > 1 && group == C && M == C && ws[1] == 1;
    if (group != 1 && !depthwise)
      return Status::success();
    bool plain = !depthwise && C <= 4 && !blockedSource(x);
    Expected<WindowGeometry> geometry = windowGeometry(node, {xs[2], xs[3]}, {ws[2], ws[3]}, false);
    if (!geometry)
      return Status::success();

    std::vector<Value *> inputs = {
        plain ? x : asBlocked(x, &node),
        graph_.addConstant(w->name() + ".nchwc", packWeights(w->constant(), plain, depthwise))};
    inputs.push_back(node.hasInput(2)
                         ? graph_.addConstant(node.input(2)->name() + ".nchwc",
                                              padChannels(node.input(2)->constant(), M, 0))
                         : nullptr);
    if (node.hasInput(3))
      inputs.push_back(asBlocked(node.input(3), &node));
    Node *conv = blockedClone(node, inputs, "cuvil.ConvNCHWc");
    conv->removeAttr("auto_pad");
    conv->removeAttr("group");
    conv->setAttr("kernel_shape", std::vector<int64_t>{ws[2], ws[3]});
    conv->setAttr("pads", std::vector<int64_t>{geometry->padsBegin[0], geometry->padsBegin[1],
                                               geometry->padsEnd[0], geometry->padsEnd[1]});
    if (depthwise)
      conv->setAttr("depthwise", int64_t(1));
    if (plain)
      conv->setAttr("plain_input", int64_t(1));
    if (!conv->hasInput(3) && !conv->hasInput(2))
      conv->removeTrailingInputs(2);
    return publish(node, *conv, M);
  }

  Status convertUnary(Node &node, int64_t channels) {
    std::vector<Value *> inputs = node.inputs();
    inputs[0] = blockedSource(node.input(0));
    return publish(node, *blockedClone(node, inputs, node.op()), channels);
  }

  // Both operands blocked and equally shaped, or one blocked and the other a
  // scalar or per-channel constant.
  Status convertBinary(Node &node, int64_t channels) {
    const TensorType &type = node.output(0)->type();
    std::vector<Value *> inputs;
    for (Value *operand : node.inputs()) {
      if (Value *source = blockedSource(operand); source && operand->type() == type) {
        inputs.push_back(source);
        continue;
      }
      std::optional<Value *> constant = blockedConstant(operand, channels, node.op() == "Div");
      if (!constant)
        return Status::success();
      inputs.push_back(*constant);
    }
    return publish(node, *blockedClone(node, inputs, node.op()), channels);
  }

  // A scalar, or a [C,1,1] / [1,C,1,1] constant as [1, CB, 1, 1, 16].
  std::optional<Value *> blockedConstant(Value *value, int64_t channels, bool divisor) {
    if (!value->isConstant() || value->type().dtype != DType::F32)
      return std::nullopt;
    const Tensor &tensor = value->constant();
    if (tensor.numElements() == 1)
      return graph_.addConstant(value->name() + ".scalar", tensor.reshaped({}));
    const Shape &s = tensor.shape();
    bool perChannel = tensor.numElements() == channels && s.size() >= 3 && s.size() <= 4 &&
                      s[s.size() - 3] == channels;
    if (!perChannel)
      return std::nullopt;
    Tensor padded = padChannels(tensor, channels, divisor ? 1.0f : 0.0f);
    return graph_.addConstant(value->name() + ".nchwc",
                              padded.reshaped({1, blocksOf(channels), 1, 1, kBlock}));
  }

  Status convertPool(Node &node, int64_t channels) {
    const Shape &xs = node.input(0)->type().shape;
    if (node.numOutputs() != 1 || !node.hasAttr("kernel_shape"))
      return Status::success();
    Expected<WindowGeometry> geometry = windowGeometry(
        node, {xs[2], xs[3]}, node.getInts("kernel_shape"), node.getInt("ceil_mode", 0));
    if (!geometry || geometry->kernel.size() != 2)
      return Status::success();
    Node *pool = blockedClone(node, {blockedSource(node.input(0))}, "cuvil.PoolNCHWc");
    pool->removeAttr("auto_pad");
    pool->removeAttr("storage_order");
    pool->setAttr("mode", std::string(node.op() == "MaxPool" ? "max" : "average"));
    pool->setAttr("pads", std::vector<int64_t>{geometry->padsBegin[0], geometry->padsBegin[1],
                                               geometry->padsEnd[0], geometry->padsEnd[1]});
    return publish(node, *pool, channels);
  }

  Status convertGlobalPool(Node &node, int64_t channels) {
    Value *axes = graph_.addConstant(node.output(0)->name() + ".axes",
                                     Tensor::fromInt64s(std::vector<int64_t>{2, 3}, {2}));
    const char *op = node.op() == "GlobalAveragePool" ? "ReduceMean" : "ReduceMax";
    Node *reduce = graph_.addNode(op, {blockedSource(node.input(0)), axes},
                                  {node.output(0)->name() + ".b"}, &node);
    reduce->setAttr("keepdims", int64_t(1));
    return publish(node, *reduce, channels);
  }

  // Along channels, when every input but the last fills whole blocks.
  Status convertConcat(Node &node) {
    int64_t axis = node.getInt("axis", 0);
    if (axis != 1 && axis != -3)
      return Status::success();
    std::vector<Value *> inputs;
    int64_t channels = 0;
    for (size_t i = 0; i < node.numInputs(); ++i) {
      Value *source = blockedSource(node.input(i));
      int64_t c = node.input(i)->type().shape[1];
      if (!source || (i + 1 < node.numInputs() && c % kBlock != 0))
        return Status::success();
      inputs.push_back(source);
      channels += c;
    }
    Node *concat = blockedClone(node, inputs, "Concat");
    concat->setAttr("axis", int64_t(1));
    return publish(node, *concat, channels);
  }

  Graph &graph_;
  std::map<Value *, Value *> toBlocked_;
};

} // namespace

Status runLayoutNCHWc(Graph &graph, PassContext &) { return LayoutPass(graph).run(); }

} // namespace cuvil
