#include "cuvil/ir/WindowGeometry.h"

namespace cuvil {

std::vector<AttrSpec> windowAttributes(std::vector<AttrSpec> extra) {
  std::vector<AttrSpec> attributes = {{"auto_pad", AttrKind::String},
                                      {"kernel_shape", AttrKind::Ints},
                                      {"pads", AttrKind::Ints},
                                      {"strides", AttrKind::Ints},
                                      {"dilations", AttrKind::Ints}};
  attributes.insert(attributes.end(), extra.begin(), extra.end());
  return attributes;
}

Expected<WindowGeometry> windowGeometry(const Node &node, const Shape &spatial,
                                        const std::vector<int64_t> &kernel, bool ceilMode,
                                        std::string_view prefix) {
  size_t rank = spatial.size();
  auto attribute = [&](const char *name) { return fmt::format("{}{}", prefix, name); };
  WindowGeometry g;
  g.input = spatial;
  g.kernel = kernel;
  g.strides = node.getInts(attribute("strides"), std::vector<int64_t>(rank, 1));
  g.dilations = node.getInts(attribute("dilations"), std::vector<int64_t>(rank, 1));
  std::vector<int64_t> pads = node.getInts(attribute("pads"), std::vector<int64_t>(2 * rank, 0));
  if (kernel.size() != rank || g.strides.size() != rank || g.dilations.size() != rank ||
      pads.size() != 2 * rank)
    return Status::error(fmt::format("kernel_shape, strides, dilations or pads do not match the "
                                     "{} spatial dimensions",
                                     rank));
  std::string autoPad = node.getString(attribute("auto_pad"), "NOTSET");
  for (size_t i = 0; i < rank; ++i) {
    int64_t in = spatial[i], stride = g.strides[i];
    if (stride <= 0 || g.dilations[i] <= 0 || kernel[i] <= 0)
      return Status::error("kernel sizes, strides and dilations must be positive");
    int64_t extent = (kernel[i] - 1) * g.dilations[i] + 1;
    int64_t begin = pads[i], end = pads[i + rank], out = 0;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = (in + stride - 1) / stride;
      int64_t total = std::max<int64_t>(0, (out - 1) * stride + extent - in);
      begin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else if (autoPad == "VALID") {
      begin = end = 0;
      out = in >= extent ? (in - extent) / stride + 1 : 0;
    } else if (autoPad == "NOTSET") {
      int64_t span = in + begin + end - extent;
      if (span < 0)
        return Status::error(fmt::format("window of {} is larger than the padded input of {}",
                                         extent, in + begin + end));
      out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
      if (ceilMode && (out - 1) * stride >= in + begin)
        --out;
    } else {
      return Status::error(fmt::format("unknown auto_pad '{}'", autoPad));
    }
    g.padsBegin.push_back(begin);
    g.padsEnd.push_back(end);
    g.output.push_back(out);
  }
  return g;
}

WindowGeometry::Window2D WindowGeometry::as2D() const {
  bool oneD = input.size() == 1;
  size_t h = 0, w = oneD ? 0 : 1;
  auto pick = [&](const std::vector<int64_t> &values, int64_t unit, bool height) {
    return oneD && height ? unit : values[height ? h : w];
  };
  return {pick(input, 1, true),      pick(input, 1, false),     pick(kernel, 1, true),
          pick(kernel, 1, false),    pick(strides, 1, true),    pick(strides, 1, false),
          pick(dilations, 1, true),  pick(dilations, 1, false), pick(padsBegin, 0, true),
          pick(padsBegin, 0, false), pick(padsEnd, 0, true),    pick(padsEnd, 0, false),
          pick(output, 1, true),     pick(output, 1, false)};
}

} // namespace cuvil
