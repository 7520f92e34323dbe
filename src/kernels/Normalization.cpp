// Row-wise normalisations: Softmax / LogSoftmax along an axis,
// LayerNormalization over trailing dimensions and LRN across channels.
#include "SoftmaxRow.h"

#include "cuvil/kernels/Normalization.h"

using namespace cuvil::kernels;

// Sums may be reordered so that they vectorise (ONNX Runtime does the same).
#pragma clang fp reassociate(on)

// y[i * stride] *= factor for i < n. Without reassociation: with it LLVM
// folds y * (1 / sum) into a divide per element (16 cycles a vector).
CUVIL_INLINE void scaleRow(float *y, int64_t n, int64_t stride, float factor) {
#pragma clang fp reassociate(off)
  for (int64_t i = 0; i < n; ++i)
    y[i * stride] *= factor;
}

// Softmax over `axisLen` elements spaced `inner` apart; a task is one of the
// outer * inner independent vectors:
//   m = max(x); e = exp(x - m); y = e / sum(e)      (log: x - m - log(sum e))
CUVIL_KERNEL void cuvil_softmax_f32(const float *x, float *y, int64_t axisLen, int64_t inner,
                                    int64_t isLog, int64_t begin, int64_t end) {
  for (int64_t task = begin; task < end; ++task) {
    const int64_t base = (task / inner) * axisLen * inner + task % inner;
    const float *xv = x + base;
    float *yv = y + base;
    const float maxValue = rowMax(xv, axisLen, inner);
    if (isLog) {
      float sum = 0.0f;
      for (int64_t i = 0; i < axisLen; ++i)
        sum += expfNonPositive(xv[i * inner] - maxValue);
      const float shift = maxValue + logf(sum);
      for (int64_t i = 0; i < axisLen; ++i)
        yv[i * inner] = xv[i * inner] - shift;
    } else {
      const float scale = 1.0f / exponentiateShifted(xv, yv, axisLen, inner, maxValue);
      scaleRow(yv, axisLen, inner, scale);
    }
  }
}

// LayerNormalization of rows of `cols` elements; a task is a row:
//   mean = sum(x) / cols; var = sum((x - mean)^2) / cols
//   y = (x - mean) / sqrt(var + eps) * scale + bias
// scale/bias have `cols` elements, or 1 when their stride is 0. mean and
// invStdDev (optional outputs) get one value per row.
CUVIL_KERNEL void cuvil_layernorm_f32(const float *x, const float *scale, const float *bias,
                                      float *y, float *meanOut, float *invStdOut, int64_t cols,
                                      float epsilon, int64_t scaleStride, int64_t biasStride,
                                      int64_t begin, int64_t end) {
  for (int64_t row = begin; row < end; ++row) {
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    float sum = 0.0f;
    for (int64_t i = 0; i < cols; ++i)
      sum += xr[i];
    const float mean = sum / float(cols);
    float squares = 0.0f;
    for (int64_t i = 0; i < cols; ++i)
      squares += (xr[i] - mean) * (xr[i] - mean);
    const float invStd = 1.0f / __builtin_sqrtf(squares / float(cols) + epsilon);
    {
#pragma clang fp reassociate(off) // else (x - mean) * (1 / s) becomes a divide per element
      for (int64_t i = 0; i < cols; ++i) {
        float normalized = (xr[i] - mean) * invStd * scale[i * scaleStride];
        yr[i] = bias ? normalized + bias[i * biasStride] : normalized;
      }
    }
    if (meanOut)
      meanOut[row] = mean;
    if (invStdOut)
      invStdOut[row] = invStd;
  }
}

// LRN, a task per (n, c) plane, `T` lanes of its S pixels at a time:
//   sum = the squares of x[n, k, s] over the window's channels k
//   y[n, c, s] = x[n, c, s] * exp(-beta * log(bias + scale * sum))
template <typename T>
CUVIL_INLINE void lrnPixels(const float *x, float *y, const cuvil_lrn_params *p, int64_t plane,
                            int64_t from, int64_t to, int64_t s) {
  const int64_t S = p->spatial;
  T sum = T(0.0f);
  for (int64_t k = from; k <= to; ++k) {
    const T v = loadV<T>(x + k * S + s);
    sum += v * v;
  }
  const T base = p->bias + p->scale * sum;
  const T value = loadV<T>(x + plane * S + s);
  storeV<T>(y + plane * S + s, value * expf(-p->beta * logf(base)));
}

CUVIL_KERNEL void cuvil_lrn_f32(const float *x, float *y, const cuvil_lrn_params *p, int64_t begin,
                                int64_t end) {
  const int64_t C = p->channels, S = p->spatial;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t n = task / C, c = task % C;
    const int64_t from = c - p->before < 0 ? 0 : c - p->before;
    const int64_t to = c + p->after >= C ? C - 1 : c + p->after;
    const float *xn = x + n * C * S;
    float *yn = y + n * C * S;
    int64_t s = 0;
    for (; s + 16 <= S; s += 16)
      lrnPixels<v16>(xn, yn, p, c, from, to, s);
    for (; s < S; ++s)
      lrnPixels<float>(xn, yn, p, c, from, to, s);
  }
}
