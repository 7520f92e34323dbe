// canonicalize: rewrites ops into the smaller set the backend lowers, one
// rewrite per op in a table:
//   Clip (run-time bounds) -> Max, Min
//   Div/Erf/Add/Mul/Mul GELU, its Pow/Tanh approximation -> Gelu;
//   Mul(x, Sigmoid(x)) -> cuvil.Silu (CanonicalizeActivations.cpp)
//   Cast to the type it already has -> forwarded
//   Identity, Dropout  -> forwarded (Dropout's mask becomes a constant true);
//   training-mode Dropout, Bernoulli -> a uniform draw compared (CanonicalizeRandom.cpp)
//   BitwiseNot         -> BitwiseXor with all ones
//   GroupNormalization -> LayerNormalization of a grouped view, Mul, Add;
//   RMSNormalization   -> Mul, ReduceMean, Add, Sqrt, Div, Mul (CanonicalizeNormalization.cpp)
//   RotaryEmbedding    -> Slice, Gather, Mul, Sub, Add, Concat (CanonicalizeRotary.cpp)
//   Attention (ONNX's) -> MatMul, Softmax, MatMul with the heads split, the
//                         K/V cache concatenated, grouped heads expanded and
//                         the masks added (CanonicalizeAttention.cpp)
//   LpPool, GlobalLpPool (p > 2), LpNormalization -> AveragePool or reductions,
//                         Pow/Sqrt, Max, Div (CanonicalizeLp.cpp)
//   CenterCropPad      -> Slice, Pad; AffineGrid -> MatMul with a base grid;
//                         Col2Im -> Transpose, cuvil.ConvTransposeCol2Im;
//                         DeformConv -> cuvil.DeformIm2Col, MatMul
//                         (CanonicalizeGeometry.cpp)
//   Pad (constant_value given at run time) -> Where(padded mask, Pad(x), value)
//   Gemm               -> [Transpose] MatMul [Mul alpha] [Add beta*C]
//   ConvTranspose      -> Reshape, Transpose, MatMul, cuvil.ConvTransposeCol2Im
//   RNN, GRU, LSTM     -> MatMul (the input projection of every step) and
//                         cuvil.Recurrence over R packed by cuvil.PackRecurrentWeights
//   IsNaN, IsInf, Not  -> Equal / Abs / Xor with constants
//   Unique             -> given all four results (its kernel sorts in one)
//   CastLike           -> Cast to the second input's type
//   InstanceNormalization -> LayerNormalization over [2, rank) (unit scale),
//                         Mul scale and Add B unsqueezed to [C, 1, ...]
//   BatchNormalization -> x * a + b with a = scale / sqrt(var + eps),
//                         b = B - mean * a, shaped [C, 1, ...] (folds when
//                         the parameters are constants); in training mode
//                         over the batch's mean and variance
//                         (CanonicalizeBatchNorm.cpp)
//   Einsum             -> Transpose, Reshape, ReduceSum, MatMul steps
//                         (CanonicalizeEinsum.cpp)
//   DFT, STFT          -> cuvil.FFT with the plan's twiddles folded
//                         (cuvil.FFTTwiddles)
#include "CanonicalizeActivations.h"
#include "CanonicalizeAttention.h"
#include "CanonicalizeBatchNorm.h"
#include "CanonicalizeEinsum.h"
#include "CanonicalizeGeometry.h"
#include "CanonicalizeLp.h"
#include "CanonicalizeNormalization.h"
#include "CanonicalizeRandom.h"
#include "CanonicalizeRotary.h"
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

#include <array>
#include <cmath>

namespace cuvil {
namespace {

Value *scalarConstant(Graph &graph, float value, const std::string &name) {
  return graph.addConstant(name, Tensor::scalarF32(value));
}

// True everywhere in `like`'s shape (Dropout's mask, what a Pad keeps): a
// constant, or for a symbolic shape Expand(true, Shape(like)).
Expected<Value *> allTrueLike(Graph &graph, Value *like, Node &before, const std::string &name) {
  if (like->type().isStatic()) {
    Tensor ones(TensorType{DType::Bool, like->type().shape});
    for (int64_t i = 0, n = ones.numElements(); i < n; ++i)
      ones.setInt(i, 1);
    return graph.addConstant(graph.uniqueName(name), ones);
  }
  Tensor one(TensorType{DType::Bool, {}});
  one.setInt(0, 1);
  Value *scalar = graph.addConstant(graph.uniqueName(name + ".true"), one);
  Expected<Value *> shape =
      insertNode(graph, "Shape", {like}, &before, graph.uniqueName(name + ".shape"));
  CUVIL_TRY(shape.status());
  return insertNode(graph, "Expand", {scalar, *shape}, &before,
                    graph.uniqueName(name + ".expanded"));
}

// Pad whose constant_value comes at run time: the pad kernel fills with a
// compile-time value, so Where(Pad(true mask of x, false), Pad(x, 0), value).
Status rewritePad(Graph &graph, Node &pad) {
  if (!pad.hasInput(2) || pad.input(2)->isConstant() ||
      pad.getString("mode", "constant") != "constant")
    return Status::success();
  const std::string base = pad.output(0)->name();
  Expected<Value *> inside = allTrueLike(graph, pad.input(0), pad, base + ".inside");
  CUVIL_TRY(inside.status());
  Value *outside =
      graph.addConstant(graph.uniqueName(base + ".outside"), Tensor(TensorType{DType::Bool, {}}));
  std::vector<Value *> maskInputs = {*inside, pad.input(1), outside};
  std::vector<Value *> padInputs = {pad.input(0), pad.input(1)};
  if (pad.hasInput(3)) { // axes
    maskInputs.push_back(pad.input(3));
    padInputs.insert(padInputs.end(), {nullptr, pad.input(3)});
  }
  Expected<Value *> mask = insertNode(graph, "Pad", maskInputs, &pad, base + ".mask");
  CUVIL_TRY(mask.status());
  Expected<Value *> zeroFilled = insertNode(graph, "Pad", padInputs, &pad, base + ".padded");
  CUVIL_TRY(zeroFilled.status());
  Expected<Value *> result =
      insertNode(graph, "Where", {*mask, *zeroFilled, pad.input(2)}, &pad, base + ".filled");
  CUVIL_TRY(result.status());
  graph.replaceAllUsesWith(pad.output(0), *result);
  graph.eraseNode(&pad);
  return Status::success();
}

Status forwardInput(Graph &graph, Node &node) {
  graph.replaceAllUsesWith(node.output(0), node.input(0));
  if (node.numOutputs() > 1 &&
      (!node.output(1)->uses().empty() || node.output(1)->isGraphOutput())) {
    Expected<Value *> mask = allTrueLike(graph, node.input(0), node, node.output(1)->name());
    CUVIL_TRY(mask.status());
    graph.replaceAllUsesWith(node.output(1), *mask);
  }
  graph.eraseNode(&node);
  return Status::success();
}

// Dropout: the identity in inference (its mask all true), a random draw in
// training mode (CanonicalizeRandom.cpp).
Status rewriteDropout(Graph &graph, Node &node) {
  return isRandomDropout(node) ? rewriteRandomDropout(graph, node) : forwardInput(graph, node);
}

Status rewriteGemm(Graph &graph, Node &gemm) {
  std::string base = gemm.output(0)->name();
  Value *a = gemm.input(0), *b = gemm.input(1);
  if (gemm.getInt("transA")) {
    Expected<Value *> t = insertNode(graph, "Transpose", {a}, &gemm, base + ".At");
    CUVIL_TRY(t.status());
    a = *t;
  }
  if (gemm.getInt("transB")) {
    Expected<Value *> t = insertNode(graph, "Transpose", {b}, &gemm, base + ".Bt");
    CUVIL_TRY(t.status());
    b = *t;
  }
  float alpha = gemm.getFloat("alpha"), beta = gemm.getFloat("beta");
  // Scaling constant weights folds away; otherwise scale the product.
  if (alpha != 1.0f && gemm.input(1)->isConstant()) {
    Expected<Value *> scaled = insertNode(
        graph, "Mul", {b, scalarConstant(graph, alpha, base + ".alpha")}, &gemm, base + ".Bs");
    CUVIL_TRY(scaled.status());
    b = *scaled;
    alpha = 1.0f;
  }
  Expected<Value *> product = insertNode(graph, "MatMul", {a, b}, &gemm, base + ".mm");
  CUVIL_TRY(product.status());
  Value *result = *product;
  if (alpha != 1.0f) {
    Expected<Value *> scaled =
        insertNode(graph, "Mul", {result, scalarConstant(graph, alpha, base + ".alpha")}, &gemm,
                   base + ".scaled");
    CUVIL_TRY(scaled.status());
    result = *scaled;
  }
  if (Value *c = gemm.input(2); c && beta != 0.0f) {
    if (beta != 1.0f) {
      Expected<Value *> scaledC = insertNode(
          graph, "Mul", {c, scalarConstant(graph, beta, base + ".beta")}, &gemm, base + ".Cs");
      CUVIL_TRY(scaledC.status());
      c = *scaledC;
    }
    Expected<Value *> sum = insertNode(graph, "Add", {result, c}, &gemm, base + ".bias");
    CUVIL_TRY(sum.status());
    result = *sum;
  }
  graph.replaceAllUsesWith(gemm.output(0), result);
  graph.eraseNode(&gemm);
  return Status::success();
}

// ConvTranspose(x [N, C, in...], w [C, OC/G, k...], b) ->
//   xr   = Reshape(x, [0, G, C/G, L])              L = the input's pixels
//   xt   = Transpose(xr, [0, 1, 3, 2])             [N, G, L, C/G]
//   wr   = Reshape(w, [G, C/G, OC/G * K])          ([C, OC/G * K] when G = 1; folds)
//   cols = MatMul(xt, wr)                          [N, G, L, OC/G * K]: the fast GEMM
//   y    = cuvil.ConvTransposeCol2Im(cols, x, b)   each tap scattered, bias added
Status rewriteConvTranspose(Graph &graph, Node &node) {
  std::string base = node.output(0)->name();
  Value *x = node.input(0), *w = node.input(1);
  const Shape &xs = x->type().shape, &ws = w->type().shape;
  int64_t groups = node.getInt("group");
  int64_t channels = xs[1].constant(), groupOut = ws[1].constant(), taps = 1;
  std::vector<int64_t> kernel;
  for (size_t d = 2; d < ws.size(); ++d) {
    kernel.push_back(ws[d].constant());
    taps *= ws[d].constant();
  }
  Dim pixels = numElements(std::span(xs).subspan(2));
  auto shapeConstant = [&](std::vector<int64_t> dims, const char *suffix) {
    return graph.addConstant(base + suffix, Tensor::fromInt64s(dims, {int64_t(dims.size())}));
  };
  auto add = [&](const char *op, std::vector<Value *> inputs, const char *suffix) {
    return graph.addNode(op, inputs, {base + suffix}, &node);
  };
  Node *xr = add("Reshape",
                 {x, shapeConstant({0, groups, channels / groups,
                                    pixels.isConstant() ? pixels.constant() : -1},
                                   ".xshape")},
                 ".xr");
  Node *xt = add("Transpose", {xr->output(0)}, ".xt");
  xt->setAttr("perm", std::vector<int64_t>{0, 1, 3, 2});
  std::vector<int64_t> wshape = {groups, channels / groups, groupOut * taps};
  if (groups == 1)
    wshape.erase(wshape.begin());
  Node *wr = add("Reshape", {w, shapeConstant(wshape, ".wshape")}, ".wr");
  Node *cols = add("MatMul", {xt->output(0), wr->output(0)}, ".cols");
  std::vector<Value *> scatterInputs = {cols->output(0), x};
  if (node.hasInput(2))
    scatterInputs.push_back(node.input(2));
  Node *scatter = add("cuvil.ConvTransposeCol2Im", scatterInputs, ".y");
  for (const auto &[name, value] : node.attributes())
    scatter->setAttr(name, value);
  scatter->setAttr("kernel_extents", kernel);
  scatter->setAttr("out_channels", groupOut * groups);
  scatter->setName(node.name());
  for (Node *created : {xr, xt, wr, cols, scatter})
    CUVIL_TRY(inferNodeTypes(*created));
  graph.replaceAllUsesWith(node.output(0), scatter->output(0));
  graph.eraseNode(&node);
  return Status::success();
}

// RNN, GRU, LSTM(X, W, R, [B, sequence_lens, initial_h, initial_c, P]) ->
//   wt = Transpose(Reshape(W, [D x gates x H, -1]))   [I, D x gates x H] (folds)
//   xw = MatMul(X, wt)              every step's input projection: one GEMM
//   rp = cuvil.PackRecurrentWeights(R)          (folded here when R is constant)
//   Y, Y_h, Y_c, scratch = cuvil.Recurrence(xw, rp, B, sequence_lens, initial_h, initial_c, P)
// The kernels compute in f32: other float types are cast to it and back.
Status rewriteRecurrence(Graph &graph, Node &node) {
  std::string base = node.output(0)->name();
  const DType dtype = node.input(0)->type().dtype;
  const Shape &rs = node.input(2)->type().shape; // static: [D, gates x H, H]
  const int64_t hidden = rs[2].constant(), gates = rs[1].constant() / hidden;
  std::vector<Node *> created;
  auto add = [&](const std::string &op, std::vector<Value *> inputs, const std::string &name) {
    created.push_back(graph.addNode(op, inputs, {name}, &node));
    return created.back();
  };
  auto cast = [&](Value *value, DType to, const std::string &name) -> Expected<Value *> {
    Attribute code(int64_t(dtypeOnnxCode(to)));
    if (value->isConstant())
      return foldToConstant(graph, "Cast", {value}, {{"to", code}}, name);
    Node *converted = add("Cast", {value}, name);
    converted->setAttr("to", code);
    return converted->output(0);
  };
  std::vector<Value *> inputs = node.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i] || i == 4 || inputs[i]->type().dtype == DType::F32) // 4: sequence_lens
      continue;
    Expected<Value *> converted = cast(inputs[i], DType::F32, inputs[i]->name() + ".f32");
    CUVIL_TRY(converted.status());
    inputs[i] = *converted;
  }
  Value *wshape = graph.addConstant(
      base + ".wshape",
      Tensor::fromInt64s(std::vector<int64_t>{rs[0].constant() * rs[1].constant(), -1}, {2}));
  Node *wt = add("Transpose", {add("Reshape", {inputs[1], wshape}, base + ".w2d")->output(0)},
                 base + ".wt");
  wt->setAttr("perm", std::vector<int64_t>{1, 0});
  Node *xw = add("MatMul", {inputs[0], wt->output(0)}, base + ".xw");
  Value *panels = nullptr, *r = inputs[2];
  if (r->isConstant()) {
    Expected<Value *> folded = foldToConstant(graph, "cuvil.PackRecurrentWeights", {r},
                                              {{"gates", Attribute(gates)}}, r->name() + ".panels");
    CUVIL_TRY(folded.status());
    panels = *folded;
  } else {
    Node *pack = add("cuvil.PackRecurrentWeights", {r}, r->name() + ".panels");
    pack->setAttr("gates", gates);
    panels = pack->output(0);
  }
  std::vector<Value *> operands = {xw->output(0), panels};
  operands.insert(operands.end(), inputs.begin() + 3, inputs.end());
  Node *recurrence =
      graph.addNode("cuvil.Recurrence", operands,
                    {base + ".y", base + ".y_h", base + ".y_c", base + ".scratch"}, &node);
  created.push_back(recurrence);
  for (const auto &[name, value] : node.attributes())
    recurrence->setAttr(name, value);
  recurrence->setAttr("cell", node.op());
  recurrence->setAttr("hidden_size", hidden);
  recurrence->setName(node.name());
  for (Node *made : created)
    CUVIL_TRY(inferNodeTypes(*made));
  for (size_t i = 0; i < node.numOutputs(); ++i) {
    Value *result = recurrence->output(i);
    if (dtype != DType::F32) {
      Expected<Value *> converted = cast(result, dtype, node.output(i)->name() + ".cast");
      CUVIL_TRY(converted.status());
      CUVIL_TRY(inferNodeTypes(*created.back()));
      result = *converted;
    }
    graph.replaceAllUsesWith(node.output(i), result);
  }
  graph.eraseNode(&node);
  return Status::success();
}

// IsNaN(x) -> Xor(Equal(x, x), true); IsInf(x) -> Equal(Abs(x), inf),
// Equal(x, +inf), Equal(x, -inf) or false; Not(x) -> Xor(x, true).
Status rewriteFloatClass(Graph &graph, Node &node) {
  std::string base = node.output(0)->name();
  Value *x = node.input(0);
  auto boolConstant = [&](bool value, const char *suffix) {
    Tensor t(TensorType{DType::Bool, {}});
    t.setInt(0, value);
    return graph.addConstant(base + suffix, std::move(t));
  };
  auto infinity = [&](double sign, const char *suffix) {
    return graph.addConstant(base + suffix,
                             Tensor::scalarF32(float(sign * INFINITY)).castTo(x->type().dtype));
  };
  Expected<Value *> result = nullptr;
  if (node.op() == "Not") {
    result = insertNode(graph, "Xor", {x, boolConstant(true, ".true")}, &node, base + ".not");
  } else if (node.op() == "IsNaN") {
    Expected<Value *> same = insertNode(graph, "Equal", {x, x}, &node, base + ".same");
    CUVIL_TRY(same.status());
    result = insertNode(graph, "Xor", {*same, boolConstant(true, ".true")}, &node, base + ".nan");
  } else {
    bool positive = node.getInt("detect_positive") != 0,
         negative = node.getInt("detect_negative") != 0;
    Value *compared = x;
    if (positive && negative) {
      Expected<Value *> magnitude = insertNode(graph, "Abs", {x}, &node, base + ".abs");
      CUVIL_TRY(magnitude.status());
      compared = *magnitude;
    }
    Value *reference =
        positive || negative
            ? infinity(positive ? 1 : -1, ".inf")
            : graph.addConstant(base + ".nan", Tensor::scalarF32(NAN).castTo(x->type().dtype));
    result = insertNode(graph, "Equal", {compared, reference}, &node, base + ".isinf");
  }
  CUVIL_TRY(result.status());
  graph.replaceAllUsesWith(node.output(0), *result);
  graph.eraseNode(&node);
  return Status::success();
}

Status completeUniqueResults(Graph &graph, Node &node) {
  static const char *const kSuffixes[] = {"", ".indices", ".inverse", ".counts"};
  if (node.numOutputs() == 4)
    return Status::success();
  for (size_t i = node.numOutputs(); i < 4; ++i)
    graph.addResult(&node, node.output(0)->name() + kSuffixes[i]);
  return inferNodeTypes(node);
}

// A Cast to the type its input already has (exporters write them around
// attention's scores) is the identity.
Status rewriteCast(Graph &graph, Node &cast) {
  if (cast.input(0)->type().dtype != cast.output(0)->type().dtype)
    return Status::success();
  return forwardInput(graph, cast);
}

Status rewriteCastLike(Graph &graph, Node &node) {
  Node *cast = graph.addNode("Cast", {node.input(0)}, {node.output(0)->name() + ".cast"}, &node);
  cast->setAttr("to", Attribute(int64_t(dtypeOnnxCode(node.input(1)->type().dtype))));
  CUVIL_TRY(inferNodeTypes(*cast));
  graph.replaceAllUsesWith(node.output(0), cast->output(0));
  graph.eraseNode(&node);
  return Status::success();
}

Status rewriteInstanceNorm(Graph &graph, Node &node) {
  Value *x = node.input(0);
  std::string base = node.output(0)->name();
  Value *one = graph.addConstant(base + ".one", Tensor::scalarF32(1.0f).castTo(x->type().dtype));
  Node *normalized = graph.addNode("LayerNormalization", {x, one}, {base + ".normalized"}, &node);
  normalized->setAttr("axis", Attribute(int64_t(2)));
  normalized->setAttr("epsilon", Attribute(node.getFloat("epsilon")));
  CUVIL_TRY(inferNodeTypes(*normalized));
  std::vector<int64_t> axes; // [C] -> [C, 1, ...] against [N, C, D1, ...]
  for (size_t d = 1; d + 1 < x->type().shape.size(); ++d)
    axes.push_back(int64_t(d));
  Value *axesValue =
      graph.addConstant(base + ".axes", Tensor::fromInt64s(axes, {int64_t(axes.size())}));
  Expected<Value *> scale =
      insertNode(graph, "Unsqueeze", {node.input(1), axesValue}, &node, base + ".scale");
  CUVIL_TRY(scale.status());
  Expected<Value *> bias =
      insertNode(graph, "Unsqueeze", {node.input(2), axesValue}, &node, base + ".bias");
  CUVIL_TRY(bias.status());
  Expected<Value *> scaled =
      insertNode(graph, "Mul", {normalized->output(0), *scale}, &node, base + ".scaled");
  CUVIL_TRY(scaled.status());
  Expected<Value *> shifted = insertNode(graph, "Add", {*scaled, *bias}, &node, base + ".shifted");
  CUVIL_TRY(shifted.status());
  graph.replaceAllUsesWith(node.output(0), *shifted);
  graph.eraseNode(&node);
  return Status::success();
}

// Clip with bounds known only at run time, or of integers (the kernel is
// f32): Min(Max(x, min), max).
Status rewriteClip(Graph &graph, Node &clip) {
  bool constantBounds = true;
  for (size_t i = 1; i < clip.numInputs(); ++i)
    constantBounds &= !clip.hasInput(i) || clip.input(i)->isConstant();
  if (constantBounds && clip.input(0)->type().dtype == DType::F32)
    return Status::success();
  std::string base = clip.output(0)->name();
  Value *result = clip.input(0);
  for (auto [index, op] : {std::pair<size_t, const char *>{1, "Max"}, {2, "Min"}}) {
    if (!clip.hasInput(index))
      continue;
    Expected<Value *> bounded = insertNode(graph, op, {result, clip.input(index)}, &clip,
                                           base + (index == 1 ? ".low" : ".high"));
    CUVIL_TRY(bounded.status());
    result = *bounded;
  }
  graph.replaceAllUsesWith(clip.output(0), result);
  graph.eraseNode(&clip);
  return Status::success();
}

// Neg and Abs of integers (the unary kernel is f32): 0 - x, max(x, 0 - x).
Status rewriteIntegerNegAbs(Graph &graph, Node &node) {
  Value *x = node.input(0);
  DType dtype = x->type().dtype;
  if (isFloat(dtype))
    return Status::success();
  std::string base = node.output(0)->name();
  Tensor zero(TensorType{dtype, {}});
  Expected<Value *> negated =
      insertNode(graph, "Sub", {graph.addConstant(base + ".zero", zero), x}, &node, base + ".neg");
  CUVIL_TRY(negated.status());
  Value *result = *negated;
  if (node.op() == "Abs") {
    Expected<Value *> magnitude = insertNode(graph, "Max", {x, result}, &node, base + ".abs");
    CUVIL_TRY(magnitude.status());
    result = *magnitude;
  }
  graph.replaceAllUsesWith(node.output(0), result);
  graph.eraseNode(&node);
  return Status::success();
}

// BitwiseNot(x) -> BitwiseXor(x, all ones of x's type).
Status rewriteBitwiseNot(Graph &graph, Node &node) {
  Value *x = node.input(0);
  Tensor ones(TensorType{x->type().dtype, {}});
  ones.setInt(0, -1);
  Expected<Value *> flipped = insertNode(
      graph, "BitwiseXor", {x, graph.addConstant(graph.uniqueName(x->name() + ".ones"), ones)},
      &node, node.output(0)->name() + ".xor");
  CUVIL_TRY(flipped.status());
  graph.replaceAllUsesWith(node.output(0), *flipped);
  graph.eraseNode(&node);
  return Status::success();
}

// Pow whose run-time exponent has another type than the base: the
// exponent cast to the base's type first (the binary kernel takes one).
Status rewritePow(Graph &graph, Node &pow) {
  Value *exponent = pow.input(1);
  DType base = pow.input(0)->type().dtype;
  if (exponent->isConstant() || exponent->type().dtype == base)
    return Status::success();
  Node *cast = graph.addNode("Cast", {exponent}, {pow.output(0)->name() + ".exponent"}, &pow);
  cast->setAttr("to", Attribute(int64_t(dtypeOnnxCode(base))));
  CUVIL_TRY(inferNodeTypes(*cast));
  pow.setInput(1, cast->output(0));
  return Status::success();
}

// DFT(signal, [dft_length], [axis]) and STFT(signal, frame_step, [window],
// [frame_length]) -> cuvil.FFT(signal, twiddles, [window]) with the length,
// axis and frame step their shape rules resolved (and checked).
Status rewriteFourier(Graph &graph, Node &node) {
  std::string base = node.output(0)->name();
  Value *signal = node.input(0), *window = nullptr;
  int64_t rank = int64_t(signal->type().rank()), axis = 1, length = 0, frameStep = 0;
  // An STFT's signal may be [batch, samples], real.
  bool realSignal = signal->type().shape.back().is(1) || (node.op() == "STFT" && rank == 2);
  if (node.op() == "STFT") {
    frameStep = knownInts(node.input(1)).at(0);
    window = node.hasInput(2) ? node.input(2) : nullptr;
    length = node.hasInput(3) ? knownInts(node.input(3)).at(0) : window->type().shape[0].constant();
  } else {
    axis = node.hasInput(2) ? knownInts(node.input(2)).at(0) : -2;
    axis = axis < 0 ? axis + rank : axis;
    length = node.hasInput(1) ? knownInts(node.input(1)).at(0)
                              : signal->type().shape[size_t(axis)].constant();
  }
  int64_t inverse = node.op() == "DFT" ? node.getInt("inverse", 0) : 0;
  // promote-half has made f16 and bf16 transforms f32 already.
  DType dtype = signal->type().dtype;
  std::vector<Value *> inputs = {signal};
  Expected<Value *> twiddles = foldToConstant(graph, "cuvil.FFTTwiddles", {},
                                              {{"length", Attribute(length)},
                                               {"real_signal", Attribute(int64_t(realSignal))},
                                               {"inverse", Attribute(inverse)},
                                               {"to", Attribute(int64_t(dtypeOnnxCode(dtype)))}},
                                              base + ".twiddles");
  CUVIL_TRY(twiddles.status());
  inputs.push_back(*twiddles);
  if (window)
    inputs.push_back(window);
  Node *fft = graph.addNode("cuvil.FFT", inputs, {base + ".fft", base + ".scratch"}, &node);
  fft->setAttr("axis", axis);
  fft->setAttr("length", length);
  fft->setAttr("frame_step", frameStep);
  fft->setAttr("onesided", node.getInt("onesided", 0));
  fft->setAttr("inverse", inverse);
  fft->setName(node.name());
  CUVIL_TRY(inferNodeTypes(*fft));
  Value *result = fft->output(0);
  graph.replaceAllUsesWith(node.output(0), result);
  graph.eraseNode(&node);
  return Status::success();
}

struct Rewrite {
  std::string_view op;
  Status (*apply)(Graph &, Node &);
};

// One row per op (clang-format would pack them two to a line).
// clang-format off
constexpr std::array<Rewrite, 38> kRewrites = {{
    {"IsNaN", rewriteFloatClass},
    {"IsInf", rewriteFloatClass},
    {"Not", rewriteFloatClass},
    {"ConvTranspose", rewriteConvTranspose},
    {"RNN", rewriteRecurrence},
    {"GRU", rewriteRecurrence},
    {"LSTM", rewriteRecurrence},
    {"Unique", completeUniqueResults},
    {"Cast", rewriteCast},
    {"CastLike", rewriteCastLike},
    {"InstanceNormalization", rewriteInstanceNorm},
    {"GroupNormalization", rewriteGroupNorm},
    {"RMSNormalization", rewriteRmsNorm},
    {"RotaryEmbedding", rewriteRotaryEmbedding},
    {"LpPool", rewriteLpPool},
    {"GlobalLpPool", rewriteGlobalLpPool},
    {"LpNormalization", rewriteLpNormalization},
    {"CenterCropPad", rewriteCenterCropPad},
    {"Col2Im", rewriteCol2Im},
    {"DeformConv", rewriteDeformConv},
    {"Attention", rewriteAttention},
    {"AffineGrid", rewriteAffineGrid},
    {"Mul", rewriteMul},
    {"Clip", rewriteClip},
    {"Neg", rewriteIntegerNegAbs},
    {"Abs", rewriteIntegerNegAbs},
    {"BitwiseNot", rewriteBitwiseNot},
    {"Pow", rewritePow},
    {"Identity", forwardInput},
    {"Dropout", rewriteDropout},
    {"Multinomial", rewriteMultinomialInput},
    {"Bernoulli", rewriteBernoulli},
    {"Gemm", rewriteGemm},
    {"BatchNormalization", rewriteBatchNorm},
    {"Pad", rewritePad},
    {"Einsum", rewriteEinsum},
    {"DFT", rewriteFourier},
    {"STFT", rewriteFourier},
}};
// clang-format on

} // namespace

Status runCanonicalize(Graph &graph, PassContext &) {
  std::vector<Node *> nodes;
  for (const auto &node : graph.nodes())
    nodes.push_back(node.get());
  for (Node *node : nodes) {
    for (const Rewrite &rewrite : kRewrites) {
      if (node->op() != rewrite.op)
        continue;
      std::string where = node->describe(); // the rewrite erases the node
      CUVIL_TRY(rewrite.apply(graph, *node).withContext(where));
      break;
    }
  }
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
