#include "FourierCommon.h"

#include <cmath>
#include <numbers>

namespace cuvil::ops {

Expected<int64_t> knownScalar(const Node &node, size_t input, const char *what) {
  Expected<std::vector<int64_t>> values = constantInts(node, input, what);
  CUVIL_TRY(values.status());
  if (values->size() != 1)
    return Status::error(fmt::format("{} must be a scalar, has {} elements", what, values->size()));
  return values->front();
}

Expected<TransformGeometry> transformGeometry(const Shape &given, int64_t axis, int64_t length,
                                              int64_t frameStep, bool onesided) {
  Shape signal = given;
  if (frameStep > 0 && signal.size() == 2)
    signal.push_back(1);
  int64_t rank = int64_t(signal.size());
  if (rank < 2)
    return Status::error(fmt::format("the signal [{}] needs a signal axis and a last dim of its "
                                     "real and imaginary parts",
                                     shapeToString(signal)));
  const Dim &channels = signal.back();
  if (!channels.is(1) && !channels.is(2))
    return Status::error(fmt::format("the last dim of the signal holds its real and imaginary "
                                     "parts: it must be 1 (real) or 2 (complex), is {}",
                                     channels));
  if (axis < 0 || axis >= rank - 1)
    return Status::error(
        fmt::format("axis {} is not a signal axis of [{}]", axis, shapeToString(signal)));
  if (length < 1)
    return Status::error(fmt::format("the transform length must be positive, is {}", length));
  TransformGeometry g;
  g.channels = channels.constant();
  g.length = length;
  g.frameStep = frameStep;
  g.bins = onesided ? length / 2 + 1 : length;
  g.outer = numElements(std::span(signal).first(size_t(axis)));
  g.signalLen = signal[size_t(axis)];
  g.inner = numElements(std::span(signal).subspan(size_t(axis) + 1, size_t(rank - axis - 2)));
  g.output.assign(signal.begin(), signal.begin() + axis);
  if (frameStep == 0) {
    g.samples = minDim(g.signalLen, length);
  } else {
    if (g.signalLen.min() < length)
      return Status::error(fmt::format("the signal has {}{} samples, fewer than the frame "
                                       "length {}",
                                       g.signalLen.isConstant() ? "" : "at least ",
                                       g.signalLen.min(), length));
    g.samples = length;
    g.frames = floorDiv(g.signalLen - length, frameStep) + 1;
    g.output.push_back(g.frames);
  }
  g.output.push_back(g.bins);
  g.output.insert(g.output.end(), signal.begin() + axis + 1, signal.end() - 1);
  g.output.push_back(2);
  return g;
}

void evalTransform(const TransformGeometry &g, const Tensor &x, const Tensor *window, bool inverse,
                   Tensor &y) {
  const int64_t outer = g.outer.constant(), n = g.signalLen.constant(), inner = g.inner.constant();
  const int64_t frames = g.frames.constant(), samples = g.samples.constant(), L = g.length;
  const int64_t C = g.channels;
  std::vector<double> cosines(static_cast<size_t>(L)), sines(static_cast<size_t>(L));
  for (int64_t j = 0; j < L; ++j) {
    double angle = 2 * std::numbers::pi * double(j) / double(L);
    cosines[size_t(j)] = std::cos(angle);
    sines[size_t(j)] = (inverse ? 1 : -1) * std::sin(angle);
  }
  const double scale = inverse ? 1.0 / double(L) : 1.0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t i = 0; i < inner; ++i)
        for (int64_t k = 0; k < g.bins; ++k) {
          double re = 0, im = 0;
          for (int64_t j = 0; j < samples; ++j) {
            int64_t at = ((o * n + f * g.frameStep + j) * inner + i) * C;
            double weight = window ? window->getDouble(j) : 1.0;
            double xr = x.getDouble(at) * weight, xi = C == 2 ? x.getDouble(at + 1) * weight : 0;
            size_t turn = size_t(j * k % L);
            re += xr * cosines[turn] - xi * sines[turn];
            im += xr * sines[turn] + xi * cosines[turn];
          }
          int64_t out = (((o * frames + f) * g.bins + k) * inner + i) * 2;
          y.setDouble(out, re * scale);
          y.setDouble(out + 1, im * scale);
        }
}

FftPlan fftPlan(int64_t length, bool realSignal) { return {length, realSignal && length % 2 == 0}; }

std::vector<int64_t> FftPlan::radices() const {
  std::vector<int64_t> radices;
  int64_t n = fftLength();
  for (int64_t radix : {4, 2})
    for (; n % radix == 0; n /= radix)
      radices.push_back(radix);
  for (int64_t prime = 3; n > 1; prime += 2)
    for (; n % prime == 0; n /= prime)
      radices.push_back(prime);
  return radices;
}

int64_t FftPlan::twiddleCount() const {
  int64_t count = packedReal ? 2 * (fftLength() + 1) : 0, n = fftLength();
  for (int64_t p : radices()) {
    n /= p;
    count += 2 * (p + n * (p - 1));
  }
  return count;
}

Tensor FftPlan::twiddles(bool inverse, DType dtype) const {
  std::vector<double> table;
  auto root = [&](int64_t turn, int64_t of) {
    double angle = 2 * std::numbers::pi * double(turn) / double(of);
    table.push_back(std::cos(angle));
    table.push_back((inverse ? 1 : -1) * std::sin(angle));
  };
  int64_t n = fftLength();
  for (int64_t p : radices()) {
    int64_t m = n / p;
    for (int64_t j = 0; j < p; ++j)
      root(j, p);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t k = 1; k < p; ++k)
        root(r * k % n, n);
    n = m;
  }
  for (int64_t k = 0; packedReal && k <= fftLength(); ++k)
    root(k, length);
  Tensor tensor(TensorType{dtype, {int64_t(table.size())}});
  for (size_t i = 0; i < table.size(); ++i)
    tensor.setDouble(int64_t(i), table[i]);
  return tensor;
}

} // namespace cuvil::ops
