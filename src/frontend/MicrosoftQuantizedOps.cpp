#include "MicrosoftQuantizedOps.h"

#include <array>
#include <fmt/format.h>

namespace cuvil {
namespace {

// The float op each quantized one wraps, and how many (value, scale, zero
// point) operand triples it takes (0: QLinearConcat's, after its output's
// scale and zero point).
struct QuantizedOp {
  std::string_view name, floatOp;
  int operands;
};

constexpr std::array<QuantizedOp, 7> kOps = {{
    {"QLinearAdd", "Add", 2},
    {"QLinearMul", "Mul", 2},
    {"QLinearConcat", "Concat", 0},
    {"QLinearGlobalAveragePool", "GlobalAveragePool", 1},
    {"QLinearAveragePool", "AveragePool", 1},
    {"QLinearSigmoid", "Sigmoid", 1},
    {"QLinearLeakyRelu", "LeakyRelu", 1},
}};

const QuantizedOp *find(const onnx::NodeProto &node) {
  if (node.domain() != kMicrosoftDomain)
    return nullptr;
  for (const QuantizedOp &op : kOps)
    if (op.name == node.op_type())
      return &op;
  return nullptr;
}

class Builder {
public:
  Builder(Graph &graph, std::string base) : graph_(graph), base_(std::move(base)) {}

  Value *node(const std::string &op, std::vector<Value *> inputs, const std::string &suffix) {
    while (!inputs.empty() && !inputs.back())
      inputs.pop_back();
    return graph_.addNode(op, inputs, {base_ + suffix})->output(0);
  }
  Value *dequantize(Value *value, Value *scale, Value *zero, const std::string &suffix) {
    return node("DequantizeLinear", {value, scale, zero}, suffix);
  }
  // The output's zero point; an omitted one is 0 of the first operand's
  // type (as ONNX Runtime reads it), which CastLike gives once typed.
  Value *outputZero(Value *given, Value *like) {
    if (given)
      return given;
    Value *zero = graph_.addConstant(graph_.uniqueName(base_ + ".y_zero"), Tensor::scalarF32(0));
    return node("CastLike", {zero, like}, ".y_zero_typed");
  }

private:
  Graph &graph_;
  std::string base_;
};

Value *input(const std::vector<Value *> &inputs, size_t i) {
  return i < inputs.size() ? inputs[i] : nullptr;
}

// The integer matmuls with f32 results ONNX Runtime's transformer optimizer
// fuses quantize_dynamic's MatMuls into.
bool isIntegerToFloatMatMul(const onnx::NodeProto &node) {
  return node.domain() == kMicrosoftDomain &&
         (node.op_type() == "MatMulIntegerToFloat" || node.op_type() == "DynamicQuantizeMatMul");
}

// MatMulIntegerToFloat(A, B, a_scale, b_scale[, a_zero_point, b_zero_point, bias]) is
// cuvil.MatMulIntegerToFloat, its inputs in the same order; DynamicQuantizeMatMul(A, B,
// b_scale[, b_zero_point, bias]) quantizes its f32 A first, as DynamicQuantizeLinear does
// (u8, per tensor). A's scale and zero point have one element (ONNX Runtime's kernels
// take no other).
Expected<Value *> importIntegerToFloatMatMul(const onnx::NodeProto &node, Graph &graph,
                                             const std::vector<Value *> &inputs) {
  if (node.output_size() != 1 || node.output(0).empty())
    return Status::error(fmt::format("{} has one result", node.op_type()));
  const bool dynamic = node.op_type() == "DynamicQuantizeMatMul";
  const size_t required = dynamic ? 3 : 4;
  for (size_t i = 0; i < required; ++i)
    if (!input(inputs, i))
      return Status::error(fmt::format("{}: input {} is missing", node.op_type(), i));
  Builder b(graph, node.output(0));
  std::vector<Value *> operands(inputs.begin(),
                                inputs.begin() + std::min<size_t>(inputs.size(), 7));
  if (dynamic) {
    Node *quantize = graph.addNode(
        "DynamicQuantizeLinear", {inputs[0]},
        {node.output(0) + ".a_q", node.output(0) + ".a_scale", node.output(0) + ".a_zero"});
    operands = {quantize->output(0), inputs[1],        quantize->output(1), inputs[2],
                quantize->output(2), input(inputs, 3), input(inputs, 4)};
  }
  operands.resize(7);
  for (size_t i : {size_t(2), size_t(4)})
    if (operands[i] && operands[i]->hasType() && !operands[i]->type().numElements().is(1))
      return Status::error(
          fmt::format("{}: A's scale and zero point must have one element", node.op_type()));
  return b.node("cuvil.MatMulIntegerToFloat", operands, "");
}

bool isQGemm(const onnx::NodeProto &node) {
  return node.domain() == kMicrosoftDomain && node.op_type() == "QGemm";
}

// QGemm(A, a_scale, a_zero_point, B, b_scale, b_zero_point[, C[, y_scale,
// y_zero_point]]) with alpha, transA, transB: Gemm's i32 products of A and B
// less their zero points (b's per tensor or per column), plus C (i32,
// broadcast as Gemm's), scaled by alpha a_scale b_scale; quantized by
// y_scale and y_zero_point where given (8 bits), else f32:
//   MatMulInteger(A', B', a_zero, b_zero) -> Cast f32 -> Mul(s) [-> Add(Cast f32(C) s)]
//   [-> QuantizeLinear(y_scale, y_zero)],   s = alpha a_scale b_scale
// (A', B' transposed where asked): what fuse-qdq and assign-precision's
// cancellations run on the integer GEMM. ONNX Runtime scales the i32 sum
// with C in it by s / y_scale: a tie may round a quantum apart.
Expected<Value *> importQGemm(const onnx::NodeProto &node, Graph &graph,
                              const std::vector<Value *> &inputs) {
  if (node.output_size() != 1 || node.output(0).empty())
    return Status::error("QGemm has one result");
  for (size_t i : {0, 1, 3, 4})
    if (!input(inputs, i))
      return Status::error(fmt::format("QGemm: input {} is missing", i));
  float alpha = 1.0f;
  bool transposed[2] = {false, false};
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.name() == "alpha")
      alpha = attr.f();
    else if (attr.name() == "transA" || attr.name() == "transB")
      transposed[attr.name() == "transB"] = attr.i() != 0;
  }
  Builder b(graph, node.output(0));
  Value *operands[2] = {inputs[0], inputs[3]};
  for (int i = 0; i < 2; ++i)
    if (transposed[i]) {
      Node *transpose =
          graph.addNode("Transpose", {operands[i]}, {node.output(0) + (i ? ".b_t" : ".a_t")});
      transpose->setAttr("perm", std::vector<int64_t>{1, 0});
      operands[i] = transpose->output(0);
    }
  auto toFloat = [&](Value *value, const std::string &suffix) {
    Node *cast = graph.addNode("Cast", {value}, {node.output(0) + suffix});
    cast->setAttr("to", int64_t(onnx::TensorProto::FLOAT));
    return cast->output(0);
  };
  Value *products = b.node(
      "MatMulInteger", {operands[0], operands[1], input(inputs, 2), input(inputs, 5)}, ".products");
  Value *scale = b.node("Mul", {inputs[1], inputs[4]}, ".scale");
  if (alpha != 1.0f)
    scale = b.node("Mul",
                   {scale, graph.addConstant(graph.uniqueName(node.output(0) + ".alpha"),
                                             Tensor::scalarF32(alpha))},
                   ".scale_alpha");
  Value *const bias = input(inputs, 6), *const outputScale = input(inputs, 7);
  // The last node takes the result's name.
  const bool quantized = outputScale != nullptr;
  Value *y =
      b.node("Mul", {toFloat(products, ".products_f"), scale}, bias || quantized ? ".scaled" : "");
  if (bias)
    y = b.node("Add", {y, b.node("Mul", {toFloat(bias, ".c_f"), scale}, ".c_scaled")},
               quantized ? ".biased" : "");
  if (quantized)
    y = b.node("QuantizeLinear", {y, outputScale, b.outputZero(input(inputs, 8), inputs[0])}, "");
  return y;
}

} // namespace

bool isMicrosoftQuantizedOp(const onnx::NodeProto &node) {
  return find(node) != nullptr || isIntegerToFloatMatMul(node) || isQGemm(node);
}

Expected<Value *> importMicrosoftQuantizedOp(const onnx::NodeProto &node, Graph &graph,
                                             const std::vector<Value *> &inputs) {
  if (isIntegerToFloatMatMul(node))
    return importIntegerToFloatMatMul(node, graph, inputs);
  if (isQGemm(node))
    return importQGemm(node, graph, inputs);
  const QuantizedOp &op = *find(node);
  if (node.output_size() != 1 || node.output(0).empty())
    return Status::error(fmt::format("{} has one result", op.name));
  Builder b(graph, node.output(0));
  // (value, scale, zero point) triples; the zero point may be omitted.
  std::vector<size_t> triples;
  size_t outputAt;
  if (op.operands == 0) { // Y_scale, Y_zero_point, then (X, X_scale, X_zero_point)...
    if (inputs.size() < 5 || (inputs.size() - 2) % 3 != 0)
      return Status::error("QLinearConcat takes Y_scale, Y_zero_point and triples of X, "
                           "X_scale, X_zero_point");
    for (size_t i = 2; i < inputs.size(); i += 3)
      triples.push_back(i);
    outputAt = 0;
  } else {
    for (size_t i = 0; i < size_t(op.operands); ++i)
      triples.push_back(3 * i);
    outputAt = 3 * size_t(op.operands);
  }
  std::vector<Value *> dequantized;
  for (size_t at : triples) {
    if (!input(inputs, at) || !input(inputs, at + 1))
      return Status::error(fmt::format("{}: input {} or its scale is missing", op.name, at));
    dequantized.push_back(b.dequantize(inputs[at], inputs[at + 1], input(inputs, at + 2),
                                       fmt::format(".x{}", dequantized.size())));
  }
  Value *outputScale = input(inputs, outputAt), *outputZero = input(inputs, outputAt + 1);
  if (!outputScale)
    return Status::error(fmt::format("{}: the output's scale is missing", op.name));
  Value *first = inputs[triples.front()];
  Node *floatNode = graph.addNode(std::string(op.floatOp), dequantized, {node.output(0) + ".f"});
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.name() == "channels_last") {
      if (attr.i() != 0)
        return Status::error("channels_last (NHWC) is not supported");
      continue;
    }
    if (attr.type() == onnx::AttributeProto::INT)
      floatNode->setAttr(attr.name(), int64_t(attr.i()));
    else if (attr.type() == onnx::AttributeProto::FLOAT)
      floatNode->setAttr(attr.name(), attr.f());
    else if (attr.type() == onnx::AttributeProto::INTS)
      floatNode->setAttr(attr.name(), std::vector<int64_t>(attr.ints().begin(), attr.ints().end()));
    else if (attr.type() == onnx::AttributeProto::STRING)
      floatNode->setAttr(attr.name(), attr.s());
  }
  return b.node("QuantizeLinear",
                {floatNode->output(0), outputScale, b.outputZero(outputZero, first)}, "");
}

} // namespace cuvil
