/* Signal processing kernels (src/kernels/Signal.cpp): batched FFTs for DFT
 * and STFT, window functions and the mel filter bank. */
#ifndef CUVIL_KERNELS_SIGNAL_H
#define CUVIL_KERNELS_SIGNAL_H

#include "cuvil/kernels/Common.h"

/* At most this many radix stages (a length up to 2^32 in radix-2 steps). */
#define CUVIL_FFT_MAX_STAGES 32
/* Transforms computed side by side, one per vector lane, by element type. */
#define CUVIL_FFT_LANES_F32 8
#define CUVIL_FFT_LANES_F64 4

/* Transforms of length `length` along one axis, a batch of
 * outer x frames x inner of them. Signal x is [outer, signal_len, inner,
 * channels] (channels 1: real, 2: complex); transform (o, f, i) reads
 * `samples` values from x[o, f * frame_step + j, i, :], j < samples, each
 * times window[j] when there is a window, zero-padded to `length`. y is
 * [outer, frames, bins, inner, 2]: the first `bins` outputs, times
 * 1 / length when scale_by_length.
 *
 *   for each lane group of transforms (a task's share of `groups`):
 *     A = gather(x) * window, zero-padded          lanes side by side
 *     for each stage s (radix p, sub-length n, stride m = n / p, step t):
 *       for r < m, q < t:                           Stockham, out of place
 *         a_j = A[q + t (r + j m)]                  j < p
 *         B[q + t (p r + k)] = w_n^(r k) sum_j a_j w_p^(j k)
 *       swap A, B
 *     y = scale * A[k], k < bins
 *
 * The stages run over fft_length: `length`, or with packed_real (a real
 * signal of even length) half of it, the even samples as real parts and
 * the odd ones as imaginary parts, unpacked at the end. `twiddles` holds,
 * per stage, the p roots w_p^j then the m (p - 1) factors w_n^(r k),
 * k >= 1, and when packed the factors w_length^k, k <= fft_length, all
 * (re, im) pairs whose signs give the direction. Radix 2, 3, 4 and 5
 * butterflies are written out; any other radix (a prime) sums its p terms
 * directly. `lanes` is the vector width or 1 (fewer transforms than
 * lanes); `tasks` splits the groups, each task with its scratch slot of
 * 4 * length * lanes elements. */
struct cuvil_fft_params {
  int64_t outer, frames, inner, channels;
  int64_t signal_len, frame_step, samples, length;
  int64_t bins, lanes, groups, tasks;
  int64_t fft_length, packed_real;
  int64_t stages, scale_by_length;
  int64_t radix[CUVIL_FFT_MAX_STAGES];
};
#define CUVIL_FFT_TYPES(X) X(f32, float) X(f64, double)
#define CUVIL_DECLARE_FFT(name, T)                                                                 \
  CUVIL_KERNEL_DECL void cuvil_fft_##name(const T *x, const T *window, const T *twiddles, T *y,    \
                                          T *scratch, const struct cuvil_fft_params *p,            \
                                          int64_t begin, int64_t end);
CUVIL_FFT_TYPES(CUVIL_DECLARE_FFT)

/* A generalised cosine window of `size` points:
 *   y[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)
 * with N = size (periodic) or size - 1 (symmetric). A task per block of
 * CUVIL_WINDOW_BLOCK points. */
#define CUVIL_WINDOW_BLOCK 1024
struct cuvil_window_params {
  int64_t size, periodic;
  float a0, a1;
  float a2, unused;
};
#define CUVIL_WINDOW_TYPES(X) X(f32, float) X(f64, double)
#define CUVIL_DECLARE_WINDOW(name, T)                                                              \
  CUVIL_KERNEL_DECL void cuvil_window_##name(T *y, const struct cuvil_window_params *p,            \
                                             int64_t begin, int64_t end);
CUVIL_WINDOW_TYPES(CUVIL_DECLARE_WINDOW)

/* MelWeightMatrix: y is [dft_length / 2 + 1, mel_bins], zero but for one
 * triangle per column. The band edges are mel_bins + 2 points equally
 * spaced in mel(f) = 2595 log10(1 + f / 700) from *lower_hz on, by
 * (mel(*upper_hz) - mel(*lower_hz)) / (mel_bins + 2), each as the
 * spectrogram bin floor((dft_length + 1) f / *sample_rate); column i rises
 * linearly from 0 at edge i to 1 at edge i + 1 and falls back to 0 at edge
 * i + 2, all in double. An edge outside the spectrogram raises check 1
 * with the bin. One task. By sample rate, frequency and output type. */
struct cuvil_mel_params {
  int64_t mel_bins, dft_length;
};
#define CUVIL_MEL_TYPES(X)                                                                         \
  X(i32_f32_f32, int32_t, float, float)                                                            \
  X(i64_f32_f32, int64_t, float, float)                                                            \
  X(i32_f64_f32, int32_t, double, float)                                                           \
  X(i64_f64_f32, int64_t, double, float)                                                           \
  X(i32_f32_f64, int32_t, float, double)                                                           \
  X(i64_f32_f64, int64_t, float, double)                                                           \
  X(i32_f64_f64, int32_t, double, double) X(i64_f64_f64, int64_t, double, double)
#define CUVIL_DECLARE_MEL(name, R, F, T)                                                           \
  CUVIL_KERNEL_DECL void cuvil_mel_weights_##name(                                                 \
      const R *sample_rate, const F *lower_hz, const F *upper_hz, T *y, int64_t *error,            \
      const struct cuvil_mel_params *p, int64_t begin, int64_t end);
CUVIL_MEL_TYPES(CUVIL_DECLARE_MEL)

#endif /* CUVIL_KERNELS_SIGNAL_H */
