// Rows of the kernels' rank-6 strided iteration spaces (dims 0..4 of the
// rows, dim 5 each row's run), shared by the elementwise and string kernels.
#pragma once

#include "KernelSupport.h"

namespace cuvil::kernels {

// A row's coordinates over dims 0..4 and the element offsets of N operands
// (strides[k][d]: operand k's stride along dim d), moved row by row.
template <int N> class RowOdometer {
public:
  __attribute__((always_inline)) RowOdometer(int64_t row, const int64_t *shape,
                                             const int64_t *const (&strides)[N])
      : shape_(shape), strides_(strides) {
    for (int d = 4; d >= 0; --d) {
      coord_[d] = row % shape[d];
      row /= shape[d];
    }
    for (int k = 0; k < N; ++k) {
      offset[k] = 0;
      for (int d = 0; d < 5; ++d)
        offset[k] += coord_[d] * strides[k][d];
    }
  }

  // To the next row: the innermost dim that does not wrap goes up by one.
  __attribute__((always_inline)) void next() {
    for (int d = 4; d >= 0; --d) {
      for (int k = 0; k < N; ++k)
        offset[k] += strides_[k][d];
      if (++coord_[d] < shape_[d])
        return;
      for (int k = 0; k < N; ++k)
        offset[k] -= strides_[k][d] * shape_[d];
      coord_[d] = 0;
    }
  }

  int64_t offset[N];

private:
  const int64_t *shape_;
  const int64_t *const (&strides_)[N];
  int64_t coord_[5];
};

} // namespace cuvil::kernels
