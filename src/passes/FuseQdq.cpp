// fuse-qdq: a pre-quantized model's Conv or MatMul, as ONNX Runtime's
// quantize_static, PyTorch and NNCF write it (QDQ format),
//   DequantizeLinear(xq, sx, zx) --------+
//   DequantizeLinear(wq, sw, zw) --------+-- Conv / MatMul -- [Relu] -- QuantizeLinear(sy, zy)
//   DequantizeLinear(bq, sx * sw, 0) ----+   (Conv's bias, optional)
// runs as one QLinearConv(xq, sx, zx, wq, sw, zw, sy, zy, bq) or
// QLinearMatMul(xq, sx, zx, wq, sw, zw, sy, zy) on the integer kernels,
// as ONNX Runtime fuses it. The float op rounds once, at the quantization;
// the integer one rounds float(acc + bq) * (sx * sw / sy) once: the two
// may round a tie apart (one quantum).
// Needs: x's and y's scale and zero point constant per tensor; the
// weights constant 8-bit, per tensor or per output channel (Conv, 1-D or
// 2-D: axis 0;
// MatMul: a 2-D [K, N] per column, axis 1); the bias i32 constant, zero
// point 0, at scale sx * sw (relative 1e-5); every intermediate read by the
// next op alone. A Relu is absorbed only when zy is its type's lowest value
// (Q(Relu(v)) = Q(v) then: the quantization's saturation is the Relu).
// Grouped convolutions, those that run as Winograd and an inverted-residual
// block's stay in FP32 between their DequantizeLinear and QuantizeLinear
// (the model's own arithmetic), which is faster there; the pairs left
// between f32 ops become cuvil.FakeQuantize (FakeQuantizePairs.cpp).
// Data movement and MaxPool between a DequantizeLinear and a
// QuantizeLinear of one quantization run on the 8-bit values
// (QuantizedSelections.h).
// A MatMul with a bias Add of an i32 bias dequantized at sx * sw (a Gemm's
// C) runs as cuvil.MatMulIntegerToFloat with that bias, its f32 result
// then quantized by the model's QuantizeLinear (QLinearMatMul takes no bias).
// quantize_dynamic's MatMulInteger -> Cast -> Mul of the scales runs as
// one cuvil.MatMulIntegerToFloat (FuseIntegerMatMulToFloat.cpp).
#include "FakeQuantizePairs.h"
#include "FuseIntegerMatMulToFloat.h"
#include "PassUtils.h"
#include "QuantizationPlan.h"
#include "QuantizedSelections.h"
#include "WinogradChoice.h"

#include "cuvil/passes/Passes.h"

#include <cmath>
#include <optional>

namespace cuvil {
namespace {

bool isEightBit(DType dtype) { return dtype == DType::U8 || dtype == DType::I8; }

bool constantOfType(const Value *value, DType dtype) {
  return value && value->isConstant() && value->type().dtype == dtype;
}

// A DequantizeLinear's or QuantizeLinear's operands: the quantized value
// (or the float one for a QuantizeLinear), scale and zero point (null:
// 0 of the quantized type), and the axis of a per-channel scale.
struct Quantization {
  Value *value, *scale, *zero;
  int64_t axis;
};

std::optional<Quantization> quantization(const Node *node, const char *op) {
  if (!node || node->op() != op || node->getInt("block_size", 0) != 0)
    return std::nullopt;
  Value *scale = node->input(1), *zero = node->hasInput(2) ? node->input(2) : nullptr;
  if (!constantOfType(scale, DType::F32) || (zero && !zero->isConstant()))
    return std::nullopt;
  return Quantization{node->input(0), scale, zero, node->getInt("axis", 1)};
}

bool perTensor(const Quantization &q) {
  return q.scale->constant().numElements() == 1 &&
         (!q.zero || q.zero->constant().numElements() == 1);
}

// The weights' quantization, when it is per tensor or per `channels` along
// `axis` of the weights (rank `rank`).
bool weightQuantizationFits(const Quantization &w, int64_t axis, int64_t rank, int64_t channels) {
  if (perTensor(w))
    return true;
  const Shape &scale = w.scale->type().shape;
  const bool alongAxis = w.axis == axis || w.axis == axis - rank;
  return alongAxis && scale.size() == 1 && scale[0].is(channels) &&
         (!w.zero || w.zero->type().shape == scale);
}

// The bias at scale sx * sw[m] with zero point 0: its i32 values.
Value *integerBias(const Value *bias, const Quantization &x, const Quantization &w,
                   int64_t channels) {
  std::optional<Quantization> b = quantization(bias->producer(), "DequantizeLinear");
  if (!b || !bias->hasOneUse() || !constantOfType(b->value, DType::I32) ||
      b->value->constant().numElements() != channels)
    return nullptr;
  if (b->zero)
    for (int64_t m = 0; m < b->zero->constant().numElements(); ++m)
      if (b->zero->constant().getInt(m) != 0)
        return nullptr;
  const Tensor &bs = b->scale->constant(), &ws = w.scale->constant();
  const float sx = float(x.scale->constant().getDouble(0));
  for (int64_t m = 0; m < channels; ++m) {
    const double expected = double(sx * float(ws.getDouble(ws.numElements() == 1 ? 0 : m)));
    const double actual = bs.getDouble(bs.numElements() == 1 ? 0 : m);
    if (!(std::fabs(actual - expected) <= 1e-5 * std::fabs(expected)))
      return nullptr;
  }
  return b->value;
}

// A zero point of `dtype` shaped like `scale`, for a quantization without one.
Value *zeroPoint(Graph &graph, const Quantization &q, DType dtype, const std::string &name) {
  if (q.zero)
    return q.zero;
  return graph.addConstant(graph.uniqueName(name),
                           Tensor(TensorType{dtype, q.scale->type().shape}));
}

// The constant as `shape` (same elements), named after it.
Value *reshaped(Graph &graph, Value *value, const Shape &shape) {
  if (value->type().shape == shape)
    return value;
  return graph.addConstant(graph.uniqueName(value->name() + ".reshaped"),
                           value->constant().reshaped(shape));
}

struct Match {
  Node *op, *relu, *quantize;
  Quantization x, w, y;
  Value *bias;      // i32, or null
  Node *biasAdd;    // a MatMul's: Add(result, DequantizeLinear(i32 bias)), or null
  bool wTransposed; // a MatMul's B is Transpose(DequantizeLinear(w [N, K])): a Gemm's transB
};

std::optional<Match> match(Node &op, const PassContext &context) {
  if ((op.op() != "Conv" && op.op() != "MatMul") || op.numOutputs() != 1)
    return std::nullopt;
  Match m{&op, nullptr, nullptr, {}, {}, {}, nullptr, nullptr, false};
  std::optional<Quantization> x = quantization(op.input(0)->producer(), "DequantizeLinear");
  const Node *wProducer = op.input(1)->producer();
  if (op.op() == "MatMul" && wProducer && wProducer->op() == "Transpose" &&
      wProducer->getInts("perm", {1, 0}) == std::vector<int64_t>{1, 0} &&
      op.input(1)->hasOneUse()) {
    wProducer = wProducer->input(0)->producer();
    m.wTransposed = true;
  }
  std::optional<Quantization> w = quantization(wProducer, "DequantizeLinear");
  if (!x || !w || !perTensor(*x) || !isEightBit(x->value->type().dtype) ||
      !w->value->isConstant() || !isEightBit(w->value->type().dtype))
    return std::nullopt;
  const Shape &weights = w->value->type().shape;
  const bool conv = op.op() == "Conv";
  // QLinearConv: 1-D and 2-D; QLinearMatMul: B a matrix.
  if (conv ? weights.size() != 3 && weights.size() != 4 : weights.size() != 2)
    return std::nullopt;
  // What FP32 runs faster stays FP32, exactly as the model says: grouped
  // convolutions (one GEMM of a few rows per group on the integer kernel;
  // depthwise ones run faster in FP32's blocked layout than on u8 planes),
  // those Winograd runs faster (winogradOverInteger), and an
  // inverted-residual block's (QuantizationPlan.h).
  if (conv &&
      (op.getInt("group", 1) != 1 ||
       winogradOverInteger(op, w->value->constant().dims(), context) || nextToDepthwise(op)))
    return std::nullopt;
  const int64_t rank = int64_t(weights.size()), axis = conv || m.wTransposed ? 0 : 1;
  const int64_t channels = weights[axis].constant();
  if (!weightQuantizationFits(*w, axis, rank, channels))
    return std::nullopt;
  m.x = *x;
  m.w = *w;
  if (conv && op.hasInput(2) && !(m.bias = integerBias(op.input(2), m.x, m.w, channels)))
    return std::nullopt;
  Value *result = op.output(0);
  // A MatMul's bias (a Gemm's C) is an Add of the i32 bias dequantized.
  if (Node *add = soleUser(result); !conv && add && add->op() == "Add") {
    Value *other = otherOperand(*add, result);
    if (!other || other == result || add->output(0)->type().shape != result->type().shape ||
        !(m.bias = integerBias(other, m.x, m.w, channels)))
      return std::nullopt;
    m.biasAdd = add;
    result = add->output(0);
  }
  if (Node *user = soleUser(result); user && user->op() == "Relu") {
    m.relu = user;
    result = user->output(0);
  }
  m.quantize = soleUser(result);
  std::optional<Quantization> y = quantization(m.quantize, "QuantizeLinear");
  if (!y || y->value != result || !perTensor(*y))
    return std::nullopt;
  // Without a zero point the output's type would come from attributes.
  if (!y->zero || !isEightBit(y->zero->type().dtype))
    return std::nullopt;
  const DType yType = y->zero->type().dtype;
  if (m.relu) {
    const int64_t lowest = yType == DType::U8 ? 0 : -128;
    if (y->zero->constant().getInt(0) != lowest)
      return std::nullopt;
  }
  m.y = *y;
  return m;
}

Status fuse(Graph &graph, Match m) {
  Node &op = *m.op;
  if (m.wTransposed) { // the weights [N, K] as B [K, N]; their per-N scales stay as they are
    Expected<Value *> b =
        foldToConstant(graph, "Transpose", {m.w.value},
                       {{"perm", Attribute(std::vector<int64_t>{1, 0})}}, m.w.value->name() + ".t");
    CUVIL_TRY(b.status().withContext(op.describe()));
    m.w.value = *b;
  }
  const bool conv = op.op() == "Conv";
  const std::string base = op.output(0)->name();
  const DType xType = m.x.value->type().dtype, wType = m.w.value->type().dtype;
  Value *wScale = m.w.scale, *wZero = zeroPoint(graph, m.w, wType, base + ".w_zero");
  Value *xZero = zeroPoint(graph, m.x, xType, base + ".x_zero");
  if (m.biasAdd) {
    // QLinearMatMul has no bias: the integer GEMM dequantizes, adds the
    // bias (the Add's f32 operand) in its epilogue, and the QuantizeLinear
    // stays (with the Relu, if any).
    Value *bias = otherOperand(*m.biasAdd, op.output(0));
    Node *integer = graph.addNode("cuvil.MatMulIntegerToFloat",
                                  {m.x.value, m.w.value, m.x.scale, wScale, xZero, wZero, bias},
                                  {m.biasAdd->output(0)->name() + ".i"}, m.biasAdd);
    integer->setName(op.name());
    CUVIL_TRY(inferNodeTypes(*integer).withContext(op.describe()));
    graph.replaceAllUsesWith(m.biasAdd->output(0), integer->output(0));
    graph.eraseNode(m.biasAdd);
    graph.eraseNode(&op);
    return Status::success();
  }
  if (!conv && !perTensor(m.w)) { // QLinearMatMul takes B's per-column ones as [1, N]
    const Dim columns = m.w.value->type().shape[1];
    wScale = reshaped(graph, wScale, {Dim(1), columns});
    wZero = reshaped(graph, wZero, {Dim(1), columns});
  }
  std::vector<Value *> inputs = {m.x.value, m.x.scale, xZero,     m.w.value,
                                 wScale,    wZero,     m.y.scale, m.y.zero};
  if (m.bias)
    inputs.push_back(m.bias);
  Node *integer =
      graph.addNode(conv ? "QLinearConv" : "QLinearMatMul", inputs, {base + ".q"}, m.quantize);
  if (conv)
    for (const auto &[name, attribute] : op.attributes())
      integer->setAttr(name, attribute);
  integer->setName(op.name());
  CUVIL_TRY(inferNodeTypes(*integer).withContext(op.describe()));
  graph.replaceAllUsesWith(m.quantize->output(0), integer->output(0));
  graph.eraseNode(m.quantize);
  if (m.relu)
    graph.eraseNode(m.relu);
  graph.eraseNode(&op);
  return Status::success();
}

} // namespace

Status runFuseQdq(Graph &graph, PassContext &context) {
  CUVIL_TRY(selectOnQuantizedValues(graph));
  // Matched one at a time: a fusion renames what the next one reads (its
  // x is the previous one's quantized result).
  std::vector<Node *> products;
  for (const auto &node : graph.nodes())
    if (node->op() == "Conv" || node->op() == "MatMul")
      products.push_back(node.get());
  for (Node *product : products)
    if (std::optional<Match> m = match(*product, context))
      CUVIL_TRY(fuse(graph, *m));
  CUVIL_TRY(fuseIntegerMatMulsToFloat(graph));
  return fakeQuantizePairs(graph);
}

} // namespace cuvil
