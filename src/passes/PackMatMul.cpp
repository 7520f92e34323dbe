// pack-matmul: MatMuls with a constant 2-D right operand (the weights of
// linear layers) get it packed at compile time into the panels the GEMM
// kernel streams (cuvil.PackGemmPanels, folded here). MatMul becomes
// cuvil.FusedMatMul with `b_packed` and `b_columns` = N. Under
// --precision fp16-weights the panels are f16 (half the bytes to store and
// stream; the kernel widens them), unless a weight is beyond f16's range;
// under --precision bf16 they are bf16 in row pairs (where K is even), which
// the kernel multiplies with vdpbf16ps on CPUs that have it and widens on
// the others.
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"
#include "cuvil/passes/Precision.h"

#include <cmath>
#include <map>

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

} // namespace

Status runPackMatMul(Graph &graph, PassContext &context) {
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
