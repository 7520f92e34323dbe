// TopK, a task per line (o, i), with the outputs' k slots of the line as
// the heap (no scratch): slot 0 holds the worst element kept. An element is
// ranked by (key, index): the key an integer of the element's size whose
// order is the ranking's (the larger key first: the value for largest,
// its complement for smallest; a float's NaN above every number, -0 equal
// to 0), the smaller index first among equal keys, so that no comparison
// branches on the data. The values' slots hold the keys until the end.
//   n = 0
//   for a in [0, axis_dim): c = (key(x[o, a, i]), a)
//     if n < k: push c                      (a hole sifted up)
//     elif key(c) > key(slot 0): slot 0 = c (a hole sifted down; an equal
//                                           key has a larger index: worse)
//   heap sort in place: the worst to the end, its slot's element sifted
//   down from the root; the slots end best first
//   values[o, j, i] = x[o, indices[o, j, i], i]   (NaN payloads and -0 as given)
#include "KernelSupport.h"

#include "cuvil/kernels/Reduce.h"

namespace {

template <typename T> struct RankKey;
// A float's bits as a signed integer order the positive floats; negative
// ones with their magnitude bits flipped come below, in order.
template <typename F, typename Bits> struct FloatRankKey {
  using Type = Bits;
  static Type of(F v) {
    constexpr Bits kHighest = Bits(~(Bits(1) << (sizeof(Bits) * 8 - 1)));
    Bits bits = __builtin_bit_cast(Bits, v);
    Bits ordered = bits < 0 ? Bits(bits ^ kHighest) : bits;
    return v != v ? kHighest : v == F(0) ? Bits(0) : ordered;
  }
};
template <> struct RankKey<float> : FloatRankKey<float, int32_t> {};
template <> struct RankKey<double> : FloatRankKey<double, int64_t> {};
// Signed integers are their own keys; unsigned ones with the top bit flipped.
template <typename T, typename Signed> struct IntegerRankKey {
  using Type = Signed;
  static Type of(T v) {
    if constexpr (T(-1) > T(0))
      return Signed(v ^ (T(1) << (sizeof(T) * 8 - 1)));
    else
      return v;
  }
};
template <> struct RankKey<int8_t> : IntegerRankKey<int8_t, int8_t> {};
template <> struct RankKey<uint8_t> : IntegerRankKey<uint8_t, int8_t> {};
template <> struct RankKey<int32_t> : IntegerRankKey<int32_t, int32_t> {};
template <> struct RankKey<int64_t> : IntegerRankKey<int64_t, int64_t> {};
template <> struct RankKey<uint64_t> : IntegerRankKey<uint64_t, int64_t> {};

template <typename T> struct TopKHeap {
  using Key = typename RankKey<T>::Type;
  typedef Key __attribute__((may_alias)) AliasedKey; // written over the values' slots
  AliasedKey *keys;
  int64_t *indices;
  int64_t stride;

  // Whether (k, a) ranks after (l, b): the heap keeps the worst on top.
  static bool after(Key k, int64_t a, Key l, int64_t b) { return (k < l) | ((k == l) & (a > b)); }
  Key keyAt(int64_t s) const { return keys[s * stride]; }
  int64_t indexAt(int64_t s) const { return indices[s * stride]; }
  void put(int64_t s, Key k, int64_t a) {
    keys[s * stride] = k;
    indices[s * stride] = a;
  }
  void moveTo(int64_t s, int64_t from) { put(s, keyAt(from), indexAt(from)); }
  // (k, a) into the hole at s of heap [0, n): children that rank after it
  // move up.
  void siftDown(int64_t s, int64_t n, Key k, int64_t a) {
    for (int64_t child; (child = 2 * s + 1) < n; s = child) {
      if (child + 1 < n &&
          after(keyAt(child + 1), indexAt(child + 1), keyAt(child), indexAt(child)))
        ++child; // the worse child
      if (!after(keyAt(child), indexAt(child), k, a))
        break;
      moveTo(s, child);
    }
    put(s, k, a);
  }
  // (k, a) into the hole at s: parents that rank before it move down.
  void siftUp(int64_t s, Key k, int64_t a) {
    while (s > 0) {
      int64_t parent = (s - 1) / 2;
      if (!after(k, a, keyAt(parent), indexAt(parent)))
        break;
      moveTo(s, parent);
      s = parent;
    }
    put(s, k, a);
  }
};

template <typename T>
CUVIL_INLINE void topK(const T *x, T *values, int64_t *indices, int64_t *error,
                       const cuvil_topk_params *p, int64_t begin, int64_t end) {
  using Key = typename RankKey<T>::Type;
  int64_t k = p->k, inner = p->inner, axisDim = p->axis_dim;
  if (k > axisDim) {
    cuvil::kernels::raiseError(error, 1, k);
    return;
  }
  if (k == 0)
    return;
  // The complement reverses a two's-complement order.
  const Key flip = p->largest ? Key(0) : Key(~Key(0));
  for (int64_t e = begin; e < end; ++e) {
    int64_t o = e / inner, i = e % inner;
    const T *line = x + o * axisDim * inner + i;
    T *lineValues = values + o * k * inner + i;
    TopKHeap<T> heap{reinterpret_cast<typename TopKHeap<T>::AliasedKey *>(lineValues),
                     indices + o * k * inner + i, inner};
    for (int64_t a = 0; a < k; ++a)
      heap.siftUp(a, Key(RankKey<T>::of(line[a * inner]) ^ flip), a);
    for (int64_t a = k; a < axisDim; ++a) {
      Key key = Key(RankKey<T>::of(line[a * inner]) ^ flip);
      if (key > heap.keyAt(0))
        heap.siftDown(0, k, key, a);
    }
    for (int64_t n = k - 1; n > 0; --n) {
      Key key = heap.keyAt(n);
      int64_t a = heap.indexAt(n);
      heap.moveTo(n, 0);
      heap.siftDown(0, n, key, a);
    }
    for (int64_t j = 0; j < k; ++j)
      lineValues[j * inner] = line[heap.indexAt(j) * inner];
  }
}

} // namespace

#define CUVIL_DEFINE_TOPK(name, T)                                                                 \
  CUVIL_KERNEL void cuvil_topk_##name(const T *x, T *values, int64_t *indices, int64_t *error,     \
                                      const cuvil_topk_params *p, int64_t begin, int64_t end) {    \
    topK<T>(x, values, indices, error, p, begin, end);                                             \
  }
CUVIL_TOPK_TYPES(CUVIL_DEFINE_TOPK)
