// Elementwise kernels: unary maps over contiguous data and broadcasting
// binary/ternary ops over strided operands.
//
// Broadcasting ops see a rank-6 iteration space (lowerings pad and merge
// dimensions); operands carry per-dimension element strides, 0 where an operand
// is broadcast. A task is one row of the innermost dimension:
//   for row in [begin, end):                 // row = index over dims 0..4
//     offsets = sum(coord[d] * stride[d])
//     for i in [0, shape[5]): y[...] = op(a[...], b[...])
// After specialisation the innermost strides are constants (0 or 1), so the
// inner loop vectorises.
#include "KernelSupport.h"

using namespace cuvil::kernels;

namespace {

struct RowOffsets {
  int64_t a = 0, b = 0, c = 0, y = 0;
};

// Decomposes a row index over dims 0..4 into element offsets of each operand.
CUVIL_INLINE RowOffsets rowOffsets(int64_t row, const int64_t *shape, const int64_t *aStrides,
                                   const int64_t *bStrides, const int64_t *cStrides) {
  RowOffsets offsets;
  int64_t yStride = shape[5];
  for (int d = 4; d >= 0; --d) {
    int64_t coord = row % shape[d];
    row /= shape[d];
    offsets.a += coord * aStrides[d];
    offsets.b += coord * bStrides[d];
    if (cStrides)
      offsets.c += coord * cStrides[d];
    offsets.y += coord * yStride;
    yStride *= shape[d];
  }
  return offsets;
}

template <typename T> CUVIL_INLINE T binaryArith(int64_t op, T a, T b) {
  switch (op) {
  case CUVIL_BINARY_ADD:
    return a + b;
  case CUVIL_BINARY_SUB:
    return a - b;
  case CUVIL_BINARY_MUL:
    return a * b;
  case CUVIL_BINARY_DIV:
    return b == T(0) ? T(0) : a / b; // integer division by zero must not trap
  case CUVIL_BINARY_MAX:
    return a > b ? a : b;
  case CUVIL_BINARY_MIN:
    return a < b ? a : b;
  case CUVIL_BINARY_POW: {
    T result = 1;
    for (T e = 0; e < b; ++e)
      result *= a;
    return result;
  }
  default:
    return a;
  }
}

template <>
inline __attribute__((always_inline)) float binaryArith<float>(int64_t op, float a, float b) {
  switch (op) {
  case CUVIL_BINARY_ADD:
    return a + b;
  case CUVIL_BINARY_SUB:
    return a - b;
  case CUVIL_BINARY_MUL:
    return a * b;
  case CUVIL_BINARY_DIV:
    return a / b;
  case CUVIL_BINARY_MAX:
    return maxf(a, b);
  case CUVIL_BINARY_MIN:
    return minf(a, b);
  case CUVIL_BINARY_POW:
    return powf(a, b);
  default:
    return a;
  }
}

template <typename T> CUVIL_INLINE uint8_t compare(int64_t op, T a, T b) {
  switch (op) {
  case CUVIL_BINARY_EQUAL:
    return a == b;
  case CUVIL_BINARY_LESS:
    return a < b;
  case CUVIL_BINARY_LESS_EQUAL:
    return a <= b;
  case CUVIL_BINARY_GREATER:
    return a > b;
  case CUVIL_BINARY_GREATER_EQUAL:
    return a >= b;
  case CUVIL_BINARY_AND:
    return (a != T(0)) & (b != T(0));
  case CUVIL_BINARY_OR:
    return (a != T(0)) | (b != T(0));
  case CUVIL_BINARY_XOR:
    return (a != T(0)) ^ (b != T(0));
  default:
    return 0;
  }
}

template <typename T, typename R, bool Compare>
CUVIL_INLINE void binaryRows(const T *a, const T *b, R *y, int64_t op, const int64_t *shape,
                             const int64_t *aStrides, const int64_t *bStrides, int64_t begin,
                             int64_t end) {
  int64_t inner = shape[5], as = aStrides[5], bs = bStrides[5];
  for (int64_t row = begin; row < end; ++row) {
    RowOffsets o = rowOffsets(row, shape, aStrides, bStrides, nullptr);
    const T *ar = a + o.a;
    const T *br = b + o.b;
    R *yr = y + o.y;
    for (int64_t i = 0; i < inner; ++i) {
      if constexpr (Compare)
        yr[i] = compare<T>(op, ar[i * as], br[i * bs]);
      else
        yr[i] = binaryArith<T>(op, ar[i * as], br[i * bs]);
    }
  }
}

template <typename T>
CUVIL_INLINE void whereRows(const uint8_t *cond, const T *a, const T *b, T *y, const int64_t *shape,
                            const int64_t *cStrides, const int64_t *aStrides,
                            const int64_t *bStrides, int64_t begin, int64_t end) {
  int64_t inner = shape[5], cs = cStrides[5], as = aStrides[5], bs = bStrides[5];
  for (int64_t row = begin; row < end; ++row) {
    RowOffsets o = rowOffsets(row, shape, aStrides, bStrides, cStrides);
    for (int64_t i = 0; i < inner; ++i)
      y[o.y + i] = cond[o.c + i * cs] ? a[o.a + i * as] : b[o.b + i * bs];
  }
}

} // namespace

// y[i] = op(x[i]); tasks are elements.
CUVIL_KERNEL void cuvil_unary_f32(const float *x, float *y, int64_t op, float alpha, float beta,
                                  int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    y[i] = applyUnary(op, x[i], alpha, beta);
}

#define CUVIL_BINARY_KERNEL(name, T, R, compareOp)                                                 \
  CUVIL_KERNEL void name(const T *a, const T *b, R *y, int64_t op, const int64_t *shape,           \
                         const int64_t *aStrides, const int64_t *bStrides, int64_t begin,          \
                         int64_t end) {                                                            \
    binaryRows<T, R, compareOp>(a, b, y, op, shape, aStrides, bStrides, begin, end);               \
  }

CUVIL_BINARY_KERNEL(cuvil_binary_f32, float, float, false)
CUVIL_BINARY_KERNEL(cuvil_binary_i64, int64_t, int64_t, false)
CUVIL_BINARY_KERNEL(cuvil_binary_i32, int32_t, int32_t, false)
CUVIL_BINARY_KERNEL(cuvil_compare_f32, float, uint8_t, true)
CUVIL_BINARY_KERNEL(cuvil_compare_f64, double, uint8_t, true)
CUVIL_BINARY_KERNEL(cuvil_compare_i64, int64_t, uint8_t, true)
CUVIL_BINARY_KERNEL(cuvil_compare_i32, int32_t, uint8_t, true)
CUVIL_BINARY_KERNEL(cuvil_compare_u8, uint8_t, uint8_t, true)

// y = cond ? a : b, by element size.
#define CUVIL_WHERE_KERNEL(name, T)                                                                \
  CUVIL_KERNEL void name(const uint8_t *cond, const T *a, const T *b, T *y, const int64_t *shape,  \
                         const int64_t *cStrides, const int64_t *aStrides,                         \
                         const int64_t *bStrides, int64_t begin, int64_t end) {                    \
    whereRows<T>(cond, a, b, y, shape, cStrides, aStrides, bStrides, begin, end);                  \
  }

CUVIL_WHERE_KERNEL(cuvil_where_1, uint8_t)
CUVIL_WHERE_KERNEL(cuvil_where_2, uint16_t)
CUVIL_WHERE_KERNEL(cuvil_where_4, uint32_t)
CUVIL_WHERE_KERNEL(cuvil_where_8, uint64_t)

// A chain of elementwise steps in one pass over the data, made by the
// fuse-elementwise pass: v = x; for each step s: v = f_s(v[, operand_s]);
// y = v. x and y have the iteration space's shape; operands (at most 4)
// broadcast with their own strides. Step s is program[4 s .. 4 s + 3] =
// {kind, op code, operand index, unused}, kind 0 = unary op(v), 1 = v op w,
// 2 = w op v; params[2 s], params[2 s + 1] are the unary op's alpha/beta.
// After specialisation the step loop unrolls into straight-line code.
CUVIL_KERNEL void cuvil_elementwise_chain_f32(const float *x, const float *w0, const float *w1,
                                              const float *w2, const float *w3, float *y,
                                              const int64_t *program, const float *params,
                                              const int64_t *shape, const int64_t *strides,
                                              int64_t begin, int64_t end) {
  const float *operands[4] = {w0, w1, w2, w3};
  const int64_t steps = program[0];
  const int64_t *step = program + 1;
  const int64_t inner = shape[5];
  for (int64_t row = begin; row < end; ++row) {
    int64_t offsets[4] = {0, 0, 0, 0}, rest = row;
    for (int d = 4; d >= 0; --d) {
      const int64_t coord = rest % shape[d];
      rest /= shape[d];
      for (int k = 0; k < 4; ++k)
        offsets[k] += coord * strides[k * 6 + d];
    }
    const float *xr = x + row * inner;
    float *yr = y + row * inner;
    for (int64_t i = 0; i < inner; ++i) {
      float v = xr[i];
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t kind = step[4 * s], code = step[4 * s + 1], k = step[4 * s + 2];
        if (kind == 0) {
          v = applyUnary(code, v, params[2 * s], params[2 * s + 1]);
        } else {
          const float w = operands[k][offsets[k] + i * strides[k * 6 + 5]];
          v = kind == 1 ? binaryArith<float>(code, v, w) : binaryArith<float>(code, w, v);
        }
      }
      yr[i] = v;
    }
  }
}
