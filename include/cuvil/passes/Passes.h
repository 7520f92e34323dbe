// Entry points of the individual passes; Pipeline.cpp orders them.
#pragma once

#include "cuvil/passes/Pass.h"

namespace cuvil {

Status runShapeInference(Graph &graph, PassContext &context);
Status runPromoteHalf(Graph &graph, PassContext &context);
Status runFoldBatchNorm(Graph &graph, PassContext &context);
Status runCropConvTaps(Graph &graph, PassContext &context);
Status runCanonicalize(Graph &graph, PassContext &context);
Status runFuseQdq(Graph &graph, PassContext &context);
Status runConstantFolding(Graph &graph, PassContext &context);
Status runAssignPrecision(Graph &graph, PassContext &context);
Status runFuseEpilogues(Graph &graph, PassContext &context);
Status runFuseAttention(Graph &graph, PassContext &context);
Status runLayoutNCHWc(Graph &graph, PassContext &context);
Status runFuseInvertedResidual(Graph &graph, PassContext &context);
Status runPackMatMul(Graph &graph, PassContext &context);
Status runFuseElementwise(Graph &graph, PassContext &context);
Status runDeadCodeElimination(Graph &graph, PassContext &context);
Status runMaterializeOutputs(Graph &graph, PassContext &context);
Status runPlanMemory(Graph &graph, PassContext &context);

} // namespace cuvil
