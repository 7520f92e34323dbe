// pack-matmul: MatMuls with a constant 2-D right operand (the weights of
// linear layers) get it packed at compile time into the panels the GEMM
// kernel streams: [ceil(N/64), K, 64], zero padded. MatMul becomes
// cuvil.FusedMatMul with `b_packed` and `b_columns` = N.
#include "PassUtils.h"

#include "cuvil/kernels/KernelParams.h"
#include "cuvil/passes/Passes.h"

namespace cuvil {
namespace {

constexpr int64_t kPanel = CUVIL_GEMM_PANEL;

Tensor packPanels(const Tensor &b) {
  int64_t K = b.shape()[0], N = b.shape()[1], panels = (N + kPanel - 1) / kPanel;
  Tensor packed(TensorType{DType::F32, {panels, K, kPanel}});
  const float *src = b.data<float>();
  float *dst = packed.mutableData<float>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      dst[((n / kPanel) * K + k) * kPanel + n % kPanel] = src[k * N + n];
  return packed;
}

} // namespace

Status runPackMatMul(Graph &graph, PassContext &) {
  std::vector<Node *> candidates;
  for (const auto &node : graph.nodes()) {
    bool matMul = node->op() == "MatMul" || node->op() == "cuvil.FusedMatMul";
    const Value *b = node->numInputs() > 1 ? node->input(1) : nullptr;
    if (matMul && b->isConstant() && b->type().rank() == 2 && b->type().dtype == DType::F32 &&
        !node->getInt("b_packed", 0))
      candidates.push_back(node.get());
  }
  for (Node *node : candidates) {
    Node *target = node;
    if (node->op() == "MatMul") {
      target = graph.addNode("cuvil.FusedMatMul", node->inputs(),
                             {node->output(0)->name() + ".packed"}, node);
      target->setName(node->name());
    }
    const Tensor &b = node->input(1)->constant();
    target->setInput(1, graph.addConstant(node->input(1)->name() + ".panels", packPanels(b)));
    target->setAttr("b_packed", int64_t(1));
    target->setAttr("b_columns", b.shape()[1]);
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
