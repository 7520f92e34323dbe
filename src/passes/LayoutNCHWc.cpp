// layout-nchwc: moves convolutional regions of the graph into the blocked
// NCHWc layout, where a block of K channels is one vector: K = 16 on AVX-512,
// 8 on AVX2-only targets (PassContext::channelBlock).
//
// Each Conv / cuvil.FusedConv (2-D, f32, dense, depthwise or grouped) becomes
// a cuvil.ConvNCHWc whose weights are packed here, at compile time. A
// grouped one runs as dense over each output block's window of input blocks,
// with zero weights across groups; it is moved only while that at most
// kMaxGroupedWork times its multiply-adds (see convertConv). Its
// result is published as `FromNCHWc(blocked)`, so every consumer still sees
// the plain tensor; consumers that work on blocks (elementwise ops, pools,
// global pools, channel concats, Resize over H and W, further convolutions)
// look through the FromNCHWc and take the blocked tensor instead. Reorders
// thus remain only where a plain consumer needs them, and dce removes the
// rest. A first convolution with at most 4 input channels reads the plain
// input directly.
//
// Padding channels (when C is not a multiple of K) hold zero weights and
// bias, and every blocked op keeps them finite (ElementwiseFacts), so they
// never leak into real channels. The weights are packed by the ops that own
// the packed layouts (cuvil.PackConvWeights, cuvil.WinogradWeights,
// cuvil.PadChannels), folded here.
#include "PassUtils.h"
#include "WinogradChoice.h"

#include "cuvil/ir/WindowGeometry.h"
#include "cuvil/passes/Passes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace cuvil {
namespace {

// In rows of this many pixels or fewer the direct kernel's border path would
// do a large share of the work (see narrowPaddedRows).
constexpr int64_t kNarrowRow = 14;
// The plain fallback ran ResNeXt's grouped 3x3 convolutions at 24-32% of
// their FMA bound, the blocked kernel runs dense ones at 80-90%: up to 4x
// the multiply-adds (4 channels per group in 16-channel blocks) it is no
// slower, and it spares the reorders around the convolution.
constexpr int64_t kMaxGroupedWork = 4;

class LayoutPass {
public:
  LayoutPass(Graph &graph, const PassContext &context)
      : graph_(graph), context_(context), block_(context.channelBlock()) {}

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

  // An f32 N-C-H-W tensor with a static channel count (blocks are packed at
  // compile time); N, H and W may be symbolic.
  static bool isPlainImage(const Value *value) {
    const TensorType &type = value->type();
    return type.dtype == DType::F32 && type.rank() == 4 && type.shape[1].isConstant();
  }

  // [top, left, bottom, right] when every pad is a number (auto_pad over a
  // symbolic extent gives pads that vary with it).
  static std::optional<std::vector<int64_t>> staticPads(const WindowGeometry &g) {
    if (!isStatic(g.padsBegin) || !isStatic(g.padsEnd) || g.padsBegin.size() != 2)
      return std::nullopt;
    return std::vector<int64_t>{g.padsBegin[0].constant(), g.padsBegin[1].constant(),
                                g.padsEnd[0].constant(), g.padsEnd[1].constant()};
  }

  Value *asBlocked(Value *value, Node *before) {
    if (Value *source = blockedSource(value))
      return source;
    Value *&cached = toBlocked_[value];
    if (!cached) {
      Node *reorder = graph_.addNode("cuvil.ToNCHWc", {value}, {value->name() + ".nchwc"}, before);
      reorder->setAttr("block", block_);
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
    // (An op of no inputs, RandomUniform, has nothing to keep blocked.)
    if (!node.input(0) || !blockedSource(node.input(0)) || !isPlainImage(node.input(0)))
      return Status::success();
    int64_t channels = node.input(0)->type().shape[1].constant();
    if (const ElementwiseFacts *facts = elementwiseFacts(node)) {
      if (facts->arity == ElementwiseFacts::Arity::Unary)
        return facts->finiteAtZero ? convertUnary(node, channels) : Status::success();
      return convertBinary(node, *facts, channels);
    }
    if (op == "MaxPool" || op == "AveragePool")
      return convertPool(node, channels);
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool")
      return convertGlobalPool(node, channels);
    if (op == "Concat")
      return convertConcat(node);
    if (op == "Resize")
      return convertResize(node, channels);
    return Status::success();
  }

  Status convertConv(Node &node) {
    Value *x = node.input(0), *w = node.input(1);
    if (!isPlainImage(x) || !w->isConstant() || (node.hasInput(2) && !node.input(2)->isConstant()))
      return Status::success();
    const Shape &xs = x->type().shape;
    std::vector<int64_t> ws = w->constant().dims();
    int64_t C = xs[1].constant(), M = ws[0], group = node.getInt("group", 1);
    bool depthwise = group > 1 && group == C && M == C && ws[1] == 1;
    bool grouped = group > 1 && !depthwise;
    if (grouped && (C != ws[1] * group || M % group != 0))
      return Status::success();
    bool plain = !depthwise && !grouped && C <= 4 && !blockedSource(x);
    Expected<WindowGeometry> geometry = windowGeometry(node, {xs[2], xs[3]}, {ws[2], ws[3]}, false);
    if (!geometry)
      return Status::success();
    std::optional<std::vector<int64_t>> staticPadding = staticPads(*geometry);
    if (!staticPadding)
      return Status::success();
    if (!depthwise && !plain && !grouped && winogradPays(context_, *geometry, ws))
      return convertWinograd(node, *staticPadding, M);

    const char *layout =
        depthwise ? "depthwise" : (plain ? "plain" : (grouped ? "grouped" : "dense"));
    std::vector<std::pair<std::string, Attribute>> packing = {{"block", block_},
                                                              {"layout", std::string(layout)}};
    if (grouped)
      packing.emplace_back("group", group);
    Expected<Value *> packed =
        foldToConstant(graph_, "cuvil.PackConvWeights", {w}, packing, w->name() + ".nchwc");
    CUVIL_TRY(packed.status());
    // The packed window's multiply-adds per output channel against the
    // group's; beyond the bound the unused packing is left to dce.
    if (grouped && (*packed)->type().shape[1].constant() * block_ > kMaxGroupedWork * ws[1])
      return Status::success();
    Expected<std::vector<Value *>> inputs = convInputs(node, *packed, plain);
    CUVIL_TRY(inputs.status());
    Node *conv = blockedClone(node, *inputs, "cuvil.ConvNCHWc");
    conv->removeAttr("auto_pad");
    if (grouped)
      conv->setAttr("group_channels", std::vector<int64_t>{ws[1], M / group});
    else
      conv->removeAttr("group");
    conv->setAttr("kernel_shape", std::vector<int64_t>{ws[2], ws[3]});
    std::vector<int64_t> pads = *staticPadding;
    if (!depthwise && !plain && narrowPaddedRows(*geometry, pads)) {
      conv->setInput(0, padSpatially(conv->input(0), pads, conv));
      pads = {0, 0, 0, 0};
    }
    conv->setAttr("pads", pads);
    if (!depthwise && !plain && stridedPointwise(*geometry, pads)) {
      conv->setInput(0, subsample(conv->input(0), geometry->strides, conv));
      conv->setAttr("strides", std::vector<int64_t>{1, 1});
    }
    if (depthwise)
      conv->setAttr("depthwise", int64_t(1));
    if (plain)
      conv->setAttr("plain_input", int64_t(1));
    if (!plain && !depthwise && !grouped && C % block_ != 0)
      conv->setAttr("input_channels", C);
    return publish(node, *conv, M);
  }

  // In rows of a few pixels the kernel's one-pixel border path would do a
  // large share of the work (2 of 7 columns in ResNet's last stage); padding
  // the small input explicitly keeps every pixel on the full-tile path.
  // (Decided at the opt width; explicit padding is right at any width.)
  // Not where most of the padded taps would read zeros (an atrous window
  // wider than the image: DeepLab's rate-12 3x3 on 14x14 has 18% of its taps
  // inside), which the kernel skips in its border tiles but would compute
  // on an explicitly padded input.
  static bool narrowPaddedRows(const WindowGeometry &g, const std::vector<int64_t> &pads) {
    bool padded = pads[1] > 0 || pads[3] > 0;
    return padded && g.output[1].opt() <= kNarrowRow && g.kernel[1] > 1 &&
           2 * insideTaps(g, 0) * insideTaps(g, 1) >=
               g.output[0].opt() * g.kernel[0] * g.output[1].opt() * g.kernel[1];
  }

  // Taps of spatial axis d, over all its output positions, that read inside
  // the input (at the opt extents).
  static int64_t insideTaps(const WindowGeometry &g, size_t d) {
    return cuvil::insideTaps(g.input[d].opt(), g.output[d].opt(), g.kernel[d], g.strides[d],
                             g.dilations[d], g.padsBegin[d].opt());
  }

  // A strided 1x1 convolution reads one pixel in SH x SW: run on the
  // subsampled input instead, it becomes a pointwise one, whose pixels the
  // kernel re-cuts into rows that fit its register tile, for a copy of
  // 1/(SH*SW) of the input. That pays where the output rows are narrow
  // (ResNet-50's 14- and 7-wide downsampling: 70% and 64% -> 92% and 97% of
  // their FMA bound); its 28-wide one already ran at 98%. (Decided at the
  // opt width.)
  static bool stridedPointwise(const WindowGeometry &g, const std::vector<int64_t> &pads) {
    return g.kernel == std::vector<int64_t>{1, 1} && g.strides != std::vector<int64_t>{1, 1} &&
           g.output[1].opt() <= kNarrowRow &&
           std::all_of(pads.begin(), pads.end(), [](int64_t pad) { return pad == 0; });
  }

  // Every strides[0]-th row and strides[1]-th column of a blocked [N, CB,
  // H, W, K] tensor.
  Value *subsample(Value *blocked, const std::vector<int64_t> &strides, Node *before) {
    auto ints = [&](const char *suffix, std::vector<int64_t> values) {
      return graph_.addConstant(blocked->name() + suffix,
                                Tensor::fromInt64s(values, {int64_t(values.size())}));
    };
    int64_t all = std::numeric_limits<int64_t>::max();
    Node *slice = graph_.addNode("Slice",
                                 {blocked, ints(".starts", {0, 0}), ints(".ends", {all, all}),
                                  ints(".axes", {2, 3}), ints(".steps", strides)},
                                 {blocked->name() + ".subsampled"}, before);
    (void)inferNodeTypes(*slice);
    return slice->output(0);
  }

  // Zero-pads the H and W dims of a blocked [N, CB, H, W, K] tensor.
  Value *padSpatially(Value *blocked, const std::vector<int64_t> &pads, Node *before) {
    std::vector<int64_t> amounts = {0, 0, pads[0], pads[1], 0, 0, 0, pads[2], pads[3], 0};
    Value *padsValue = graph_.addConstant(blocked->name() + ".pads",
                                          Tensor::fromInt64s(amounts, {int64_t(amounts.size())}));
    Node *pad = graph_.addNode("Pad", {blocked, padsValue}, {blocked->name() + ".padded"}, before);
    (void)inferNodeTypes(*pad);
    return pad->output(0);
  }

  // A per-channel constant padded to whole blocks with `fill`, flat (a
  // bias) or as [1, CB, 1, 1, K] (an elementwise operand).
  Expected<Value *> paddedChannels(Value *values, float fill, const char *layout) {
    return foldToConstant(graph_, "cuvil.PadChannels", {values},
                          {{"block", block_}, {"fill", fill}, {"layout", std::string(layout)}},
                          values->name() + ".nchwc");
  }

  // X (blocked unless plain), the packed weights, the padded bias and the
  // blocked residual of a convolution `node`.
  Expected<std::vector<Value *>> convInputs(Node &node, Value *weights, bool plain) {
    std::vector<Value *> inputs = {plain ? node.input(0) : asBlocked(node.input(0), &node), weights,
                                   nullptr};
    if (node.hasInput(2)) {
      Expected<Value *> bias = paddedChannels(node.input(2), 0, "flat");
      CUVIL_TRY(bias.status());
      inputs.back() = *bias;
    }
    if (node.hasInput(3))
      inputs.push_back(asBlocked(node.input(3), &node));
    else if (!node.hasInput(2))
      inputs.pop_back();
    return inputs;
  }

  Status convertWinograd(Node &node, const std::vector<int64_t> &pads, int64_t M) {
    Value *w = node.input(1);
    Expected<Value *> transformed = foldToConstant(graph_, "cuvil.WinogradWeights", {w},
                                                   {{"block", block_}}, w->name() + ".winograd");
    CUVIL_TRY(transformed.status());
    Expected<std::vector<Value *>> inputs = convInputs(node, *transformed, false);
    CUVIL_TRY(inputs.status());
    Node *conv =
        graph_.addNode("cuvil.ConvWinograd", *inputs,
                       {node.output(0)->name() + ".b", node.output(0)->name() + ".scratch"}, &node);
    conv->setName(node.name());
    for (const char *name : {"activation", "activation_params"})
      if (const Attribute *attr = node.findAttr(name))
        conv->setAttr(name, *attr);
    conv->setAttr("pads", pads);
    CUVIL_TRY(planForTarget(*conv, context_));
    return publish(node, *conv, M);
  }

  Status convertUnary(Node &node, int64_t channels) {
    std::vector<Value *> inputs = node.inputs();
    inputs[0] = blockedSource(node.input(0));
    return publish(node, *blockedClone(node, inputs, node.op()), channels);
  }

  // Both operands blocked and equally shaped (when f(0, 0) is finite), or one
  // blocked and the other a scalar or per-channel constant, padded with the
  // op's neutral value.
  Status convertBinary(Node &node, const ElementwiseFacts &facts, int64_t channels) {
    const TensorType &type = node.output(0)->type();
    std::vector<Value *> inputs;
    bool bothBlocked = true;
    for (Value *operand : node.inputs()) {
      Value *source = blockedSource(operand);
      if (source && (operand->type() == type || broadcastsOverImage(operand->type(), type))) {
        inputs.push_back(source);
        continue;
      }
      bothBlocked = false;
      Expected<std::optional<Value *>> constant =
          blockedConstant(operand, channels, facts.constantPadding);
      CUVIL_TRY(constant.status());
      if (!*constant)
        return Status::success();
      inputs.push_back(**constant);
    }
    if (bothBlocked && !facts.finiteAtZero)
      return Status::success();
    return publish(node, *blockedClone(node, inputs, node.op()), channels);
  }

  // True when `operand` is [N or 1, C, 1, 1] against an image `type` [N, C,
  // H, W] (a squeeze-and-excitation scale): blocked as [N or 1, CB, 1, 1, K]
  // it broadcasts over the blocked image the same way.
  static bool broadcastsOverImage(const TensorType &operand, const TensorType &type) {
    const Shape &s = operand.shape;
    return operand.dtype == type.dtype && s.size() == 4 && type.rank() == 4 &&
           s[1] == type.shape[1] && (s[0].is(1) || s[0] == type.shape[0]) && s[2].is(1) &&
           s[3].is(1);
  }

  // A scalar, or a [C,1,1] / [1,C,1,1] constant as [1, CB, 1, 1, K];
  // nullopt for any other operand.
  Expected<std::optional<Value *>> blockedConstant(Value *value, int64_t channels, float fill) {
    if (!value->isConstant() || value->type().dtype != DType::F32)
      return std::optional<Value *>();
    const Tensor &tensor = value->constant();
    if (tensor.numElements() == 1)
      return std::optional<Value *>(
          graph_.addConstant(value->name() + ".scalar", tensor.reshaped({})));
    const Shape &s = tensor.shape();
    bool perChannel = tensor.numElements() == channels && s.size() >= 3 && s.size() <= 4 &&
                      s[s.size() - 3] == channels;
    if (!perChannel)
      return std::optional<Value *>();
    Expected<Value *> padded = paddedChannels(value, fill, "nchwc");
    CUVIL_TRY(padded.status());
    return std::optional<Value *>(*padded);
  }

  Status convertPool(Node &node, int64_t channels) {
    const Shape &xs = node.input(0)->type().shape;
    if (node.numOutputs() != 1 || !node.hasAttr("kernel_shape"))
      return Status::success();
    Expected<WindowGeometry> geometry = windowGeometry(
        node, {xs[2], xs[3]}, node.getInts("kernel_shape"), node.getInt("ceil_mode", 0));
    if (!geometry || geometry->kernel.size() != 2)
      return Status::success();
    std::optional<std::vector<int64_t>> pads = staticPads(*geometry);
    if (!pads)
      return Status::success();
    Node *pool = blockedClone(node, {blockedSource(node.input(0))}, "cuvil.PoolNCHWc");
    pool->removeAttr("auto_pad");
    pool->removeAttr("storage_order");
    pool->setAttr("mode", std::string(node.op() == "MaxPool" ? "max" : "average"));
    pool->setAttr("pads", *pads);
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
      if (!source)
        return Status::success();
      int64_t c = node.input(i)->type().shape[1].constant(); // blocked: static
      if (i + 1 < node.numInputs() && c % block_ != 0)
        return Status::success();
      inputs.push_back(source);
      channels += c;
    }
    Node *concat = blockedClone(node, inputs, "Concat");
    concat->setAttr("axis", int64_t(1));
    return publish(node, *concat, channels);
  }

  // A Resize of H and W only (N and C kept) resizes each channel alike, so
  // it works on the blocked [N, CB, H, W, K] tensor over axes [2, 3], with
  // the constant scales or sizes (and roi) of those two axes. The padding
  // channels stay finite: interpolated zeros, or the extrapolation value.
  // An op convert() may move into the blocked layout.
  static bool mayTakeBlocks(const Node &node) {
    static const std::set<std::string> kBlockedOps = {
        "Conv",   "cuvil.FusedConv",   "MaxPool",       "AveragePool",
        "Concat", "GlobalAveragePool", "GlobalMaxPool", "Resize"};
    return kBlockedOps.count(node.op()) != 0 || elementwiseFacts(node) != nullptr;
  }

  Status convertResize(Node &node, int64_t channels) {
    const Shape &in = node.input(0)->type().shape, &out = node.output(0)->type().shape;
    // An upsampling none of whose users works on blocks stays plain: resized
    // in blocks it would be reordered out at its larger size, its padding
    // channels resized too (DeepLab's final 8x upsampling of 21 classes: 32
    // channels resized, then a 224x224 reorder).
    bool grows = out.size() == 4 && (out[2].opt() * out[3].opt() > in[2].opt() * in[3].opt());
    const auto &uses = node.output(0)->uses();
    if (grows && std::none_of(uses.begin(), uses.end(),
                              [](const Use &use) { return mayTakeBlocks(*use.node); }))
      return Status::success();
    std::string transform = node.getString("coordinate_transformation_mode");
    if (out[0] != in[0] || out[1] != in[1] ||
        node.getString("keep_aspect_ratio_policy") != "stretch" ||
        !std::isfinite(node.getFloat("extrapolation_value")))
      return Status::success();
    std::vector<int64_t> axes = node.getInts("axes", {0, 1, 2, 3});
    for (int64_t &axis : axes)
      axis = axis < 0 ? axis + 4 : axis;
    bool cropped = transform == "tf_crop_and_resize";
    // Per input index of `values` (scales, sizes, roi starts and ends): the
    // two entries of H and W, or nullopt when N or C is not left alone
    // (`unit` is the value that leaves an axis alone).
    auto spatial = [&](const Value *values, size_t per,
                       std::vector<double> unit) -> std::optional<std::vector<double>> {
      if (!values || !values->isConstant() ||
          values->constant().numElements() != int64_t(per * axes.size()))
        return std::nullopt;
      std::vector<double> picked;
      for (size_t part = 0; part < per; ++part)
        picked.insert(picked.end(), 2, unit[part]);
      for (size_t i = 0; i < axes.size(); ++i)
        for (size_t part = 0; part < per; ++part) {
          double value = values->constant().getDouble(int64_t(part * axes.size() + i));
          if (axes[i] >= 2)
            picked[part * 2 + size_t(axes[i] - 2)] = value;
          else if (value != unit[part])
            return std::nullopt;
        }
      return picked;
    };
    std::vector<Value *> inputs = {blockedSource(node.input(0)), nullptr, nullptr, nullptr};
    std::string base = node.output(0)->name();
    if (cropped) {
      std::optional<std::vector<double>> roi = spatial(node.input(1), 2, {0.0, 1.0});
      if (!roi)
        return Status::success();
      std::vector<float> values(roi->begin(), roi->end());
      inputs[1] = graph_.addConstant(base + ".roi_hw", Tensor::fromFloats(values, {4}));
    }
    if (node.hasInput(2) && !node.input(2)->type().numElements().is(0)) {
      std::optional<std::vector<double>> scales = spatial(node.input(2), 1, {1.0});
      if (!scales)
        return Status::success();
      std::vector<float> values(scales->begin(), scales->end());
      inputs[2] = graph_.addConstant(base + ".scales_hw", Tensor::fromFloats(values, {2}));
    } else {
      if (!out[2].isConstant() || !out[3].isConstant())
        return Status::success();
      std::vector<int64_t> values = {out[2].constant(), out[3].constant()};
      inputs[3] = graph_.addConstant(base + ".sizes_hw", Tensor::fromInt64s(values, {2}));
    }
    while (!inputs.back())
      inputs.pop_back();
    Node *resize = blockedClone(node, inputs, "Resize");
    resize->setAttr("axes", std::vector<int64_t>{2, 3});
    return publish(node, *resize, channels);
  }

  Graph &graph_;
  const PassContext &context_;
  const int64_t block_;
  std::map<Value *, Value *> toBlocked_;
};

} // namespace

Status runLayoutNCHWc(Graph &graph, PassContext &context) {
  return LayoutPass(graph, context).run();
}

} // namespace cuvil
