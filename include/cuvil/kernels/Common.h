/* The kernel ABI shared by the microkernels (src/kernels/) and the op
 * lowerings that call them: op codes, the parameter blocks several kernel
 * families share, and the macros that declare kernel instances.
 *
 * A kernel takes buffer pointers, scalars, at most one parameter block (a
 * plain struct, passed as a pointer to a compile-time constant) and a task
 * range [begin, end). The prototypes in these headers are the one
 * declaration of each kernel: the kernel's definition must match it (the C++
 * compiler checks), and the compiler derives from it the signature it checks
 * every call against (include/cuvil/lowering/KernelCall.h). Parameter blocks
 * hold only int64_t and float fields, in pairs, so that they have no padding
 * and the same layout on every 64-bit target.
 *
 * Freestanding: <stdint.h> only. */
#ifndef CUVIL_KERNELS_COMMON_H
#define CUVIL_KERNELS_COMMON_H

#include <stdint.h>

#define CUVIL_KERNEL_DECL extern "C"

/* Declares the two instances of a blocked NCHWc kernel,
 * cuvil_<stem>_nchw16c_f32 and cuvil_<stem>_nchw8c_f32, with one parameter
 * list; src/kernels/Vector.h's CUVIL_BLOCKED_KERNELS defines them. */
#define CUVIL_DECLARE_BLOCKED_KERNELS(stem, params)                                                \
  CUVIL_KERNEL_DECL void cuvil_##stem##_nchw16c_f32 params;                                        \
  CUVIL_KERNEL_DECL void cuvil_##stem##_nchw8c_f32 params;

/* Elementwise unary functions; also the activation of fused epilogues
 * (CUVIL_UNARY_IDENTITY = no activation). alpha/beta parameterise some. */
enum cuvil_unary_op {
  CUVIL_UNARY_IDENTITY = 0,
  CUVIL_UNARY_RELU = 1,
  CUVIL_UNARY_CLIP = 2, /* min(max(x, alpha), beta) */
  CUVIL_UNARY_SIGMOID = 3,
  CUVIL_UNARY_TANH = 4,
  CUVIL_UNARY_GELU_ERF = 5,  /* 0.5 x (1 + erf(x / sqrt 2)) */
  CUVIL_UNARY_SILU = 6,      /* x sigmoid(x) */
  CUVIL_UNARY_HARDSWISH = 7, /* x relu6(x + 3) / 6 */
  CUVIL_UNARY_LEAKYRELU = 8, /* x < 0 ? alpha x : x */
  CUVIL_UNARY_NEG = 9,
  CUVIL_UNARY_ABS = 10,
  CUVIL_UNARY_SQRT = 11,
  CUVIL_UNARY_EXP = 12,
  CUVIL_UNARY_LOG = 13,
  CUVIL_UNARY_ERF = 14,
  CUVIL_UNARY_RECIPROCAL = 15,
  CUVIL_UNARY_FLOOR = 16,
  CUVIL_UNARY_CEIL = 17,
  CUVIL_UNARY_SQUARE = 18,
  CUVIL_UNARY_HARDSIGMOID = 19, /* max(0, min(1, alpha x + beta)) */
  CUVIL_UNARY_POW = 20,         /* x ^ alpha */
  CUVIL_UNARY_GELU_TANH = 21,   /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  CUVIL_UNARY_ELU = 22,         /* x < 0 ? alpha (e^x - 1) : x */
  CUVIL_UNARY_SELU = 23,        /* beta (x <= 0 ? alpha (e^x - 1) : x) */
  CUVIL_UNARY_SOFTPLUS = 24,    /* log(1 + e^x) */
  CUVIL_UNARY_SOFTSIGN = 25,    /* x / (1 + |x|) */
  CUVIL_UNARY_SIN = 26,
  CUVIL_UNARY_COS = 27,
  CUVIL_UNARY_TAN = 28,
  CUVIL_UNARY_ASIN = 29,
  CUVIL_UNARY_ACOS = 30,
  CUVIL_UNARY_ATAN = 31,
  CUVIL_UNARY_SINH = 32,
  CUVIL_UNARY_COSH = 33,
  CUVIL_UNARY_ASINH = 34,
  CUVIL_UNARY_ACOSH = 35,
  CUVIL_UNARY_ATANH = 36,
  CUVIL_UNARY_ROUND = 37,            /* to nearest, ties to even */
  CUVIL_UNARY_SIGN = 38,             /* -1, 0 or 1; nan stays */
  CUVIL_UNARY_THRESHOLDED_RELU = 39, /* x > alpha ? x : 0 */
  CUVIL_UNARY_SHRINK = 40,           /* x < -alpha ? x + beta : (x > alpha ? x - beta : 0) */
  CUVIL_UNARY_AFFINE = 41,           /* alpha x + beta (a recurrence's activation) */
  CUVIL_UNARY_SCALED_TANH = 42,      /* alpha tanh(beta x) (a recurrence's activation) */
  CUVIL_UNARY_MISH = 43,             /* x tanh(softplus(x)) */
  CUVIL_UNARY_SWISH = 44,            /* x sigmoid(alpha x) */
  /* A QuantizeLinear read by its DequantizeLinear (scale alpha, zero point
   * beta, u8 or i8), multiplying by 1 / alpha where QuantizeLinear divides:
   * clamp(round_half_even(x / alpha), lowest - beta, highest - beta) alpha */
  CUVIL_UNARY_FAKE_QUANT_U8 = 45,
  CUVIL_UNARY_FAKE_QUANT_I8 = 46
};

enum cuvil_binary_op {
  CUVIL_BINARY_ADD = 0,
  CUVIL_BINARY_SUB = 1,
  CUVIL_BINARY_MUL = 2,
  CUVIL_BINARY_DIV = 3,
  CUVIL_BINARY_POW = 4,
  CUVIL_BINARY_MAX = 5,
  CUVIL_BINARY_MIN = 6,
  CUVIL_BINARY_EQUAL = 7, /* comparisons write bool (u8) */
  CUVIL_BINARY_LESS = 8,
  CUVIL_BINARY_LESS_EQUAL = 9,
  CUVIL_BINARY_GREATER = 10,
  CUVIL_BINARY_GREATER_EQUAL = 11,
  CUVIL_BINARY_AND = 12,
  CUVIL_BINARY_OR = 13,
  CUVIL_BINARY_XOR = 14,
  CUVIL_BINARY_MOD = 15,         /* the remainder with the divisor's sign (Python's %) */
  CUVIL_BINARY_FMOD = 16,        /* the remainder with the dividend's sign (C's fmod) */
  CUVIL_BINARY_SHIFT_LEFT = 17,  /* a << b, 0 once b reaches the width */
  CUVIL_BINARY_SHIFT_RIGHT = 18, /* a >> b, 0 once b reaches the width */
  CUVIL_BINARY_PRELU = 19,       /* a < 0 ? a b : a */
  CUVIL_BINARY_BITWISE_AND = 20, /* integers only */
  CUVIL_BINARY_BITWISE_OR = 21,
  CUVIL_BINARY_BITWISE_XOR = 22
};

/* A cuvil_unary_op with its parameters: an elementwise kernel's function,
 * or the activation a kernel applies before storing its result
 * (CUVIL_UNARY_IDENTITY for none). */
struct cuvil_unary {
  int64_t op;
  float alpha, beta;
};

/* A 2-D sliding window (convolution, pooling): input and output extents,
 * kernel, strides, dilations and pads (top, left, bottom, right). 1-D
 * windows are 1 x W. */
struct cuvil_window2d {
  int64_t IH, IW, OH, OW;
  int64_t KH, KW, SH, SW, DH, DW;
  int64_t PT, PL, PB, PR;
};

/* A 3-D sliding window: the depth axis (input and output extents, kernel,
 * stride, dilation, front and back pads) and the 2-D window over height and
 * width. 1-D and 2-D windows are 1 x 1 x W and 1 x H x W. */
struct cuvil_window3d {
  int64_t ID, OD, KD, SD, DD, PF, PBK;
  struct cuvil_window2d plane;
};

/* A register tile: output pixels x output-channel blocks (GEMM: rows x
 * 16-column vectors). */
struct cuvil_tile {
  int64_t pixels, blocks;
};

/* A 16-byte element, moved as it is: a string tensor's cuvil_string
 * (ModelABI.h). Made from a number as its low 64 bits (a fill of zero is
 * an empty string). */
struct cuvil_element16 {
  uint64_t lo, hi;
  cuvil_element16() = default;
  explicit cuvil_element16(int64_t low) : lo(uint64_t(low)), hi(0) {}
};

/* Kernels that only move elements come in one instance per element size:
 * (bytes, C type). */
#define CUVIL_ELEMENT_SIZES(X)                                                                     \
  X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t) X(16, cuvil_element16)

/* Strided kernels take shapes of at most this rank; lowerings first merge
 * dimensions that are contiguous in every operand. */
#define CUVIL_MAX_RANK 6

#endif /* CUVIL_KERNELS_COMMON_H */
