// GroupNormalization(x [N, C, ...], scale, bias, num_groups G, epsilon) ->
//   n = LayerNormalization(Reshape(x, [0, G, -1]), 1, axis = 2, epsilon)
//   y = Reshape(n, shape of x) * s + b, s and b [C] as [C, 1, ...]
// RMSNormalization(x, scale, axis, epsilon) ->
//   y = x / Sqrt(ReduceMean(x * x, axes axis..last, keepdims) + epsilon) * scale
#include "CanonicalizeNormalization.h"

#include "PassUtils.h"

namespace cuvil {
namespace {

// `param` [C] as [C, 1, ...] against x of `rank`.
Expected<Value *> perChannel(Graph &graph, Value *param, size_t rank, Node &before,
                             const std::string &name) {
  std::vector<int64_t> axes;
  for (size_t d = 1; d + 1 < rank; ++d)
    axes.push_back(int64_t(d));
  return insertNode(graph, "Unsqueeze", {param, addInt64sConstant(graph, axes, name + ".axes")},
                    &before, graph.uniqueName(name + ".broadcast"));
}

// x's shape as a value: a constant when static, else Shape(x).
Expected<Value *> shapeOf(Graph &graph, Value *x, Node &before, const std::string &name) {
  if (!x->type().isStatic()) {
    return insertNode(graph, "Shape", {x}, &before, graph.uniqueName(name));
  }
  std::vector<int64_t> dims;
  for (const Dim &dim : x->type().shape)
    dims.push_back(dim.constant());
  return addInt64sConstant(graph, dims, name);
}

} // namespace

Status rewriteGroupNorm(Graph &graph, Node &node) {
  const std::string base = node.output(0)->name();
  Value *x = node.input(0);
  const size_t rank = x->type().shape.size();
  const int64_t groups = node.getInt("num_groups");
  Expected<Value *> grouped =
      insertNode(graph, "Reshape", {x, addInt64sConstant(graph, {0, groups, -1}, base)}, &node,
                 graph.uniqueName(base + ".grouped"));
  CUVIL_TRY(grouped.status());
  Node *normalized = graph.addNode("LayerNormalization",
                                   {*grouped, addScalarConstant(graph, 1.0, x->type().dtype, base)},
                                   {graph.uniqueName(base + ".normalized")}, &node);
  normalized->setAttr("axis", Attribute(int64_t(2)));
  normalized->setAttr("epsilon", Attribute(node.getFloat("epsilon")));
  CUVIL_TRY(inferNodeTypes(*normalized));
  Expected<Value *> shape = shapeOf(graph, x, node, base + ".shape");
  CUVIL_TRY(shape.status());
  Expected<Value *> restored = insertNode(graph, "Reshape", {normalized->output(0), *shape}, &node,
                                          graph.uniqueName(base + ".restored"));
  CUVIL_TRY(restored.status());
  Expected<Value *> scale = perChannel(graph, node.input(1), rank, node, base + ".scale");
  CUVIL_TRY(scale.status());
  Expected<Value *> bias = perChannel(graph, node.input(2), rank, node, base + ".bias");
  CUVIL_TRY(bias.status());
  Expected<Value *> scaled =
      insertNode(graph, "Mul", {*restored, *scale}, &node, graph.uniqueName(base + ".scaled"));
  CUVIL_TRY(scaled.status());
  Expected<Value *> y =
      insertNode(graph, "Add", {*scaled, *bias}, &node, graph.uniqueName(base + ".shifted"));
  CUVIL_TRY(y.status());
  graph.replaceAllUsesWith(node.output(0), *y);
  graph.eraseNode(&node);
  return Status::success();
}

Status rewriteRmsNorm(Graph &graph, Node &node) {
  const std::string base = node.output(0)->name();
  Value *x = node.input(0);
  const int64_t rank = int64_t(x->type().shape.size());
  int64_t axis = node.getInt("axis");
  axis = axis < 0 ? axis + rank : axis; // checked by the shape rule
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d)
    axes.push_back(d);
  Expected<Value *> squared =
      insertNode(graph, "Mul", {x, x}, &node, graph.uniqueName(base + ".sq"));
  CUVIL_TRY(squared.status());
  Node *mean =
      graph.addNode("ReduceMean", {*squared, addInt64sConstant(graph, axes, base + ".axes")},
                    {graph.uniqueName(base + ".mean")}, &node);
  mean->setAttr("keepdims", Attribute(int64_t(1)));
  CUVIL_TRY(inferNodeTypes(*mean));
  Expected<Value *> shifted =
      insertNode(graph, "Add",
                 {mean->output(0), addScalarConstant(graph, node.getFloat("epsilon"),
                                                     x->type().dtype, base + ".epsilon")},
                 &node, graph.uniqueName(base + ".shifted"));
  CUVIL_TRY(shifted.status());
  Expected<Value *> rms =
      insertNode(graph, "Sqrt", {*shifted}, &node, graph.uniqueName(base + ".rms"));
  CUVIL_TRY(rms.status());
  Expected<Value *> normalized =
      insertNode(graph, "Div", {x, *rms}, &node, graph.uniqueName(base + ".normalized"));
  CUVIL_TRY(normalized.status());
  Expected<Value *> y = insertNode(graph, "Mul", {*normalized, node.input(1)}, &node,
                                   graph.uniqueName(base + ".scaled"));
  CUVIL_TRY(y.status());
  graph.replaceAllUsesWith(node.output(0), *y);
  graph.eraseNode(&node);
  return Status::success();
}

} // namespace cuvil
