// Part of fuse-qdq: a MatMul that ONNX Runtime's quantize_dynamic wrote
// (the usual way transformers are quantized),
//   DynamicQuantizeLinear(x) -> (xq, sx, zx)
//   MatMulInteger(xq, wq, zx, zw) -> Cast(f32) -> Mul(., Mul(sx, sw)) -> [Add(bias)]
// runs as one cuvil.MatMulIntegerToFloat(xq, wq, sx, sw, zx, zw[, bias]):
// the integer GEMM dequantizes in its epilogue, where the unfused graph
// writes i32 products and makes two more passes over them. The arithmetic
// is the graph's: float(acc) * (sx * sw) in f32, then the bias.
// Needs: sx of one element, sw constant of one element or one per column
// (shaped as the weights' zero point, when there is one), the bias a
// constant f32 [N]; each intermediate read by the next op alone.
#include "FuseIntegerMatMulToFloat.h"

#include "PassUtils.h"

namespace cuvil {
namespace {

bool oneElement(const Value *value) {
  return value->hasType() && value->type().numElements().is(1);
}

// sx and sw of the scale product `scale` = Mul(sx, sw), either order.
std::optional<std::pair<Value *, Value *>> scaleFactors(const Value *scale, const Dim &columns) {
  const Node *product = scale->producer();
  if (!product || product->op() != "Mul" || scale->type().dtype != DType::F32)
    return std::nullopt;
  for (auto [rows, perColumn] : {std::pair{0, 1}, std::pair{1, 0}}) {
    Value *sx = product->input(size_t(rows)), *sw = product->input(size_t(perColumn));
    const Shape &shape = sw->type().shape;
    bool fits = oneElement(sw) || (shape.size() == 1 && shape[0] == columns);
    if (oneElement(sx) && sw->isConstant() && fits)
      return std::pair{sx, sw};
  }
  return std::nullopt;
}

Status fuse(Graph &graph, Node &integer) {
  Node *cast = soleUser(integer.output(0));
  if (!cast || cast->op() != "Cast" || cast->getInt("to", 0) != 1 /* FLOAT */)
    return Status::success();
  Node *scaled = soleUser(cast->output(0));
  Value *scale = scaled && scaled->op() == "Mul" ? otherOperand(*scaled, cast->output(0)) : nullptr;
  const Shape &out = integer.output(0)->type().shape;
  std::optional<std::pair<Value *, Value *>> factors =
      scale && !out.empty() ? scaleFactors(scale, out.back()) : std::nullopt;
  if (!factors || scaled->output(0)->type().shape != out)
    return Status::success();
  auto [sx, sw] = *factors;
  // The op reads a scale and its zero point alike: per tensor or per column.
  Value *zx = integer.hasInput(2) ? integer.input(2) : nullptr;
  Value *zw = integer.hasInput(3) ? integer.input(3) : nullptr;
  if ((zx && zx->type().shape != sx->type().shape) || (zw && zw->type().shape != sw->type().shape))
    return Status::success();
  std::vector<Value *> inputs = {integer.input(0), integer.input(1), sx, sw, zx, zw};
  Value *replaced = scaled->output(0);
  Node *bias = columnBiasAdd(replaced);
  if (bias) {
    inputs.push_back(otherOperand(*bias, replaced));
    replaced = bias->output(0);
  }
  while (!inputs.back())
    inputs.pop_back();
  Node *last = bias ? bias : scaled;
  Node *fused = graph.addNode("cuvil.MatMulIntegerToFloat", inputs,
                              {integer.output(0)->name() + ".f32"}, last);
  fused->setName(integer.name());
  CUVIL_TRY(inferNodeTypes(*fused).withContext(integer.describe()));
  graph.replaceAllUsesWith(replaced, fused->output(0));
  if (bias)
    graph.eraseNode(bias);
  graph.eraseNode(scaled);
  graph.eraseNode(cast);
  graph.eraseNode(&integer);
  return Status::success();
}

} // namespace

Status fuseIntegerMatMulsToFloat(Graph &graph) {
  std::vector<Node *> integers;
  for (const auto &node : graph.nodes())
    if (node->op() == "MatMulInteger")
      integers.push_back(node.get());
  for (Node *integer : integers)
    CUVIL_TRY(fuse(graph, *integer));
  return Status::success();
}

} // namespace cuvil
