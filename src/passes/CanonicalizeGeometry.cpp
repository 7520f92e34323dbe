// CenterCropPad(x, shape, axes) -> Pad(Slice(x, the crops), the pads, 0):
//   per axis a = in - out > 0 crops [a / 2, a / 2 + out); out - in > 0 pads
//   (out - in) / 2 zeros before and the rest after.
// AffineGrid(theta [N, s, s+1], size, align_corners) ->
//   Reshape(MatMul(base [P, s+1], Transpose(theta, [0, 2, 1])), [N, dims..., s])
//   base's row p: the point's normalised (x, y, [z,] 1), x along the last
//   axis; per axis of n points i -> align_corners ? 2i / (n-1) - 1 (-1 for
//   n = 1: ONNX's reference and PyTorch; ONNX Runtime puts it at +1) :
//   (2i + 1) / n - 1.
// Col2Im(cols [N, C x K, L], image_shape, block_shape) ->
//   t = Reshape(Transpose(cols, [0, 2, 1]), [0, 1, L, C x K])
//   y = cuvil.ConvTransposeCol2Im(t, Reshape(cols, [0, C x K, blocks...]))
//   the scatter of a ConvTranspose whose input is the grid of blocks (the
//   second operand gives only that shape) with the kernel block_shape and
//   output_padding the rest of the image the blocks do not reach
//   (image - ((blocks - 1) s + (k - 1) d + 1 - pads), in [0, s)).
// DeformConv(x, w [OC, C/G, kh, kw], offset, [b], [mask]) ->
//   cols = cuvil.DeformIm2Col(Transpose(x, [0, 2, 3, 1]), offset, [mask])
//                                [N, G, OH x OW, taps x C/G]: channels last,
//                                so each sampled corner is a run of channels
//   wt   = Reshape(Transpose(Reshape(w, [G, OC/G, C/G, taps]), [0, 3, 2, 1]),
//                  [G, taps x C/G, OC/G])    (folds; [taps x C, OC] when G = 1)
//   y    = MatMul(cols, wt) [+ Reshape(b, [G, 1, OC/G])]   the fast GEMM
//   out  = Reshape(Transpose(y, [0, 1, 3, 2]), [0, OC, OH, OW])
//   (OH, OW from Shape(offset) when they are symbolic).
#include "CanonicalizeGeometry.h"

#include "PassUtils.h"
#include "cuvil/ir/WindowGeometry.h"

namespace cuvil {
namespace {

Status replace(Graph &graph, Node &node, Value *result) {
  graph.replaceAllUsesWith(node.output(0), result);
  graph.eraseNode(&node);
  return Status::success();
}

double normalised(int64_t i, int64_t n, bool alignCorners) {
  if (alignCorners)
    return n == 1 ? -1.0 : 2.0 * double(i) / double(n - 1) - 1.0; // linspace(-1, 1, 1)
  return (2.0 * double(i) + 1.0) / double(n) - 1.0;
}

} // namespace

Status rewriteCenterCropPad(Graph &graph, Node &node) {
  const std::string base = node.output(0)->name();
  Value *x = node.input(0);
  const Shape &in = x->type().shape, &out = node.output(0)->type().shape;
  const size_t rank = in.size();
  std::vector<int64_t> starts, ends, axes, pads(2 * rank, 0);
  bool padded = false;
  for (size_t d = 0; d < rank; ++d) {
    if (in[d] == out[d])
      continue;
    const int64_t from = in[d].constant(), to = out[d].constant(); // checked by the shape rule
    if (to < from) {
      axes.push_back(int64_t(d));
      starts.push_back((from - to) / 2);
      ends.push_back((from - to) / 2 + to);
    } else {
      pads[d] = (to - from) / 2;
      pads[rank + d] = to - from - pads[d];
      padded = true;
    }
  }
  Value *result = x;
  if (!axes.empty()) {
    Expected<Value *> cropped = insertNode(graph, "Slice",
                                           {x, addInt64sConstant(graph, starts, base + ".starts"),
                                            addInt64sConstant(graph, ends, base + ".ends"),
                                            addInt64sConstant(graph, axes, base + ".axes")},
                                           &node, graph.uniqueName(base + ".cropped"));
    CUVIL_TRY(cropped.status());
    result = *cropped;
  }
  if (padded) {
    Expected<Value *> filled =
        insertNode(graph, "Pad", {result, addInt64sConstant(graph, pads, base + ".pads")}, &node,
                   graph.uniqueName(base + ".padded"));
    CUVIL_TRY(filled.status());
    result = *filled;
  }
  return replace(graph, node, result);
}

Status rewriteAffineGrid(Graph &graph, Node &node) {
  const std::string base = node.output(0)->name();
  Value *theta = node.input(0);
  const Shape &out = node.output(0)->type().shape;
  const size_t spatial = out.size() - 2;
  const bool alignCorners = node.getInt("align_corners") != 0;
  std::vector<int64_t> extents; // D, H, W or H, W
  int64_t points = 1;
  for (size_t d = 1; d <= spatial; ++d) {
    extents.push_back(out[d].constant());
    points *= extents.back();
  }
  const int64_t columns = int64_t(spatial) + 1;
  Tensor grid(TensorType{theta->type().dtype, {points, columns}});
  for (int64_t p = 0; p < points; ++p) {
    // The point's index along each axis, innermost (x) first.
    for (int64_t rest = p, axis = int64_t(spatial) - 1; axis >= 0; --axis) {
      int64_t n = extents[size_t(axis)];
      grid.setDouble(p * columns + (int64_t(spatial) - 1 - axis),
                     normalised(rest % n, n, alignCorners));
      rest /= n;
    }
    grid.setDouble(p * columns + int64_t(spatial), 1.0);
  }
  Value *baseGrid = graph.addConstant(graph.uniqueName(base + ".base"), std::move(grid));
  Node *transposed =
      graph.addNode("Transpose", {theta}, {graph.uniqueName(base + ".theta_t")}, &node);
  transposed->setAttr("perm", std::vector<int64_t>{0, 2, 1});
  CUVIL_TRY(inferNodeTypes(*transposed));
  Expected<Value *> mapped = insertNode(graph, "MatMul", {baseGrid, transposed->output(0)}, &node,
                                        graph.uniqueName(base + ".points"));
  CUVIL_TRY(mapped.status());
  std::vector<int64_t> shape = {0};
  shape.insert(shape.end(), extents.begin(), extents.end());
  shape.push_back(int64_t(spatial));
  Expected<Value *> grid4 =
      insertNode(graph, "Reshape", {*mapped, addInt64sConstant(graph, shape, base + ".shape")},
                 &node, graph.uniqueName(base + ".grid"));
  CUVIL_TRY(grid4.status());
  return replace(graph, node, *grid4);
}

Status rewriteCol2Im(Graph &graph, Node &node) {
  const std::string base = node.output(0)->name();
  Value *cols = node.input(0);
  const Shape &in = cols->type().shape, &out = node.output(0)->type().shape;
  // The shape rule checked the operands and that the image is static.
  const std::vector<int64_t> block = knownInts(node.input(2));
  const Shape image(out.begin() + 2, out.end());
  Expected<WindowGeometry> window = windowGeometry(node, image, block, false);
  CUVIL_TRY(window.status());
  const int64_t rows = in[1].constant(), blocks = in[2].constant();
  std::vector<int64_t> grid = {0, rows}, outputPadding;
  for (size_t d = 0; d < block.size(); ++d) {
    const int64_t count = window->output[d].constant(), stride = window->strides[d];
    const int64_t reach = (count - 1) * stride + (block[d] - 1) * window->dilations[d] + 1 -
                          window->padsBegin[d].constant() - window->padsEnd[d].constant();
    grid.push_back(count);
    outputPadding.push_back(image[d].constant() - reach);
  }
  Node *transposed =
      graph.addNode("Transpose", {cols}, {graph.uniqueName(base + ".blocks")}, &node);
  transposed->setAttr("perm", std::vector<int64_t>{0, 2, 1});
  CUVIL_TRY(inferNodeTypes(*transposed));
  Expected<Value *> perBlock = insertNode(
      graph, "Reshape",
      {transposed->output(0), addInt64sConstant(graph, {0, 1, blocks, rows}, base + ".cols_shape")},
      &node, graph.uniqueName(base + ".cols"));
  CUVIL_TRY(perBlock.status());
  Expected<Value *> gridView =
      insertNode(graph, "Reshape", {cols, addInt64sConstant(graph, grid, base + ".grid_shape")},
                 &node, graph.uniqueName(base + ".grid"));
  CUVIL_TRY(gridView.status());
  Node *scatter = graph.addNode("cuvil.ConvTransposeCol2Im", {*perBlock, *gridView},
                                {graph.uniqueName(base + ".image")}, &node);
  for (const char *name : {"strides", "dilations", "pads"})
    if (const Attribute *value = node.findAttr(name))
      scatter->setAttr(name, *value);
  scatter->setAttr("output_padding", outputPadding);
  scatter->setAttr("kernel_extents", block);
  scatter->setAttr("out_channels", out[1].constant());
  scatter->setName(node.name());
  CUVIL_TRY(inferNodeTypes(*scatter));
  return replace(graph, node, scatter->output(0));
}

Status rewriteDeformConv(Graph &graph, Node &node) {
  const std::string base = node.output(0)->name();
  const Shape &ws = node.input(1)->type().shape, &out = node.output(0)->type().shape;
  // The shape rule checked that W is static and fits the groups.
  const int64_t groups = node.getInt("group", 1), outChannels = ws[0].constant();
  auto transposed = [&](Value *input, std::vector<int64_t> perm,
                        const std::string &suffix) -> Expected<Value *> {
    Node *t = graph.addNode("Transpose", {input}, {graph.uniqueName(base + suffix)}, &node);
    t->setAttr("perm", std::move(perm));
    CUVIL_TRY(inferNodeTypes(*t));
    return t->output(0);
  };

  Expected<Value *> channelsLast = transposed(node.input(0), {0, 2, 3, 1}, ".x_hwc");
  CUVIL_TRY(channelsLast.status());
  std::vector<Value *> columnInputs = {*channelsLast, node.input(2)};
  if (node.hasInput(4))
    columnInputs.push_back(node.input(4));
  Node *cols =
      graph.addNode("cuvil.DeformIm2Col", columnInputs, {graph.uniqueName(base + ".cols")}, &node);
  for (const auto &[name, value] : node.attributes())
    cols->setAttr(name, value);
  cols->setAttr("kernel_shape", std::vector<int64_t>{ws[2].constant(), ws[3].constant()});
  cols->setName(node.name());
  CUVIL_TRY(inferNodeTypes(*cols));

  // The weights as the columns' rows: (tap, channel) by output channel.
  const bool grouped = groups > 1;
  auto reshaped = [&](Value *input, std::vector<int64_t> dims,
                      const std::string &suffix) -> Expected<Value *> {
    if (!grouped)
      dims.erase(dims.begin());
    return insertNode(graph, "Reshape",
                      {input, addInt64sConstant(graph, dims, base + suffix + "_shape")}, &node,
                      graph.uniqueName(base + suffix));
  };
  const int64_t groupOut = outChannels / groups, groupIn = ws[1].constant(),
                taps = ws[2].constant() * ws[3].constant();
  Expected<Value *> split = reshaped(node.input(1), {groups, groupOut, groupIn, taps}, ".w_split");
  CUVIL_TRY(split.status());
  Expected<Value *> tapMajor =
      transposed(*split, grouped ? std::vector<int64_t>{0, 3, 2, 1} : std::vector<int64_t>{2, 1, 0},
                 ".w_taps");
  CUVIL_TRY(tapMajor.status());
  Expected<Value *> weights = reshaped(*tapMajor, {groups, taps * groupIn, groupOut}, ".wt");
  CUVIL_TRY(weights.status());
  Expected<Value *> y = insertNode(graph, "MatMul", {cols->output(0), *weights}, &node,
                                   graph.uniqueName(base + ".gemm"));
  CUVIL_TRY(y.status());
  if (node.hasInput(3)) {
    Value *bias = node.input(3);
    if (grouped) {
      Expected<Value *> perGroup =
          insertNode(graph, "Reshape",
                     {bias, addInt64sConstant(graph, {groups, 1, groupOut}, base + ".b_shape")},
                     &node, graph.uniqueName(base + ".b_groups"));
      CUVIL_TRY(perGroup.status());
      bias = *perGroup;
    }
    y = insertNode(graph, "Add", {*y, bias}, &node, graph.uniqueName(base + ".biased"));
    CUVIL_TRY(y.status());
  }
  Expected<Value *> channelsFirst = transposed(*y, {0, 1, 3, 2}, ".channels_first");
  CUVIL_TRY(channelsFirst.status());

  Value *shape;
  if (out[2].isConstant() && out[3].isConstant()) {
    shape = addInt64sConstant(graph, {0, outChannels, out[2].constant(), out[3].constant()},
                              base + ".y_shape");
  } else {
    Node *spatial =
        graph.addNode("Shape", {node.input(2)}, {graph.uniqueName(base + ".spatial")}, &node);
    spatial->setAttr("start", int64_t(2));
    spatial->setAttr("end", int64_t(4));
    CUVIL_TRY(inferNodeTypes(*spatial));
    Node *concat = graph.addNode(
        "Concat",
        {addInt64sConstant(graph, {0, outChannels}, base + ".y_channels"), spatial->output(0)},
        {graph.uniqueName(base + ".y_shape")}, &node);
    concat->setAttr("axis", int64_t(0));
    CUVIL_TRY(inferNodeTypes(*concat));
    shape = concat->output(0);
  }
  Expected<Value *> result =
      insertNode(graph, "Reshape", {*channelsFirst, shape}, &node, graph.uniqueName(base + ".y"));
  CUVIL_TRY(result.status());
  return replace(graph, node, *result);
}

} // namespace cuvil
