/* Constants shared by the microkernels (src/kernels/) and the op lowerings
 * that call them. Kernels receive these as compile-time constant arguments,
 * so every switch on them folds away after specialisation. Plain C. */
#ifndef CUVIL_KERNELS_KERNELPARAMS_H
#define CUVIL_KERNELS_KERNELPARAMS_H

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
  CUVIL_UNARY_GELU_TANH = 21    /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
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
  CUVIL_BINARY_XOR = 14
};

enum cuvil_reduce_op {
  CUVIL_REDUCE_SUM = 0,
  CUVIL_REDUCE_MEAN = 1,
  CUVIL_REDUCE_MAX = 2,
  CUVIL_REDUCE_MIN = 3,
  CUVIL_REDUCE_PROD = 4,
  CUVIL_REDUCE_SUM_SQUARE = 5,
  CUVIL_REDUCE_L1 = 6,
  CUVIL_REDUCE_L2 = 7
};

/* Columns per panel of a packed GEMM right operand: Bp[ceil(N/64)][K][64]. */
#define CUVIL_GEMM_PANEL 64

/* Strided kernels take shapes of at most this rank; lowerings first merge
 * dimensions that are contiguous in every operand. */
#define CUVIL_MAX_RANK 6

/* Most accumulators of the Winograd product's register tile (tile_block x
 * tile_j): 24 zmm for 16-lane blocks, 12 ymm for 8-lane ones. The kernel
 * instantiates tiles up to it, the op checks it, the layout pass picks
 * within it. */
#define CUVIL_WINOGRAD_MAX_ACCUMULATORS(block) ((block) == 16 ? 24 : 12)

#endif /* CUVIL_KERNELS_KERNELPARAMS_H */
