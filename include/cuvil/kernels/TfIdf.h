/* TfIdfVectorizer over integer tokens (src/kernels/TfIdf.cpp, whose header
 * gives the loop nest): each row of x, [rows, columns], counts the pool's
 * n-grams it holds (skipping up to max_skip tokens between an n-gram's
 * items) into its row of y, [rows, outputs], then weighs the counts. */
#ifndef CUVIL_KERNELS_TFIDF_H
#define CUVIL_KERNELS_TFIDF_H

#include "cuvil/kernels/Common.h"

/* The longest n-gram the kernel matches. */
#define CUVIL_TFIDF_MAX_GRAM 8

enum cuvil_tfidf_mode { CUVIL_TFIDF_TF = 1, CUVIL_TFIDF_IDF = 2, CUVIL_TFIDF_TFIDF = 3 };

struct cuvil_tfidf_params {
  int64_t rows, columns, outputs;
  int64_t min_gram, max_gram, max_skip;
  int64_t mode;     /* cuvil_tfidf_mode */
  int64_t weighted; /* weights holds one per output (else every weight is 1) */
  /* The pool's n-grams of length n (index n - 1): gram_count[n-1] of them,
   * their items from pool[gram_first[n-1]] on (n each), their output
   * columns from indexes[index_first[n-1]] on. */
  int64_t gram_count[CUVIL_TFIDF_MAX_GRAM];
  int64_t gram_first[CUVIL_TFIDF_MAX_GRAM];
  int64_t index_first[CUVIL_TFIDF_MAX_GRAM];
};
/* By token type (name, C type); a task is a row. */
#define CUVIL_TFIDF_TYPES(X) X(i32, int32_t) X(i64, int64_t)
#define CUVIL_DECLARE_TFIDF(name, T)                                                               \
  CUVIL_KERNEL_DECL void cuvil_tfidf_##name(                                                       \
      const T *x, const int64_t *pool, const int64_t *indexes, const float *weights, float *y,     \
      const struct cuvil_tfidf_params *p, int64_t begin, int64_t end);
CUVIL_TFIDF_TYPES(CUVIL_DECLARE_TFIDF)

#endif /* CUVIL_KERNELS_TFIDF_H */
