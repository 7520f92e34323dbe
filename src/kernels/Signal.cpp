// Signal processing kernels.
//
// FFT (DFT, STFT): mixed-radix Stockham, out of place between the two
// halves of a task's scratch slot, so no bit reversal; `lanes` transforms
// at once, one per vector lane, every butterfly a vector operation on the
// same broadcast twiddle:
//   for group in the task's share of groups:
//     A[j] = lanes' x[o, f * frame_step + j, i, :] * window[j]   j < samples
//     A[j] = 0                                                    samples <= j < length
//     n = length, t = 1
//     for stage s: p = radix[s], m = n / p
//       for r < m, q < t: B[q + t (p r + k)] = w_n^(r k) DFT_p(A[q + t (r + j m)])_k
//       swap A, B; n = m; t *= p
//     y[o, f, k, i, :] = scale * A[k]   k < bins
// A complex element j of A is two vectors: the lanes' real parts at
// A + 2 j lanes, the imaginary parts after them. A real signal of even
// length runs as a complex one of half the length, A[j] = x[2j] + i x[2j+1],
// unpacked when it is stored (see `output`).
//
// Window: y[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), a block of
// points per task.
//
// Mel weights: the band edges e_0 .. e_{bins+1} as spectrogram bins, then
// column i: (j - e_i) / (e_{i+1} - e_i) for e_i <= j <= e_{i+1} (1 at e_{i+1}
// when the two coincide), (e_{i+2} - j) / (e_{i+2} - e_{i+1}) for
// e_{i+1} <= j < e_{i+2}; in double, with log and exp of its own.
#include "KernelSupport.h"

#include "cuvil/kernels/Signal.h"

namespace {

using namespace cuvil::kernels;

// G transforms side by side: a vector of G lanes, or the scalar.
template <typename T, int G> struct LaneType {
  typedef T type __attribute__((ext_vector_type(G)));
};
template <typename T> struct LaneType<T, 1> {
  using type = T;
};

#define CUVIL_MEMBER inline __attribute__((always_inline))
template <typename T, int G> struct Complex {
  using V = typename LaneType<T, G>::type;
  V re, im;
  CUVIL_MEMBER Complex operator+(Complex b) const { return {re + b.re, im + b.im}; }
  CUVIL_MEMBER Complex operator-(Complex b) const { return {re - b.re, im - b.im}; }
  // times the real c
  CUVIL_MEMBER Complex scaled(T c) const { return {re * c, im * c}; }
  // times i c
  CUVIL_MEMBER Complex rotated(T c) const { return {-im * c, re * c}; }
  // times the complex w (a twiddle)
  CUVIL_MEMBER Complex times(const T *w) const {
    return {re * w[0] - im * w[1], re * w[1] + im * w[0]};
  }
};

template <typename T, int G> CUVIL_INLINE Complex<T, G> loadComplex(const T *buffer, int64_t j) {
  Complex<T, G> c;
  __builtin_memcpy(&c.re, buffer + 2 * j * G, sizeof(c.re));
  __builtin_memcpy(&c.im, buffer + (2 * j + 1) * G, sizeof(c.im));
  return c;
}
template <typename T, int G> CUVIL_INLINE void storeComplex(T *buffer, int64_t j, Complex<T, G> c) {
  __builtin_memcpy(buffer + 2 * j * G, &c.re, sizeof(c.re));
  __builtin_memcpy(buffer + (2 * j + 1) * G, &c.im, sizeof(c.im));
}

// One Stockham stage of radix P (0: any odd prime p, summed directly):
// roots are w_p^j, factors w_n^(r k) for k = 1 .. p - 1 per r.
template <typename T, int G, int P>
CUVIL_TILE void fftStage(const T *in, T *out, const T *roots, const T *factors, int64_t p,
                         int64_t m, int64_t t) {
  using C = Complex<T, G>;
  for (int64_t r = 0; r < m; ++r) {
    const T *w = factors + 2 * r * (p - 1);
    for (int64_t q = 0; q < t; ++q) {
      auto a = [&](int64_t j) { return loadComplex<T, G>(in, q + t * (r + j * m)); };
      auto put = [&](int64_t k, C value) {
        storeComplex<T, G>(out, q + t * (p * r + k), k == 0 ? value : value.times(w + 2 * (k - 1)));
      };
      if constexpr (P == 2) {
        C a0 = a(0), a1 = a(1);
        put(0, a0 + a1);
        put(1, a0 - a1);
      } else if constexpr (P == 3) {
        C a0 = a(0), a1 = a(1), a2 = a(2);
        C mid = a0 + (a1 + a2).scaled(roots[2]), turn = (a1 - a2).rotated(roots[3]);
        put(0, a0 + a1 + a2);
        put(1, mid + turn);
        put(2, mid - turn);
      } else if constexpr (P == 4) {
        C a0 = a(0), a1 = a(1), a2 = a(2), a3 = a(3);
        C even = a0 + a2, odd = a1 + a3, u = a0 - a2, v = (a1 - a3).rotated(roots[3]);
        put(0, even + odd);
        put(1, u + v);
        put(2, even - odd);
        put(3, u - v);
      } else if constexpr (P == 5) {
        C a0 = a(0), t1 = a(1) + a(4), t2 = a(2) + a(3), d1 = a(1) - a(4), d2 = a(2) - a(3);
        T c1 = roots[2], s1 = roots[3], c2 = roots[4], s2 = roots[5];
        put(0, a0 + t1 + t2);
        C m1 = a0 + t1.scaled(c1) + t2.scaled(c2), n1 = d1.rotated(s1) + d2.rotated(s2);
        put(1, m1 + n1);
        put(4, m1 - n1);
        C m2 = a0 + t1.scaled(c2) + t2.scaled(c1), n2 = d1.rotated(s2) - d2.rotated(s1);
        put(2, m2 + n2);
        put(3, m2 - n2);
      } else {
        // b_k = a_0 + sum_{j <= p/2} c_jk (a_j + a_{p-j}) + i s_jk (a_j - a_{p-j}), and
        // b_{p-k} the same with -i: w_p^(jk) = c_jk + i s_jk.
        C sum = a(0);
        for (int64_t j = 1; j < p; ++j)
          sum = sum + a(j);
        put(0, sum);
        for (int64_t k = 1; k <= p / 2; ++k) {
          C even = a(0), odd = {};
          for (int64_t j = 1, jk = k; j <= p / 2; ++j, jk = jk + k >= p ? jk + k - p : jk + k) {
            C aj = a(j), ap = a(p - j);
            even = even + (aj + ap).scaled(roots[2 * jk]);
            odd = odd + (aj - ap).rotated(roots[2 * jk + 1]);
          }
          put(k, even + odd);
          put(p - k, even - odd);
        }
      }
    }
  }
}

// The lanes' transforms (o, f, i) of a group: where each reads and writes.
template <typename T, int G> struct LaneGroup {
  const T *source[G];
  T *target[G];
  int64_t lanes = 0;
};

template <typename T, int G>
CUVIL_INLINE LaneGroup<T, G> laneGroup(const T *x, T *y, const cuvil_fft_params *p, int64_t group) {
  LaneGroup<T, G> lg;
  const int64_t count = p->outer * p->frames * p->inner;
  for (int64_t g = 0; g < G && group * G + g < count; ++g, ++lg.lanes) {
    int64_t index = group * G + g, i = index % p->inner, of = index / p->inner;
    int64_t f = of % p->frames, o = of / p->frames;
    lg.source[g] = x + ((o * p->signal_len + f * p->frame_step) * p->inner + i) * p->channels;
    lg.target[g] = y + (of * p->bins * p->inner + i) * 2;
  }
  return lg;
}

// A[j] = the lanes' samples j (real and imaginary parts) times the window,
// zero from `samples` on; packed real signals: samples 2j and 2j + 1.
template <typename T, int G>
CUVIL_INLINE void gather(const LaneGroup<T, G> &lg, const T *window, T *a,
                         const cuvil_fft_params *p) {
  const int64_t stride = p->inner * p->channels, packed = p->packed_real;
  auto sample = [&](int64_t g, int64_t j, int64_t part) {
    T weight = window ? window[j] : T(1);
    return j < p->samples ? lg.source[g][j * stride + part] * weight : T(0);
  };
  for (int64_t j = 0; j < p->fft_length; ++j) {
    T re[G] = {}, im[G] = {};
    for (int64_t g = 0; g < lg.lanes; ++g) {
      re[g] = sample(g, packed ? 2 * j : j, 0);
      im[g] = packed ? sample(g, 2 * j + 1, 0) : p->channels == 2 ? sample(g, j, 1) : T(0);
    }
    __builtin_memcpy(a + 2 * j * G, re, sizeof(re));
    __builtin_memcpy(a + (2 * j + 1) * G, im, sizeof(im));
  }
}

// The Stockham stages over `a` and `b`; returns the buffer holding the
// result and moves `table` past the stages' twiddles.
template <typename T, int G>
CUVIL_INLINE T *stages(T *a, T *b, const T *&table, const cuvil_fft_params *p) {
  for (int64_t s = 0, n = p->fft_length, t = 1; s < p->stages; ++s) {
    int64_t radix = p->radix[s], m = n / radix;
    const T *factors = table + 2 * radix;
    switch (radix) {
    case 2:
      fftStage<T, G, 2>(a, b, table, factors, radix, m, t);
      break;
    case 3:
      fftStage<T, G, 3>(a, b, table, factors, radix, m, t);
      break;
    case 4:
      fftStage<T, G, 4>(a, b, table, factors, radix, m, t);
      break;
    case 5:
      fftStage<T, G, 5>(a, b, table, factors, radix, m, t);
      break;
    default:
      fftStage<T, G, 0>(a, b, table, factors, radix, m, t);
    }
    table = factors + 2 * m * (radix - 1);
    T *swap = a;
    a = b;
    b = swap;
    n = m;
    t *= radix;
  }
  return a;
}

// Output k of the transform in `z`. A packed real signal of length 2N has
// Z = FFT_N(even + i odd): its transform of even and odd samples are
// E = (Z[k] + conj Z[N - k]) / 2 and O = (Z[k] - conj Z[N - k]) / 2i, and
// X[k] = E + w^k O for k <= N (w^k from `post`), X[2N - k] = conj X[k].
template <typename T, int G>
CUVIL_INLINE Complex<T, G> output(const T *z, const T *post, int64_t k, const cuvil_fft_params *p) {
  if (!p->packed_real)
    return loadComplex<T, G>(z, k);
  const int64_t N = p->fft_length, at = k <= N ? k : 2 * N - k;
  Complex<T, G> zk = loadComplex<T, G>(z, at == N ? 0 : at);
  Complex<T, G> zn = loadComplex<T, G>(z, at == 0 ? 0 : N - at);
  Complex<T, G> even = {(zk.re + zn.re) * T(0.5), (zk.im - zn.im) * T(0.5)};
  Complex<T, G> odd = {(zk.im + zn.im) * T(0.5), (zn.re - zk.re) * T(0.5)};
  Complex<T, G> x = even + odd.times(post + 2 * at);
  return k <= N ? x : Complex<T, G>{x.re, -x.im};
}

template <typename T, int G>
CUVIL_INLINE void fftGroup(const T *x, const T *window, const T *twiddles, T *y, T *slot,
                           const cuvil_fft_params *p, int64_t group) {
  LaneGroup<T, G> lg = laneGroup<T, G>(x, y, p, group);
  T *a = slot, *b = slot + 2 * p->fft_length * G;
  gather<T, G>(lg, window, a, p);
  const T *table = twiddles;
  const T *z = stages<T, G>(a, b, table, p);
  const T scale = p->scale_by_length ? T(1) / T(p->length) : T(1);
  const int64_t stride = p->inner * 2;
  for (int64_t k = 0; k < p->bins; ++k) {
    Complex<T, G> value = output<T, G>(z, table, k, p).scaled(scale);
    T re[G], im[G];
    __builtin_memcpy(re, &value.re, sizeof(re));
    __builtin_memcpy(im, &value.im, sizeof(im));
    for (int64_t g = 0; g < lg.lanes; ++g) {
      lg.target[g][k * stride] = re[g];
      lg.target[g][k * stride + 1] = im[g];
    }
  }
}

template <typename T, int G>
CUVIL_INLINE void fftTasks(const T *x, const T *window, const T *twiddles, T *y, T *scratch,
                           const cuvil_fft_params *p, int64_t begin, int64_t end) {
  for (int64_t task = begin; task < end; ++task) {
    T *slot = scratch + task * 4 * p->length * p->lanes;
    int64_t first = task * p->groups / p->tasks, last = (task + 1) * p->groups / p->tasks;
    for (int64_t group = first; group < last; ++group)
      fftGroup<T, G>(x, window, twiddles, y, slot, p, group);
  }
}

template <typename T, int G>
CUVIL_INLINE void fft(const T *x, const T *window, const T *twiddles, T *y, T *scratch,
                      const cuvil_fft_params *p, int64_t begin, int64_t end) {
  if (p->lanes == G)
    fftTasks<T, G>(x, window, twiddles, y, scratch, p, begin, end);
  else
    fftTasks<T, 1>(x, window, twiddles, y, scratch, p, begin, end);
}

template <typename T>
CUVIL_INLINE void window(T *y, const cuvil_window_params *p, int64_t begin, int64_t end) {
  // N = 0 (one symmetric point) gives 0 * inf = nan, as ONNX Runtime does.
  float step = 6.28318530717958648f / float(p->periodic ? p->size : p->size - 1);
  int64_t stop = end * CUVIL_WINDOW_BLOCK < p->size ? end * CUVIL_WINDOW_BLOCK : p->size;
  for (int64_t n = begin * CUVIL_WINDOW_BLOCK; n < stop; ++n) {
    float angle = float(n) * step;
    y[n] = T(p->a0 - p->a1 * cosf(angle) + p->a2 * cosf(2.0f * angle));
  }
}

// log and exp in double for the mel scale: log(m 2^e) with m in
// [sqrt(1/2), sqrt(2)) as 2 atanh((m - 1) / (m + 1)) by its series; exp as
// 2^n e^r with |r| <= ln2 / 2 by Taylor's.
constexpr double kLn2 = 0.69314718055994530942, kLn10 = 2.30258509299404568402;
CUVIL_INLINE double logDouble(double x) {
  uint64_t bits = bitCast<uint64_t>(x);
  int64_t e = int64_t((bits >> 52) & 0x7ff) - 1023;
  double m = bitCast<double>((bits & 0xfffffffffffffull) | 0x3ff0000000000000ull);
  if (m > 1.41421356237309504880) {
    m *= 0.5;
    ++e;
  }
  double s = (m - 1) / (m + 1), s2 = s * s, term = s, sum = 0;
  for (int k = 1; k < 30; k += 2, term *= s2)
    sum += term / k;
  double result = double(e) * kLn2 + 2 * sum;
  return x > 0 ? result : (x == 0 ? -__builtin_inf() : __builtin_nan(""));
}
CUVIL_INLINE double expDouble(double x) {
  if (!(x < 709.0))
    return x != x ? x : __builtin_inf();
  if (x < -708.0)
    return 0;
  double n = __builtin_roundeven(x / kLn2);
  double r = (x - n * 0.693147180369123816490) - n * 1.90821492927058770002e-10;
  double term = 1, sum = 1;
  for (int k = 1; k < 16; ++k) {
    term *= r / k;
    sum += term;
  }
  return sum * bitCast<double>(uint64_t(int64_t(n) + 1023) << 52);
}
CUVIL_INLINE double melOfHertz(double hz) { return 2595 * logDouble(1 + hz / 700) / kLn10; }
CUVIL_INLINE double hertzOfMel(double mel) { return 700 * (expDouble(mel / 2595 * kLn10) - 1); }

template <typename R, typename F, typename T>
CUVIL_INLINE void melWeights(const R *sampleRate, const F *lowerHz, const F *upperHz, T *y,
                             int64_t *error, const cuvil_mel_params *p) {
  const int64_t bins = p->mel_bins, spectrum = p->dft_length / 2 + 1;
  for (int64_t i = 0; i < spectrum * bins; ++i)
    y[i] = T(0);
  double low = melOfHertz(double(*lowerHz)), high = melOfHertz(double(*upperHz));
  double step = (high - low) / double(bins + 2);
  // The spectrogram bin of band edge e, or -1 (after raising) outside it.
  auto edge = [&](int64_t e) -> int64_t {
    double hz = hertzOfMel(low + double(e) * step);
    double at = __builtin_floor(double(p->dft_length + 1) * hz / double(*sampleRate));
    if (!(at >= 0 && at < double(spectrum))) {
      raiseError(error, 1, at == at && __builtin_fabs(at) < 9e18 ? int64_t(at) : -1);
      return -1;
    }
    return int64_t(at);
  };
  int64_t left = edge(0), center = edge(1);
  for (int64_t i = 0; i < bins && left >= 0 && center >= 0; ++i) {
    int64_t right = edge(i + 2);
    if (right < 0)
      return;
    if (center == left)
      y[center * bins + i] = T(1);
    for (int64_t j = left; j <= center && center != left; ++j)
      y[j * bins + i] = T(double(j - left) / double(center - left));
    for (int64_t j = center; j < right; ++j)
      y[j * bins + i] = T(double(right - j) / double(right - center));
    left = center;
    center = right;
  }
}

} // namespace

#define CUVIL_DEFINE_FFT(name, T)                                                                  \
  CUVIL_KERNEL void cuvil_fft_##name(const T *x, const T *window, const T *twiddles, T *y,         \
                                     T *scratch, const cuvil_fft_params *p, int64_t begin,         \
                                     int64_t end) {                                                \
    fft<T, sizeof(T) == 4 ? CUVIL_FFT_LANES_F32 : CUVIL_FFT_LANES_F64>(x, window, twiddles, y,     \
                                                                       scratch, p, begin, end);    \
  }
CUVIL_FFT_TYPES(CUVIL_DEFINE_FFT)

#define CUVIL_DEFINE_WINDOW(name, T)                                                               \
  CUVIL_KERNEL void cuvil_window_##name(T *y, const cuvil_window_params *p, int64_t begin,         \
                                        int64_t end) {                                             \
    window<T>(y, p, begin, end);                                                                   \
  }
CUVIL_WINDOW_TYPES(CUVIL_DEFINE_WINDOW)

#define CUVIL_DEFINE_MEL(name, R, F, T)                                                            \
  CUVIL_KERNEL void cuvil_mel_weights_##name(const R *sample_rate, const F *lower_hz,              \
                                             const F *upper_hz, T *y, int64_t *error,              \
                                             const cuvil_mel_params *p, int64_t, int64_t) {        \
    melWeights<R, F, T>(sample_rate, lower_hz, upper_hz, y, error, p);                             \
  }
CUVIL_MEL_TYPES(CUVIL_DEFINE_MEL)
