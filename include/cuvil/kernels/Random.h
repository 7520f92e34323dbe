/* Random numbers: RandomUniform and RandomNormal (and their Like forms,
 * through which Bernoulli and training-mode Dropout draw), Multinomial
 * (src/kernels/Random.cpp).
 *
 * Every number comes from Philox4x32-10 (Salmon, Moraes, Dror, Shaw,
 * "Parallel random numbers: as easy as 1, 2, 3", SC'11), a counter-based
 * generator: the number of element i of a node's result is a function of
 * the key (a 64-bit seed) and the counter (i low, i high, the node's
 * stream, the run) alone, so it does not depend on how the elements are
 * split into tasks. A node with a seed draws the same numbers in every
 * instance (run r of one instance as run r of any other); one without
 * draws from the instance's seed, which the runtime takes from the
 * system's entropy. Each run draws anew. */
#ifndef CUVIL_KERNELS_RANDOM_H
#define CUVIL_KERNELS_RANDOM_H

#include "cuvil/kernels/Common.h"

/* The frame's random state (the cuvil_frame_header fields random_seed and
 * runs): the instance's seed, and the runs started so far, this one
 * included. */
struct cuvil_random_state {
  uint64_t instance_seed;
  uint64_t runs;
};

enum cuvil_random_distribution { CUVIL_RANDOM_UNIFORM = 0, CUVIL_RANDOM_NORMAL = 1 };

struct cuvil_random_params {
  int64_t seed;         /* the node's seed, when seeded */
  int64_t seeded;       /* 0: the instance's seed instead */
  int64_t stream;       /* which of the model's random nodes */
  int64_t distribution; /* cuvil_random_distribution */
  float a, b;           /* uniform: low, high; normal: mean, scale */
};

/* y[i] for i in [begin, end): uniform, low + (high - low) u with u the top
 * 24 bits of the counter's first word over 2^24 (so in [0, 1)); normal,
 * mean + scale sqrt(-2 ln u1) cos(2 pi u2) (Box-Muller) with u1 in (0, 1]
 * and u2 in [0, 1) from its first two words. Stored as f32, f64 or f16. */
CUVIL_KERNEL_DECL void cuvil_random_f32(float *y, const struct cuvil_random_state *state,
                                        const struct cuvil_random_params *p, int64_t begin,
                                        int64_t end);
CUVIL_KERNEL_DECL void cuvil_random_f64(double *y, const struct cuvil_random_state *state,
                                        const struct cuvil_random_params *p, int64_t begin,
                                        int64_t end);
CUVIL_KERNEL_DECL void cuvil_random_f16(uint16_t *y, const struct cuvil_random_state *state,
                                        const struct cuvil_random_params *p, int64_t begin,
                                        int64_t end);

/* Multinomial: row b of logits [batch, classes] (unnormalised log
 * probabilities) gets `samples` class indices y[b, s], each the first class
 * whose cumulative probability (softmax of the row, summed in order)
 * exceeds a uniform number in [0, 1): element b * samples + s's, as
 * cuvil_random draws it (the last class when rounding leaves none). A task
 * is one row. */
struct cuvil_multinomial_params {
  int64_t classes, samples;
  struct cuvil_random_params random; /* distribution: uniform, in [0, 1) */
};
CUVIL_KERNEL_DECL void cuvil_multinomial_i32(const float *logits, int32_t *y,
                                             const struct cuvil_random_state *state,
                                             const struct cuvil_multinomial_params *p,
                                             int64_t begin, int64_t end);
CUVIL_KERNEL_DECL void cuvil_multinomial_i64(const float *logits, int64_t *y,
                                             const struct cuvil_random_state *state,
                                             const struct cuvil_multinomial_params *p,
                                             int64_t begin, int64_t end);

#endif /* CUVIL_KERNELS_RANDOM_H */
