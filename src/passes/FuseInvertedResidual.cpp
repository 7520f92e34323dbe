// fuse-inverted-residual: merges MobileNetV2's inverted residual block, as
// the layout pass leaves it, into one cuvil.InvertedResidualNCHWc:
//   [dense ConvNCHWc (expansion)] -> depthwise ConvNCHWc -> pointwise ConvNCHWc
// (the last one keeps its residual and activation). The expansion is usually
// 1x1; a network's stem (a strided 3x3 over the plain image) expands too.
// Run separately, the expanded tensors go through memory between the three
// kernels; the fused kernel keeps them in L2 a band of rows at a time. That
// pays where they do not fit in L2 anyway: the block is fused when the
// larger of them (the expansion's result, if any, and the depthwise one)
// exceeds the target's L2 (intermediates that fit stay in cache between the
// separate kernels anyway, and their blocks, 28x28 and below in
// MobileNetV2, would split into too few row parts to thread well). Each
// intermediate must have no other use.
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

#include <algorithm>

namespace cuvil {
namespace {

// Grouped convolutions read per-block input windows the fused kernel lacks.
bool isConv(const Node *node) {
  return node && node->op() == "cuvil.ConvNCHWc" && node->getInt("group", 1) == 1;
}

bool isDepthwise(const Node *node) {
  return isConv(node) && node->getInt("depthwise", 0) != 0 && node->getInt("plain_input", 0) == 0;
}

// A 1x1, stride-1, unpadded dense convolution.
bool isPointwise(const Node *node) {
  if (!isConv(node) || node->getInt("depthwise", 0) != 0 || node->getInt("plain_input", 0) != 0)
    return false;
  const Shape &w = node->input(1)->type().shape;
  std::vector<int64_t> pads = node->getInts("pads", {0, 0, 0, 0});
  std::vector<int64_t> strides = node->getInts("strides", {1, 1});
  return w[2] == 1 && w[3] == 1 &&
         std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }) &&
         std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 1; });
}

// At the opt shape: the fusion's decision, right for any shape.
int64_t bytesOf(const Value *value) { return value->type().byteSize().opt(); }

void copyAttrs(const Node &from, Node &to, const std::string &prefix,
               std::initializer_list<const char *> names) {
  for (const char *name : names)
    if (const Attribute *attr = from.findAttr(name))
      to.setAttr(prefix + name, *attr);
}

// Fuses the block around `depthwise` when it matches and pays; returns
// whether it did.
Expected<bool> fuseBlock(Graph &graph, Node &depthwise, const PassContext &context) {
  Node *project = soleUser(depthwise.output(0));
  if (depthwise.hasInput(3) || !isPointwise(project) || project->input(0) != depthwise.output(0))
    return false;
  // Any dense convolution expands: a 1x1 one, or a network's stem.
  Node *expand = depthwise.input(0)->producer();
  if (!isConv(expand) || expand->getInt("depthwise", 0) != 0 || expand->hasInput(3) ||
      !depthwise.input(0)->hasOneUse())
    expand = nullptr;
  // The fused kernel's sweep plan is made for static shapes; a symbolic
  // block stays three convolutions.
  for (const Value *value : {depthwise.input(0), depthwise.output(0), project->output(0),
                             expand ? expand->input(0) : depthwise.input(0)})
    if (!value->type().isStatic())
      return false;
  int64_t largest = std::max(bytesOf(depthwise.output(0)), expand ? bytesOf(expand->output(0)) : 0);
  if (largest <= context.cpu.l2Bytes)
    return false;

  std::vector<Value *> inputs = {expand ? expand->input(0) : depthwise.input(0),
                                 depthwise.input(1),
                                 project->input(1),
                                 depthwise.input(2),
                                 project->input(2),
                                 expand ? expand->input(1) : nullptr,
                                 expand ? expand->input(2) : nullptr,
                                 project->input(3)};
  while (!inputs.back())
    inputs.pop_back();
  const std::string &name = project->output(0)->name();
  Node *fused = graph.addNode("cuvil.InvertedResidualNCHWc", inputs,
                              {name + ".fused", name + ".scratch"}, project);
  fused->setName(depthwise.name());
  copyAttrs(depthwise, *fused, "", {"kernel_shape", "strides", "pads", "dilations"});
  copyAttrs(depthwise, *fused, "depthwise_", {"activation", "activation_params"});
  copyAttrs(*project, *fused, "", {"activation", "activation_params"});
  if (expand) {
    copyAttrs(*expand, *fused, "expand_",
              {"activation", "activation_params", "kernel_shape", "strides", "pads", "dilations",
               "plain_input"});
    copyAttrs(*expand, *fused, "", {"input_channels"});
  }
  if (const Attribute *channels = project->findAttr("input_channels"))
    fused->setAttr("expanded_channels", *channels);
  CUVIL_TRY(planForTarget(*fused, context));
  graph.replaceAllUsesWith(project->output(0), fused->output(0));
  graph.eraseNode(project);
  graph.eraseNode(&depthwise);
  if (expand)
    graph.eraseNode(expand);
  return true;
}

} // namespace

Status runFuseInvertedResidual(Graph &graph, PassContext &context) {
  std::vector<Node *> candidates;
  for (const auto &node : graph.nodes())
    if (isDepthwise(node.get()))
      candidates.push_back(node.get());
  for (Node *depthwise : candidates)
    CUVIL_TRY(fuseBlock(graph, *depthwise, context).status());
  return Status::success();
}

} // namespace cuvil
