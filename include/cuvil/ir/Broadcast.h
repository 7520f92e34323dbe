// Numpy broadcasting of shapes, used by shape rules, passes and lowerings.
#pragma once

#include "cuvil/ir/Tensor.h"
#include "cuvil/support/Status.h"

namespace cuvil {

// The broadcast of two shapes, or an error naming both. A symbolic dim
// broadcasts against a constant 1 or an equal dim only: one that might be 1
// at run time and broadcast there is refused, since its strides would
// differ between shapes.
Expected<Shape> broadcastShapes(const Shape &a, const Shape &b);
// Element strides of `operand` read while iterating over `out`
// (0 along broadcast dimensions); `operand` aligns to the right of `out`.
std::vector<Dim> broadcastStrides(const Shape &operand, const Shape &out);

} // namespace cuvil
