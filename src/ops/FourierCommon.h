// Shared by DFT, STFT and cuvil.FFT, the one form canonicalize gives both:
// a batch of Fourier transforms along one axis of a real or complex signal,
// its shape rule, its reference and the FFT plan the kernel follows.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

// The signal as [outer, signalLen, inner, channels] (channels 1: real, 2:
// complex) around the transform axis. Each transform reads `samples`
// values from its start, zero-padded to `length`: a DFT one per (outer,
// inner), min(signalLen, length) values; an STFT (frameStep > 0) `frames`
// of them per outer row, `length` values every frameStep samples. The
// result keeps the first `bins` outputs: [..., bins, ..., 2] for a DFT,
// [..., frames, bins, ..., 2] for an STFT.
struct TransformGeometry {
  Dim outer, signalLen, inner;
  int64_t channels = 1, length = 1, frameStep = 0, bins = 1;
  Dim frames = 1, samples;
  Shape output;
  Dim transforms() const { return outer * frames * inner; }
};

// A one-element integer input known at compile time (a constant, or fixed
// by --value): a transform length, axis or frame step.
Expected<int64_t> knownScalar(const Node &node, size_t input, const char *what);

// The geometry of transforms of `length` along `axis` (in [0, rank - 1) of
// `signal`, which ends in its channels); frameStep 0 for a DFT. An STFT's
// signal may also be [batch, samples], real.
Expected<TransformGeometry> transformGeometry(const Shape &signal, int64_t axis, int64_t length,
                                              int64_t frameStep, bool onesided);

// The transforms of a constant signal, in double: y[k] = scale sum_j
// x[j] window[j] e^(-+2 pi i j k / length), scale 1 / length when inverse.
void evalTransform(const TransformGeometry &g, const Tensor &x, const Tensor *window, bool inverse,
                   Tensor &y);

// The FFT plan the kernel follows for transforms of `length`: a real
// signal of even length runs as a complex one of half the length (even
// samples real, odd ones imaginary), unpacked with length / 2 + 1 more
// twiddles. The radices of the FFT's length (4s, 2s, then odd primes
// ascending), and the table of roots and twiddle factors, in the element
// type (see cuvil_fft_params).
struct FftPlan {
  int64_t length;
  bool packedReal;
  int64_t fftLength() const { return packedReal ? length / 2 : length; }
  std::vector<int64_t> radices() const;
  int64_t twiddleCount() const; // elements
  Tensor twiddles(bool inverse, DType dtype) const;
};
FftPlan fftPlan(int64_t length, bool realSignal);

} // namespace cuvil::ops
