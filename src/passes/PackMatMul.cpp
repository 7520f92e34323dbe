// pack-matmul: MatMuls with a constant 2-D right operand (the weights of
// linear layers) get it packed at compile time into the panels the GEMM
// kernel streams (cuvil.PackGemmPanels, folded here). MatMul becomes
// cuvil.FusedMatMul with `b_packed` and `b_columns` = N.
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

#include <map>

namespace cuvil {

Status runPackMatMul(Graph &graph, PassContext &) {
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
      Expected<Value *> packed =
          foldToConstant(graph, "cuvil.PackGemmPanels", {b}, {}, b->name() + ".panels");
      CUVIL_TRY(packed.status());
      panels = *packed;
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
