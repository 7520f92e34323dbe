// TfIdfVectorizer, a task per row r of x:
//   y[r, :] = 0
//   for d = 1 .. max_skip + 1:                  (the step between an n-gram's items)
//     for n = (d == 1 ? min_gram : max(min_gram, 2)) .. max_gram:   (unigrams once)
//       for s with s + (n - 1) d < columns:
//         for each pool n-gram g: if x[r, s + i d] == g[i] for i < n: y[r, column(g)] += 1
//   y[r, o] = TF: y[r, o]; IDF: (y[r, o] > 0 ? w[o] : 0); TFIDF: y[r, o] w[o]
// (w = 1 without weights). A pool n-gram is matched by a scan of the pool's
// n-grams of its length, which real vocabularies keep short per length.
#include "KernelSupport.h"

#include "cuvil/kernels/TfIdf.h"

namespace {

template <typename T>
CUVIL_INLINE void tfidf(const T *x, const int64_t *pool, const int64_t *indexes,
                        const float *weights, float *y, const cuvil_tfidf_params &p, int64_t begin,
                        int64_t end) {
  for (int64_t row = begin; row < end; ++row) {
    const T *tokens = x + row * p.columns;
    float *out = y + row * p.outputs;
    for (int64_t o = 0; o < p.outputs; ++o)
      out[o] = 0.0f;
    for (int64_t d = 1; d <= p.max_skip + 1; ++d) {
      int64_t shortest = d == 1 || p.min_gram > 1 ? p.min_gram : 2;
      for (int64_t n = shortest; n <= p.max_gram; ++n) {
        const int64_t *grams = pool + p.gram_first[n - 1];
        const int64_t *columns = indexes + p.index_first[n - 1];
        for (int64_t s = 0; s + (n - 1) * d < p.columns; ++s)
          for (int64_t g = 0; g < p.gram_count[n - 1]; ++g) {
            bool match = true;
            for (int64_t i = 0; i < n && match; ++i)
              match = int64_t(tokens[s + i * d]) == grams[g * n + i];
            if (match)
              out[columns[g]] += 1.0f;
          }
      }
    }
    for (int64_t o = 0; o < p.outputs; ++o) {
      float weight = p.weighted ? weights[o] : 1.0f;
      if (p.mode == CUVIL_TFIDF_IDF)
        out[o] = out[o] > 0.0f ? weight : 0.0f;
      else if (p.mode == CUVIL_TFIDF_TFIDF)
        out[o] *= weight;
    }
  }
}

} // namespace

#define CUVIL_DEFINE_TFIDF(name, T)                                                                \
  CUVIL_KERNEL void cuvil_tfidf_##name(const T *x, const int64_t *pool, const int64_t *indexes,    \
                                       const float *weights, float *y,                             \
                                       const cuvil_tfidf_params *p, int64_t begin, int64_t end) {  \
    tfidf<T>(x, pool, indexes, weights, y, *p, begin, end);                                        \
  }
CUVIL_TFIDF_TYPES(CUVIL_DEFINE_TFIDF)
