// Numpy broadcasting of shapes, used by shape rules, passes and lowerings.
#pragma once

#include "cuvil/ir/Tensor.h"
#include "cuvil/support/Status.h"

namespace cuvil {

// The broadcast of two shapes, or an error naming both.
Expected<Shape> broadcastShapes(const Shape &a, const Shape &b);
// Element strides of `operand` read while iterating over `out`
// (0 along broadcast dimensions); `operand` aligns to the right of `out`.
std::vector<int64_t> broadcastStrides(const Shape &operand, const Shape &out);

} // namespace cuvil
