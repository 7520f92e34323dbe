#include "ConvTransposeCommon.h"

namespace cuvil::ops {

std::vector<AttrSpec> convTransposeAttributes() {
  return {{"auto_pad", AttrKind::String, Attribute(std::string("NOTSET"))},
          {"dilations", AttrKind::Ints},
          {"group", AttrKind::Int, Attribute(int64_t(1))},
          {"kernel_shape", AttrKind::Ints},
          {"output_padding", AttrKind::Ints},
          {"output_shape", AttrKind::Ints},
          {"pads", AttrKind::Ints},
          {"strides", AttrKind::Ints}};
}

Expected<ConvTransposeGeometry> convTransposeGeometry(const Node &node, const Shape &x,
                                                      int64_t outChannels,
                                                      const std::vector<int64_t> &kernel) {
  size_t rank = kernel.size();
  if (x.size() != rank + 2 || rank == 0)
    return Status::error(
        fmt::format("X [{}] does not match a {}-D kernel", shapeToString(x), rank));
  if (rank > 3)
    return Status::error("only 1-D, 2-D and 3-D transposed convolutions are supported");
  if (!x[1].isConstant())
    return Status::error("the input channels must be static");
  ConvTransposeGeometry g;
  g.group = node.getInt("group");
  g.inChannels = x[1].constant();
  g.outChannels = outChannels;
  if (g.group <= 0 || g.inChannels % g.group != 0)
    return Status::error(
        fmt::format("group {} does not divide the {} input channels", g.group, g.inChannels));
  g.kernel = kernel;
  g.input.assign(x.begin() + 2, x.end());
  auto ints = [&](const char *name, int64_t fill, size_t count) {
    return node.getInts(name, std::vector<int64_t>(count, fill));
  };
  g.strides = ints("strides", 1, rank);
  g.dilations = ints("dilations", 1, rank);
  std::vector<int64_t> outputPadding = ints("output_padding", 0, rank);
  std::vector<int64_t> pads = ints("pads", 0, 2 * rank);
  std::vector<int64_t> kernelShape = ints("kernel_shape", 0, rank);
  if (node.hasAttr("kernel_shape") && kernelShape != kernel)
    return Status::error(fmt::format("kernel_shape [{}] differs from the weights' [{}]",
                                     fmt::join(kernelShape, ","), fmt::join(kernel, ",")));
  if (g.strides.size() != rank || g.dilations.size() != rank || outputPadding.size() != rank ||
      pads.size() != 2 * rank)
    return Status::error(fmt::format(
        "strides, dilations, output_padding or pads do not match the {} spatial dims", rank));
  std::string autoPad = node.getString("auto_pad");
  std::vector<int64_t> outputShape = node.getInts("output_shape", {});
  if (!outputShape.empty() && outputShape.size() != rank)
    return Status::error(
        fmt::format("output_shape has {} entries for {} spatial dims", outputShape.size(), rank));
  for (size_t i = 0; i < rank; ++i) {
    int64_t stride = g.strides[i], dilation = g.dilations[i];
    if (stride <= 0 || dilation <= 0 || kernel[i] <= 0 || outputPadding[i] < 0 || pads[i] < 0 ||
        pads[i + rank] < 0)
      return Status::error("strides, dilations and kernel sizes must be positive, pads and "
                           "output_padding not negative");
    const Dim &in = g.input[i];
    // The extent with no padding at all.
    Dim full = (in - 1) * stride + outputPadding[i] + dilation * (kernel[i] - 1) + 1;
    bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    if (!outputShape.empty() || same) {
      Dim wanted = outputShape.empty() ? in * stride : Dim(outputShape[i]);
      Dim total = full - wanted;
      if (!total.isConstant())
        return Status::error("output_shape with symbolic input extents is not supported");
      // As the ONNX spec splits it, rounding down: SAME_UPPER pads less at
      // the beginning; a negative total (output_shape beyond the windows)
      // leaves zeros at the end.
      int64_t t = total.constant(), half = t >= 0 ? t / 2 : -((1 - t) / 2);
      int64_t begin = autoPad == "SAME_UPPER" ? half : t - half;
      g.padsBegin.push_back(begin);
      g.output.push_back(wanted);
    } else if (autoPad == "NOTSET" || autoPad == "VALID") {
      int64_t begin = autoPad == "VALID" ? 0 : pads[i],
              end = autoPad == "VALID" ? 0 : pads[i + rank];
      Dim out = full - begin - end;
      if (out.max() <= 0)
        return Status::error(fmt::format("the pads leave no output ({})", out));
      g.padsBegin.push_back(begin);
      g.output.push_back(out);
    } else {
      return Status::error(fmt::format("unknown auto_pad '{}'", autoPad));
    }
  }
  return g;
}

} // namespace cuvil::ops
