#include "cuvil/ir/WindowGeometry.h"

#include <algorithm>

namespace cuvil {

// Per tap k, the outputs o with 0 <= o * stride - padBegin + k * dilation <
// extent form one range: counted in closed form, so that absurd extents
// cost nothing.
int64_t insideTaps(int64_t extent, int64_t outputs, int64_t kernel, int64_t stride,
                   int64_t dilation, int64_t padBegin) {
  auto floorDiv = [](int64_t a, int64_t b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
  };
  int64_t inside = 0;
  for (int64_t k = 0; k < kernel; ++k) {
    int64_t offset = k * dilation - padBegin; // input position of o = 0
    int64_t first = std::max<int64_t>(0, floorDiv(-offset + stride - 1, stride));
    int64_t last = std::min<int64_t>(outputs - 1, floorDiv(extent - 1 - offset, stride));
    inside += last >= first ? last - first + 1 : 0;
  }
  return inside;
}

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
  for (int64_t pad : pads)
    if (pad < 0)
      return Status::error(fmt::format("pads [{}] must not be negative", fmt::join(pads, ",")));
  std::string autoPad = node.getString(attribute("auto_pad"), "NOTSET");
  for (size_t i = 0; i < rank; ++i) {
    const Dim &in = spatial[i];
    int64_t stride = g.strides[i];
    if (stride <= 0 || g.dilations[i] <= 0 || kernel[i] <= 0)
      return Status::error("kernel sizes, strides and dilations must be positive");
    int64_t extent = (kernel[i] - 1) * g.dilations[i] + 1;
    Dim begin = pads[i], end = pads[i + rank], out;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = ceilDiv(in, stride);
      Dim total = maxDim(0, (out - 1) * stride + extent - in);
      begin = autoPad == "SAME_UPPER" ? floorDiv(total, 2) : total - floorDiv(total, 2);
      end = total - begin;
    } else if (autoPad == "VALID") {
      begin = end = 0;
      out = maxDim(0, floorDiv(in - extent, stride) + 1);
    } else if (autoPad == "NOTSET") {
      // A window larger than the input is an error where the input is
      // static; a symbolic input may be that small at run time, and then
      // has no window (an empty output, as ONNX Runtime gives).
      Dim span = in + begin + end - extent;
      if (span.max() < 0)
        return Status::error(fmt::format("window of {} is larger than the padded input of {}{}",
                                         extent, (in + begin + end).max(),
                                         span.isConstant() ? "" : " (at its largest)"));
      out = (ceilMode ? ceilDiv(span, stride) : floorDiv(span, stride)) + 1;
      // ceil_mode drops a last window that would start inside the end
      // padding: out - [(out - 1) stride >= in + begin].
      if (ceilMode)
        out = out - minDim(maxDim((out - 1) * stride - (in + begin) + 1, 0), 1);
      if (span.min() < 0)
        out = maxDim(out, 0);
    } else {
      return Status::error(fmt::format("unknown auto_pad '{}'", autoPad));
    }
    g.padsBegin.push_back(begin);
    g.padsEnd.push_back(end);
    g.output.push_back(out);
  }
  return g;
}

bool WindowGeometry::Window2D::isStatic() const {
  for (const Dim *d : {&H, &W, &PT, &PL, &PB, &PR, &OH, &OW})
    if (!d->isConstant())
      return false;
  return true;
}

WindowGeometry::StaticWindow2D WindowGeometry::Window2D::constant() const {
  return {H.constant(),
          W.constant(),
          KH,
          KW,
          SH,
          SW,
          DH,
          DW,
          PT.constant(),
          PL.constant(),
          PB.constant(),
          PR.constant(),
          OH.constant(),
          OW.constant()};
}

WindowGeometry::Window2D WindowGeometry::as2D() const {
  bool oneD = input.size() == 1;
  size_t w = oneD ? 0 : 1;
  auto dim = [&](const Shape &values, int64_t unit, bool height) {
    return oneD && height ? Dim(unit) : values[height ? 0 : w];
  };
  auto number = [&](const std::vector<int64_t> &values, int64_t unit, bool height) {
    return oneD && height ? unit : values[height ? 0 : w];
  };
  return {dim(input, 1, true),        dim(input, 1, false),        number(kernel, 1, true),
          number(kernel, 1, false),   number(strides, 1, true),    number(strides, 1, false),
          number(dilations, 1, true), number(dilations, 1, false), dim(padsBegin, 0, true),
          dim(padsBegin, 0, false),   dim(padsEnd, 0, true),       dim(padsEnd, 0, false),
          dim(output, 1, true),       dim(output, 1, false)};
}

WindowGeometry::Window3D WindowGeometry::as3D() const {
  if (input.size() < 3)
    return {1, 1, 1, 1, 0, 0, 1, as2D()};
  WindowGeometry plane;
  auto lastTwo = [](const auto &values) {
    return std::decay_t<decltype(values)>(values.end() - 2, values.end());
  };
  plane.input = lastTwo(input);
  plane.output = lastTwo(output);
  plane.padsBegin = lastTwo(padsBegin);
  plane.padsEnd = lastTwo(padsEnd);
  plane.kernel = lastTwo(kernel);
  plane.strides = lastTwo(strides);
  plane.dilations = lastTwo(dilations);
  return {input[0],     kernel[0],  strides[0], dilations[0],
          padsBegin[0], padsEnd[0], output[0],  plane.as2D()};
}

} // namespace cuvil
