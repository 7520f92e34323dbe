// pack-matmul: MatMuls with a constant 2-D right operand (the weights of
// linear layers) get it packed at compile time into the panels the GEMM
// kernel streams (cuvil.PackGemmPanels, folded here). MatMul becomes
// cuvil.FusedMatMul with `b_packed` and `b_columns` = N. Under
// --precision fp16-weights the panels are f16 (half the bytes to store and
// stream; the kernel widens them), unless a weight is beyond f16's range;
// under --precision bf16 they are bf16 in row pairs (where K is even), which
// the kernel multiplies with vdpbf16ps on CPUs that have it and widens on
// the others.
// A MatMulInteger, QLinearMatMul or cuvil.MatMulIntegerToFloat of u8 A by
// a constant 2-D i8 B with zero point 0 that every variant's byte path
// multiplies exactly (what assign-precision writes), K a multiple of 4,
// gets B packed likewise into the byte path's panels with their column sums
// (cuvil.PackIntegerPanels), and the attributes b_packed = 1, b_columns = N.
#include "PassUtils.h"

#include "cuvil/kernels/PairedByteProducts.h"
#include "cuvil/passes/Passes.h"
#include "cuvil/passes/Precision.h"

#include <cmath>
#include <map>
#include <optional>

namespace cuvil {

namespace {

// Every element within f16's finite range (65504).
bool fitsHalf(const Tensor &weights) {
  const float *w = weights.data<float>();
  for (int64_t i = 0; i < weights.numElements(); ++i)
    if (!(std::fabs(w[i]) <= 65504.0f))
      return false;
  return true;
}

// An integer product's operands: A, B and B's zero point.
struct IntegerOperands {
  size_t a, b, bZero;
};
std::optional<IntegerOperands> integerOperands(const Node &node) {
  if (node.op() == "QLinearMatMul")
    return IntegerOperands{0, 3, 5};
  if (node.op() == "MatMulInteger")
    return IntegerOperands{0, 1, 3};
  if (node.op() == "cuvil.MatMulIntegerToFloat")
    return IntegerOperands{0, 1, 5};
  return std::nullopt;
}

// Whether the byte path can read B packed (see the header).
bool packsIntegerWeights(const Node &node, const IntegerOperands &operands, const CpuModel &cpu) {
  const Value *a = node.input(operands.a), *b = node.input(operands.b);
  const Value *zero = node.input(operands.bZero);
  if (node.getInt("b_packed", 0) || a->type().dtype != DType::U8 || !b->isConstant() ||
      b->type().dtype != DType::I8 || b->type().rank() != 2 || a->type().rank() < 1 ||
      a->type().shape.back() != b->type().shape[0])
    return false;
  const Tensor &w = b->constant();
  if (w.dim(0) % 4 != 0 || w.numElements() == 0)
    return false;
  // Every variant's byte path multiplies B [K, N] exactly (one line per
  // column; the target's variants all pair sums or none do).
  const int8_t *values = w.data<int8_t>();
  const int64_t K = w.dim(0), N = w.dim(1);
  if (bytePathFor(cpu.i16PairProducts, N, K,
                  [&](int64_t n, int64_t k) { return values[k * N + n]; }) == BytePath::None)
    return false;
  if (zero) {
    if (!zero->isConstant())
      return false;
    for (int64_t i = 0; i < zero->constant().numElements(); ++i)
      if (zero->constant().getInt(i) != 0)
        return false;
  }
  return true;
}

Status packIntegerWeights(Graph &graph, const CpuModel &cpu) {
  // Collected first: folding the panels adds and erases a node.
  std::vector<std::pair<Node *, IntegerOperands>> candidates;
  for (const auto &node : graph.nodes())
    if (std::optional<IntegerOperands> operands = integerOperands(*node);
        operands && packsIntegerWeights(*node, *operands, cpu))
      candidates.emplace_back(node.get(), *operands);
  std::map<Value *, Value *> panelsOf;
  for (auto &[node, operands] : candidates) {
    Value *b = node->input(operands.b);
    Value *&panels = panelsOf[b];
    if (!panels) {
      Expected<Value *> packed =
          foldToConstant(graph, "cuvil.PackIntegerPanels", {b}, {}, b->name() + ".panels");
      CUVIL_TRY(packed.status());
      panels = *packed;
    }
    node->setInput(operands.b, panels);
    node->setAttr("b_packed", int64_t(1));
    node->setAttr("b_columns", b->constant().dim(1));
    CUVIL_TRY(inferNodeTypes(*node));
  }
  return Status::success();
}

} // namespace

Status runPackMatMul(Graph &graph, PassContext &context) {
  CUVIL_TRY(packIntegerWeights(graph, context.cpu));
  const bool halfWeights = context.precision.policy == PrecisionPolicy::FP16Weights;
  const bool bf16Weights = context.precision.policy == PrecisionPolicy::BF16;
  std::vector<Node *> candidates;
  for (const auto &node : graph.nodes()) {
    bool matMul = node->op() == "MatMul" || node->op() == "cuvil.FusedMatMul";
    const Value *b = node->numInputs() > 1 ? node->input(1) : nullptr;
    if (matMul && b->isConstant() && b->type().rank() == 2 && b->type().dtype == DType::F32 &&
        !node->getInt("b_packed", 0))
      candidates.push_back(node.get());
  }
  std::map<Value *, Value *> panelsOf; // weights several MatMuls read are packed once
  for (Node *node : candidates) {
    Node *target = node;
    if (node->op() == "MatMul") {
      target = graph.addNode("cuvil.FusedMatMul", node->inputs(),
                             {node->output(0)->name() + ".packed"}, node);
      target->setName(node->name());
    }
    Value *b = node->input(1);
    Value *&panels = panelsOf[b];
    if (!panels) {
      std::vector<std::pair<std::string, Attribute>> attributes;
      if (halfWeights && fitsHalf(b->constant()))
        attributes.emplace_back("half", int64_t(1));
      if (bf16Weights && b->constant().dim(0) % 2 == 0)
        attributes.emplace_back("bf16", int64_t(1));
      Expected<Value *> packed =
          foldToConstant(graph, "cuvil.PackGemmPanels", {b}, attributes, b->name() + ".panels");
      CUVIL_TRY(packed.status());
      panels = *packed;
    }
    if (halfWeights || bf16Weights) {
      ++context.precisionStats.quantizable;
      context.precisionStats.quantized += panels->type().dtype != DType::F32;
    }
    target->setInput(1, panels);
    target->setAttr("b_packed", int64_t(1));
    target->setAttr("b_columns", b->constant().dim(1));
    CUVIL_TRY(inferNodeTypes(*target));
    if (target != node) {
      graph.replaceAllUsesWith(node->output(0), target->output(0));
      graph.eraseNode(node);
    }
  }
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
