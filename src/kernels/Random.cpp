// Random numbers from Philox4x32-10 (include/cuvil/kernels/Random.h).
//
//   key     = seeded ? seed : instance seed                  (two 32-bit words)
//   counter = (i low, i high, stream ^ (stream >> 32), runs) (four 32-bit words)
//   words   = 10 rounds of: (c0, c1, c2, c3) -> (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2),
//                                                hi(M0 c0) ^ c3 ^ k1, lo(M0 c0)),
//             the key bumped by the Weyl constants between rounds
// checked against Random123's known answers by tests/e2e/test_random.py's
// reference implementation, which the kernels' outputs match.
#include "ElementCodec.h"
#include "KernelSupport.h"

#include "cuvil/kernels/Random.h"

using namespace cuvil::kernels;

namespace {

struct Words {
  uint32_t w[4];
};

CUVIL_INLINE Words philox(uint64_t key, uint64_t index, uint64_t stream, uint64_t run) {
  constexpr uint64_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c0 = uint32_t(index), c1 = uint32_t(index >> 32);
  uint32_t c2 = uint32_t(stream ^ (stream >> 32)), c3 = uint32_t(run);
  uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round) {
      k0 += kW0;
      k1 += kW1;
    }
    uint64_t p0 = kM0 * c0, p1 = kM1 * c2;
    uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0, n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c1 = uint32_t(p1);
    c3 = uint32_t(p0);
    c0 = n0;
    c2 = n2;
  }
  return {{c0, c1, c2, c3}};
}

// The key and run of a node's draws.
struct Draw {
  uint64_t key, stream, run;
};
CUVIL_INLINE Draw drawOf(const cuvil_random_state *state, const cuvil_random_params *p) {
  return {p->seeded ? uint64_t(p->seed) : state->instance_seed, uint64_t(p->stream), state->runs};
}

// The top 24 bits of a word over 2^24: [0, 1), every value exact in f32.
CUVIL_INLINE float unit(uint32_t word) { return float(word >> 8) * 0x1p-24f; }

CUVIL_INLINE float sample(const Draw &draw, const cuvil_random_params *p, int64_t i) {
  Words words = philox(draw.key, uint64_t(i), draw.stream, draw.run);
  if (p->distribution == CUVIL_RANDOM_UNIFORM)
    return p->a + (p->b - p->a) * unit(words.w[0]);
  float u1 = 1.0f - unit(words.w[0]); // (0, 1]: its log is finite
  float u2 = unit(words.w[1]);
  return p->a +
         p->b * __builtin_elementwise_sqrt(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

template <int C, typename T>
CUVIL_INLINE void fill(T *y, const cuvil_random_state *state, const cuvil_random_params *p,
                       int64_t begin, int64_t end) {
  Draw draw = drawOf(state, p);
  for (int64_t i = begin; i < end; ++i)
    y[i] = encodeElement<C, T>(sample(draw, p, i));
}

template <typename I>
CUVIL_INLINE void multinomial(const float *logits, I *y, const cuvil_random_state *state,
                              const cuvil_multinomial_params *p, int64_t begin, int64_t end) {
  Draw draw = drawOf(state, &p->random);
  const int64_t classes = p->classes, samples = p->samples;
  for (int64_t b = begin; b < end; ++b) {
    const float *row = logits + b * classes;
    float top = row[0];
    for (int64_t c = 1; c < classes; ++c)
      top = maxf(top, row[c]);
    float total = 0;
    for (int64_t c = 0; c < classes; ++c)
      total += expf(row[c] - top);
    for (int64_t s = 0; s < samples; ++s) {
      float target = sample(draw, &p->random, b * samples + s) * total, sum = 0;
      int64_t chosen = classes - 1;
      for (int64_t c = 0; c < classes; ++c) {
        sum += expf(row[c] - top);
        if (sum > target) {
          chosen = c;
          break;
        }
      }
      y[b * samples + s] = I(chosen);
    }
  }
}

} // namespace

CUVIL_KERNEL void cuvil_random_f32(float *y, const cuvil_random_state *state,
                                   const cuvil_random_params *p, int64_t begin, int64_t end) {
  fill<kNative>(y, state, p, begin, end);
}
CUVIL_KERNEL void cuvil_random_f64(double *y, const cuvil_random_state *state,
                                   const cuvil_random_params *p, int64_t begin, int64_t end) {
  fill<kNative>(y, state, p, begin, end);
}
CUVIL_KERNEL void cuvil_random_f16(uint16_t *y, const cuvil_random_state *state,
                                   const cuvil_random_params *p, int64_t begin, int64_t end) {
  fill<kHalf>(y, state, p, begin, end);
}

CUVIL_KERNEL void cuvil_multinomial_i32(const float *logits, int32_t *y,
                                        const cuvil_random_state *state,
                                        const cuvil_multinomial_params *p, int64_t begin,
                                        int64_t end) {
  multinomial(logits, y, state, p, begin, end);
}
CUVIL_KERNEL void cuvil_multinomial_i64(const float *logits, int64_t *y,
                                        const cuvil_random_state *state,
                                        const cuvil_multinomial_params *p, int64_t begin,
                                        int64_t end) {
  multinomial(logits, y, state, p, begin, end);
}
