// Shared by HannWindow, HammingWindow and BlackmanWindow, the generalised
// cosine windows
//   y[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N),  n < size,
// N = size when `periodic` (the default), size - 1 otherwise; one
// symmetric point divides 0 by 0 (nan), as ONNX Runtime does. The size is
// a scalar known at compile time (a constant, --value) or an extent
// (--value-range); y has type `output_datatype` (f32 by default). A window
// of known size is computed at compile time (in double); the kernel (f32
// or f64, in f32 arithmetic) serves sizes known only at run time.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

struct CosineWindow {
  double a0, a1, a2;
};

std::vector<AttrSpec> cosineWindowAttributes();
Status inferCosineWindow(InferContext &ctx);
Status evalCosineWindow(const CosineWindow &window, const Node &node, std::span<Tensor> out);
Status lowerCosineWindow(const CosineWindow &window, const Node &node, LoweringContext &ctx);

} // namespace cuvil::ops
