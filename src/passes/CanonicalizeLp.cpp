// LpPool(x, p, window) ->
//   Pow(AveragePool(|x|^p, window, count_include_pad = 1) * window size, 1/p)
//   (the average counting padding, whose zeros add nothing, times the
//   window's size is the sum; |x|^p is x*x for p = 2, and no root for p = 1;
//   with ceil_mode the end pads grow until every window is whole)
// GlobalLpPool(x, p > 2) -> Pow(ReduceSum(|x|^p, spatial axes, keepdims), 1/p)
// LpNormalization(x, axis, p) -> x / Max(ReduceLp(x, axis, keepdims), FLT_MIN)
//   (a slice of zeros divides 0 by the least normal float: zeros, as ONNX
//   Runtime gives)
#include "CanonicalizeLp.h"

#include "PassUtils.h"

#include <algorithm>
#include <limits>

namespace cuvil {
namespace {

// |x|^p, before `node`.
Expected<Value *> absPower(Graph &graph, Value *x, int64_t p, Node &node, const std::string &base) {
  if (p == 2)
    return insertNode(graph, "Mul", {x, x}, &node, graph.uniqueName(base + ".squared"));
  Expected<Value *> magnitude =
      insertNode(graph, "Abs", {x}, &node, graph.uniqueName(base + ".abs"));
  if (!magnitude || p == 1)
    return magnitude;
  return insertNode(graph, "Pow",
                    {*magnitude, addScalarConstant(graph, double(p), x->type().dtype, base + ".p")},
                    &node, graph.uniqueName(base + ".power"));
}

// sum^(1/p), before `node`.
Expected<Value *> root(Graph &graph, Value *sum, int64_t p, Node &node, const std::string &base) {
  if (p == 1)
    return sum;
  if (p == 2)
    return insertNode(graph, "Sqrt", {sum}, &node, graph.uniqueName(base + ".root"));
  return insertNode(
      graph, "Pow",
      {sum, addScalarConstant(graph, 1.0 / double(p), sum->type().dtype, base + ".inv_p")}, &node,
      graph.uniqueName(base + ".root"));
}

// LpPool's pads with the end ones grown until ceil_mode's last window of
// every axis lies within the padded input.
Expected<std::vector<int64_t>> wholeWindowPads(const Node &node) {
  const Shape &in = node.input(0)->type().shape, &out = node.output(0)->type().shape;
  const std::string autoPad = node.getString("auto_pad", "NOTSET");
  if (!node.input(0)->type().isStatic() || !node.output(0)->type().isStatic() ||
      (autoPad != "NOTSET" && autoPad != "VALID"))
    return Status::error("ceil_mode needs explicit pads and spatial extents known at compile time");
  const std::vector<int64_t> kernel = node.getInts("kernel_shape");
  const size_t spatial = kernel.size();
  std::vector<int64_t> pads = node.getInts("pads", std::vector<int64_t>(2 * spatial, 0));
  const std::vector<int64_t> strides = node.getInts("strides", std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> dilations =
      node.getInts("dilations", std::vector<int64_t>(spatial, 1));
  for (size_t d = 0; d < spatial; ++d) {
    int64_t needed = (out[2 + d].constant() - 1) * strides[d] + dilations[d] * (kernel[d] - 1) + 1;
    int64_t padded = in[2 + d].constant() + pads[d] + pads[spatial + d];
    pads[spatial + d] += std::max<int64_t>(0, needed - padded);
  }
  return pads;
}

Status replace(Graph &graph, Node &node, Expected<Value *> result) {
  CUVIL_TRY(result.status());
  graph.replaceAllUsesWith(node.output(0), *result);
  graph.eraseNode(&node);
  return Status::success();
}

} // namespace

Status rewriteLpPool(Graph &graph, Node &node) {
  const std::string base = node.output(0)->name();
  const int64_t p = node.getInt("p");
  Expected<Value *> powered = absPower(graph, node.input(0), p, node, base);
  CUVIL_TRY(powered.status());
  Node *average =
      graph.addNode("AveragePool", {*powered}, {graph.uniqueName(base + ".mean")}, &node);
  for (const auto &[name, value] : node.attributes())
    if (name != "p")
      average->setAttr(name, value);
  average->setAttr("count_include_pad", Attribute(int64_t(1)));
  if (node.getInt("ceil_mode", 0) != 0) {
    // Windows that overhang the end would average over fewer elements:
    // pad the end so that every window is whole (its zeros add nothing).
    Expected<std::vector<int64_t>> pads = wholeWindowPads(node);
    CUVIL_TRY(pads.status());
    average->setAttr("pads", Attribute(*pads));
    average->setAttr("ceil_mode", Attribute(int64_t(0)));
  }
  CUVIL_TRY(inferNodeTypes(*average));
  int64_t window = 1;
  for (int64_t extent : node.getInts("kernel_shape"))
    window *= extent;
  Expected<Value *> sum = insertNode(
      graph, "Mul",
      {average->output(0),
       addScalarConstant(graph, double(window), node.output(0)->type().dtype, base + ".window")},
      &node, graph.uniqueName(base + ".sum"));
  CUVIL_TRY(sum.status());
  return replace(graph, node, root(graph, *sum, p, node, base));
}

Status rewriteGlobalLpPool(Graph &graph, Node &node) {
  const int64_t p = node.getInt("p");
  if (p <= 2)
    return Status::success(); // the L1 and L2 reductions
  const std::string base = node.output(0)->name();
  Expected<Value *> powered = absPower(graph, node.input(0), p, node, base);
  CUVIL_TRY(powered.status());
  std::vector<int64_t> axes;
  for (size_t d = 2; d < node.input(0)->type().shape.size(); ++d)
    axes.push_back(int64_t(d));
  Node *sum = graph.addNode("ReduceSum", {*powered, addInt64sConstant(graph, axes, base + ".axes")},
                            {graph.uniqueName(base + ".sum")}, &node);
  sum->setAttr("keepdims", Attribute(int64_t(1)));
  CUVIL_TRY(inferNodeTypes(*sum));
  return replace(graph, node, root(graph, sum->output(0), p, node, base));
}

Status rewriteLpNormalization(Graph &graph, Node &node) {
  const std::string base = node.output(0)->name();
  Value *x = node.input(0);
  const int64_t rank = int64_t(x->type().shape.size());
  int64_t axis = node.getInt("axis");
  axis = axis < 0 ? axis + rank : axis; // checked by the shape rule
  Node *norm = graph.addNode(node.getInt("p") == 1 ? "ReduceL1" : "ReduceL2",
                             {x, addInt64sConstant(graph, {axis}, base + ".axis")},
                             {graph.uniqueName(base + ".norm")}, &node);
  norm->setAttr("keepdims", Attribute(int64_t(1)));
  CUVIL_TRY(inferNodeTypes(*norm));
  Expected<Value *> floor =
      insertNode(graph, "Max",
                 {norm->output(0), addScalarConstant(graph, std::numeric_limits<float>::min(),
                                                     x->type().dtype, base + ".least")},
                 &node, graph.uniqueName(base + ".safe_norm"));
  CUVIL_TRY(floor.status());
  return replace(
      graph, node,
      insertNode(graph, "Div", {x, *floor}, &node, graph.uniqueName(base + ".normalized")));
}

} // namespace cuvil
