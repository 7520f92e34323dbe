// Elementwise kernels: unary maps over contiguous data and broadcasting
// binary/ternary ops over strided operands.
//
// Broadcasting ops see a rank-6 iteration space (lowerings pad and merge
// dimensions); operands carry per-dimension element strides, 0 where an operand
// is broadcast. A task is one row of the innermost dimension:
//   coord = begin over dims 0..4; offsets = sum(coord[d] * stride[d])
//   for row in [begin, end):
//     for i in [0, shape[5]): y[row * shape[5] + i] = op(a[...], b[...])
//     coord += 1 (carrying), offsets follow
// After specialisation the innermost strides are constants (0 or 1), so the
// inner loop vectorises. Rows are short where a per-channel operand meets the
// blocked layout (16 elements), so the coordinates advance like an odometer
// instead of being divided out of each row's index.
#include "KernelSupport.h"
#include "RowOdometer.h"

#include "cuvil/kernels/Elementwise.h"

using namespace cuvil::kernels;

namespace {

// Integers wrap on overflow, as ONNX Runtime's do (the overflow builtins
// give the wrapped result without C++'s undefined behaviour).
template <typename T> CUVIL_INLINE T binaryArith(int64_t op, T a, T b) {
  T result = 0;
  switch (op) {
  case CUVIL_BINARY_ADD:
    __builtin_add_overflow(a, b, &result);
    return result;
  case CUVIL_BINARY_SUB:
    __builtin_sub_overflow(a, b, &result);
    return result;
  case CUVIL_BINARY_MUL:
    __builtin_mul_overflow(a, b, &result);
    return result;
  case CUVIL_BINARY_DIV:
    // Division by zero, and of the most negative value by -1, must not
    // trap: 0 and the wrapped negation.
    if (b == T(0))
      return T(0);
    if (T(-1) < T(0) && b == T(-1)) {
      __builtin_sub_overflow(T(0), a, &result);
      return result;
    }
    return T(a / b);
  case CUVIL_BINARY_MAX:
    return a > b ? a : b;
  case CUVIL_BINARY_MIN:
    return a < b ? a : b;
  case CUVIL_BINARY_MOD:
  case CUVIL_BINARY_FMOD: {
    // By zero gives 0, and so does the most negative value by -1 (whose
    // quotient overflows), instead of trapping.
    if (b == T(0) || (T(-1) < T(0) && b == T(-1)))
      return T(0);
    T r = T(a % b);
    bool divisorSign = op == CUVIL_BINARY_MOD && r != T(0) && ((r < T(0)) != (b < T(0)));
    return divisorSign ? T(r + b) : r;
  }
  case CUVIL_BINARY_BITWISE_AND:
    return T(a & b);
  case CUVIL_BINARY_BITWISE_OR:
    return T(a | b);
  case CUVIL_BINARY_BITWISE_XOR:
    return T(a ^ b);
  case CUVIL_BINARY_SHIFT_LEFT:
    return b >= T(8 * sizeof(T)) ? T(0) : T(a << b);
  case CUVIL_BINARY_SHIFT_RIGHT:
    return b >= T(8 * sizeof(T)) ? T(0) : T(a >> b);
  case CUVIL_BINARY_PRELU:
    if (a < T(0))
      __builtin_mul_overflow(a, b, &result);
    else
      result = a;
    return result;
  case CUVIL_BINARY_POW: {
    // By squaring: a huge exponent takes 64 steps, not 2^63. A negative
    // one gives 1, as the loop ONNX Runtime runs does.
    result = 1;
    T base = a;
    for (T e = b; e > T(0); e = T(e >> 1)) {
      if (e & T(1))
        __builtin_mul_overflow(result, base, &result);
      __builtin_mul_overflow(base, base, &base);
    }
    return result;
  }
  default:
    return a;
  }
}

// Floating point: fmod as a - trunc(a / b) b with one rounding (exact
// while the quotient fits the mantissa), and Python's mod from it. f64 pow
// goes through f32's.
template <typename F> CUVIL_INLINE F floatBinaryArith(int64_t op, F a, F b) {
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
    return F(powf(float(a), float(b)));
  case CUVIL_BINARY_MOD:
  case CUVIL_BINARY_FMOD: {
    F r = __builtin_elementwise_fma(-__builtin_elementwise_trunc(a / b), b, a);
    bool divisorSign = op == CUVIL_BINARY_MOD && r != F(0) && ((r < F(0)) != (b < F(0)));
    return divisorSign ? r + b : r;
  }
  case CUVIL_BINARY_PRELU:
    return a < F(0) ? a * b : a;
  default:
    return a;
  }
}
template <>
inline __attribute__((always_inline)) float binaryArith<float>(int64_t op, float a, float b) {
  return floatBinaryArith(op, a, b);
}
template <>
inline __attribute__((always_inline)) double binaryArith<double>(int64_t op, double a, double b) {
  return floatBinaryArith(op, a, b);
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

// Strings compare by their bytes, and only for equality (Equal is the one
// comparison ONNX defines on them; the lowering passes no other).
template <>
inline __attribute__((always_inline)) uint8_t compare<cuvil_string>(int64_t op, cuvil_string a,
                                                                    cuvil_string b) {
  if (op != CUVIL_BINARY_EQUAL || a.size != b.size)
    return 0;
  for (int64_t c = 0; c < a.size; ++c)
    if (a.data[c] != b.data[c])
      return 0;
  return 1;
}

template <typename T, typename R, bool Compare>
CUVIL_INLINE void binaryRows(const T *a, const T *b, R *y, const cuvil_binary_params *p,
                             int64_t begin, int64_t end) {
  const int64_t op = p->op, *shape = p->shape, *aStrides = p->a_strides, *bStrides = p->b_strides;
  int64_t inner = shape[5], as = aStrides[5], bs = bStrides[5];
  const int64_t *const strides[2] = {aStrides, bStrides};
  RowOdometer<2> at(begin, shape, strides);
  for (int64_t row = begin; row < end; ++row, at.next()) {
    const T *ar = a + at.offset[0];
    const T *br = b + at.offset[1];
    R *yr = y + row * inner;
    for (int64_t i = 0; i < inner; ++i) {
      if constexpr (Compare)
        yr[i] = compare<T>(op, ar[i * as], br[i * bs]);
      else
        yr[i] = binaryArith<T>(op, ar[i * as], br[i * bs]);
    }
  }
}

template <typename T>
CUVIL_INLINE void whereRows(const uint8_t *cond, const T *a, const T *b, T *y,
                            const cuvil_where_params *p, int64_t begin, int64_t end) {
  const int64_t *shape = p->shape, *cStrides = p->cond_strides, *aStrides = p->a_strides,
                *bStrides = p->b_strides;
  int64_t inner = shape[5], cs = cStrides[5], as = aStrides[5], bs = bStrides[5];
  const int64_t *const strides[3] = {cStrides, aStrides, bStrides};
  RowOdometer<3> at(begin, shape, strides);
  for (int64_t row = begin; row < end; ++row, at.next())
    for (int64_t i = 0; i < inner; ++i)
      y[row * inner + i] =
          cond[at.offset[0] + i * cs] ? a[at.offset[1] + i * as] : b[at.offset[2] + i * bs];
}

} // namespace

// y[i] = f(x[i]); tasks are elements.
CUVIL_KERNEL void cuvil_unary_f32(const float *x, float *y, const cuvil_unary *f, int64_t begin,
                                  int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    y[i] = applyUnary(*f, x[i]);
}

CUVIL_KERNEL void cuvil_unary_f64(const double *x, double *y, const cuvil_unary *f, int64_t begin,
                                  int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    y[i] = double(applyUnary(*f, float(x[i])));
}

#define CUVIL_DEFINE_BINARY(name, T)                                                               \
  CUVIL_KERNEL void cuvil_binary_##name(                                                           \
      const T *a, const T *b, T *y, const cuvil_binary_params *p, int64_t begin, int64_t end) {    \
    binaryRows<T, T, false>(a, b, y, p, begin, end);                                               \
  }
#define CUVIL_DEFINE_COMPARE(name, T)                                                              \
  CUVIL_KERNEL void cuvil_compare_##name(const T *a, const T *b, uint8_t *y,                       \
                                         const cuvil_binary_params *p, int64_t begin,              \
                                         int64_t end) {                                            \
    binaryRows<T, uint8_t, true>(a, b, y, p, begin, end);                                          \
  }
CUVIL_BINARY_TYPES(CUVIL_DEFINE_BINARY)
CUVIL_COMPARE_TYPES(CUVIL_DEFINE_COMPARE)
CUVIL_DEFINE_COMPARE(string, cuvil_string)

#define CUVIL_DEFINE_WHERE(size, T)                                                                \
  CUVIL_KERNEL void cuvil_where_##size(const uint8_t *cond, const T *a, const T *b, T *y,          \
                                       const cuvil_where_params *p, int64_t begin, int64_t end) {  \
    whereRows<T>(cond, a, b, y, p, begin, end);                                                    \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_WHERE)

// A chain of elementwise steps in one pass over the data, made by the
// fuse-elementwise pass: v = x; for each step s: v = f_s(v[, operand_s]);
// y = v. x and y have the iteration space's shape; operands (at most 4)
// broadcast with their own strides. After specialisation the step loop
// unrolls into straight-line code.
CUVIL_KERNEL void cuvil_elementwise_chain_f32(const float *x, const float *w0, const float *w1,
                                              const float *w2, const float *w3, float *y,
                                              const cuvil_chain_params *p, int64_t begin,
                                              int64_t end) {
  const float *operands[CUVIL_CHAIN_MAX_OPERANDS] = {w0, w1, w2, w3};
  const int64_t steps = p->steps;
  const int64_t *shape = p->shape;
  const int64_t inner = shape[5];
  const int64_t *const strides[CUVIL_CHAIN_MAX_OPERANDS] = {
      p->operand_strides[0], p->operand_strides[1], p->operand_strides[2], p->operand_strides[3]};
  RowOdometer<CUVIL_CHAIN_MAX_OPERANDS> at(begin, shape, strides);
  const int64_t *offsets = at.offset;
  for (int64_t row = begin; row < end; ++row, at.next()) {
    const float *xr = x + row * inner;
    float *yr = y + row * inner;
    for (int64_t i = 0; i < inner; ++i) {
      float v = xr[i];
      // Unrolled whole once specialisation makes the step count a constant:
      // each step's kind and op then fold, and the element loop vectorises.
      // (The body, every op of the switch, is too large for the unroller's
      // own threshold.)
#pragma clang loop unroll(full)
      for (int64_t s = 0; s < steps; ++s) {
        const cuvil_chain_step &step = p->step[s];
        if (step.kind == CUVIL_CHAIN_UNARY) {
          v = applyUnary(step.op, v, step.alpha, step.beta);
        } else {
          const int64_t k = step.operand;
          const float w = operands[k][offsets[k] + i * p->operand_strides[k][5]];
          v = step.kind == CUVIL_CHAIN_VALUE_FIRST ? binaryArith<float>(step.op, v, w)
                                                   : binaryArith<float>(step.op, w, v);
        }
      }
      yr[i] = v;
    }
  }
}
