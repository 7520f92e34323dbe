// Sliding-window geometry shared by Conv and the pooling ops: kernel,
// strides, dilations, pads (explicit or from auto_pad) and output sizes.
// Extents and pads are dims (auto_pad pads depend on the input's extent);
// kernel, strides and dilations are numbers.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/ir/OpSchema.h"
#include "cuvil/support/Status.h"

namespace cuvil {

struct WindowGeometry {
  Shape input, output, padsBegin, padsEnd;
  std::vector<int64_t> kernel, strides, dilations;

  // A window over static extents, as the references see it.
  struct StaticWindow2D {
    int64_t H, W, KH, KW, SH, SW, DH, DW, PT, PL, PB, PR, OH, OW;
  };
  // The 2-D view kernels take: 1-D windows become 1 x W.
  struct Window2D {
    Dim H, W;
    int64_t KH, KW, SH, SW, DH, DW;
    Dim PT, PL, PB, PR, OH, OW;
    bool isStatic() const;
    StaticWindow2D constant() const; // asserts isStatic()
  };
  Window2D as2D() const;
  // The 3-D view: the depth axis and the 2-D window of the last two axes;
  // 1-D and 2-D windows become 1 x 1 x W and 1 x H x W.
  struct Window3D {
    Dim D;
    int64_t KD, SD, DD;
    Dim PF, PBK, OD; // front and back pads, output extent
    Window2D plane;
  };
  Window3D as3D() const;
};

// `spatial` are the input's spatial dims, `kernel` the window size.
// ceil_mode rounds output sizes up (pooling), dropping a last window that
// would start inside the end padding, as ONNX Runtime does. The strides,
// dilations, pads and auto_pad come from the node's attributes of those
// names after `prefix` (ops with several windows name each by a prefix).
Expected<WindowGeometry> windowGeometry(const Node &node, const Shape &spatial,
                                        const std::vector<int64_t> &kernel, bool ceilMode,
                                        std::string_view prefix = "");

// Taps of one spatial axis, summed over its `outputs` positions, that read
// inside an input of `extent` (not its padding): the work a kernel that
// skips padding does, against outputs * kernel taps.
int64_t insideTaps(int64_t extent, int64_t outputs, int64_t kernel, int64_t stride,
                   int64_t dilation, int64_t padBegin);

// Attributes every windowed op accepts.
std::vector<AttrSpec> windowAttributes(std::vector<AttrSpec> extra);

} // namespace cuvil
