// Kernels whose output extent comes from the data. One task each: the
// extent is known only after reading the whole input (or condition).
//
// NonZero, two sweeps over x (row-major):
//   count = #{i : x[i] != 0}
//   k = 0; for i with x[i] != 0: for d in [0, rank): y[d * count + k] = coord_d(i); ++k
//   *count_slot = count
// The coordinates advance like an odometer, so no division per element.
//
// Compress, x as [outer, axis_len, inner]:
//   n = min(cond_len, axis_len); count = #{a < n : cond[a]}
//   for o: k = 0; for a < n with cond[a]: y[o, k++, :] = x[o, a, :]
//   *count_slot = count
//
// Unique, x as [outer, n, inner], slice a = x[:, a, :]:
//   perm = [0, n) heap-sorted by (slice, index)       (perm lives in counts)
//   sorted:   walk perm's runs of equal slices; run g: indices[g] = its first
//             entry (the smallest index), inverse[a] = g for its members,
//             counts[g] = its length (perm[g] was read before it is written)
//   unsorted: inverse[a] = the first occurrence f of slice a (from the runs);
//             for a in [0, n): a == f opens group g (indices[g] = a) and
//             inverse[f] already holds f's group for every later a
//   y[o, g, :] = x[o, indices[g], :]; *count_slot = count
//
// NonMaxSuppression, per batch b and class c, in `selected`'s free tail
// (no scratch of its own: the tail holds at least 3 * P int64 slots, as the
// capacity is planned for every class keeping P = min(boxes, max_output)):
//   region = selected + 3 * total, as 4-byte words: the kept boxes' indices
//   [0, P), their extents in columns x0, x1, y0, y1 [P, 5P) (sorted by x0
//   but for the latest few, see KeptBoxes), the heap's int32 slots [5P, room)
//   cutoff = none
//   while k < P:
//     heap = the best H candidates ranking after cutoff (score above the
//            threshold, best score first, ties by the smaller index),
//            kept in a heap with the worst on top, then sorted best first
//     for i in heap while k < P: kept[k++] = i unless IoU(i, kept[j]) > iou
//                                for some j < k whose x0 is near i's
//     stop when the heap was not full (every candidate was seen);
//     else cutoff = its last entry
//   region[3j, 3j + 3) = [b, c, kept[j]] for j from k - 1 down to 0
//   total += k; in the end *count_slot = total
// One round suffices unless more than H - P candidates are suppressed.
#include "KernelSupport.h"

#include "cuvil/kernels/Select.h"

namespace {

template <typename T, uint64_t Mask> CUVIL_INLINE bool isNonZero(T value) {
  if constexpr (Mask == 0)
    return value != T(0);
  else
    return (uint64_t(value) & Mask) != 0;
}

template <typename T, uint64_t Mask>
CUVIL_INLINE void nonZero(const T *x, int64_t *y, int64_t *countSlot,
                          const cuvil_nonzero_params *p) {
  int64_t count = 0;
  for (int64_t i = 0; i < p->elements; ++i)
    count += isNonZero<T, Mask>(x[i]) ? 1 : 0;
  int64_t rank = p->rank, coord[CUVIL_MAX_RANK] = {};
  int64_t k = 0;
  for (int64_t i = 0; i < p->elements; ++i) {
    if (isNonZero<T, Mask>(x[i])) {
      for (int64_t d = 0; d < rank; ++d)
        y[d * count + k] = coord[d];
      ++k;
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++coord[d] < p->shape[d])
        break;
      coord[d] = 0;
    }
  }
  *countSlot = count;
}

template <typename T>
CUVIL_INLINE void compress(const T *x, const uint8_t *cond, T *y, int64_t *countSlot,
                           const cuvil_compress_params *p) {
  int64_t n = p->cond_len < p->axis_len ? p->cond_len : p->axis_len;
  int64_t count = 0;
  for (int64_t a = 0; a < n; ++a)
    count += cond[a] ? 1 : 0;
  int64_t inner = p->inner;
  for (int64_t o = 0; o < p->outer; ++o) {
    const T *from = x + o * p->axis_len * inner;
    T *to = y + o * count * inner;
    for (int64_t a = 0; a < n; ++a) {
      if (!cond[a])
        continue;
      for (int64_t i = 0; i < inner; ++i)
        to[i] = from[a * inner + i];
      to += inner;
    }
  }
  *countSlot = count;
}

template <typename T> CUVIL_INLINE bool isNaN(T value) {
  if constexpr (T(1) / T(2) != T(0)) // a floating-point type
    return __builtin_isnan(value);
  else
    return false;
}

// A heap of indices with the one `order` puts last on top: heap-sorting it
// in place leaves the indices in `order`'s order.
template <typename Order, typename Slot = int64_t> struct IndexHeap {
  const Order &order; // order.before(a, b): a comes first
  Slot *slots;

  void swap(int64_t a, int64_t b) {
    Slot t = slots[a];
    slots[a] = slots[b];
    slots[b] = t;
  }
  void siftUp(int64_t at) {
    while (at > 0 && order.before(slots[(at - 1) / 2], slots[at])) {
      swap(at, (at - 1) / 2);
      at = (at - 1) / 2;
    }
  }
  void siftDown(int64_t at, int64_t size) {
    for (;;) {
      int64_t child = 2 * at + 1;
      if (child >= size)
        return;
      if (child + 1 < size && order.before(slots[child], slots[child + 1]))
        ++child;
      if (!order.before(slots[at], slots[child]))
        return;
      swap(at, child);
      at = child;
    }
  }
  // The first `size` slots, a heap, in order.
  void sort(int64_t size) {
    for (int64_t last = size - 1; last > 0; --last) {
      swap(0, last);
      siftDown(0, last);
    }
  }
};

// Slices of x as [outer, n, inner], compared lexicographically over (o, i).
template <typename T> struct UniqueSlices {
  const T *x;
  int64_t outer, n, inner;

  // -1, 0, 1 as slice a is below, equal to or above slice b; NaN equals
  // NaN and is above every number.
  int compare(int64_t a, int64_t b) const {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        T u = x[(o * n + a) * inner + i], v = x[(o * n + b) * inner + i];
        bool uNaN = isNaN(u), vNaN = isNaN(v);
        if (uNaN || vNaN) {
          if (uNaN != vNaN)
            return uNaN ? 1 : -1;
          continue;
        }
        if (u != v)
          return u < v ? -1 : 1;
      }
    return 0;
  }
  bool before(int64_t a, int64_t b) const {
    int c = compare(a, b);
    return c != 0 ? c < 0 : a < b;
  }
};

template <typename T>
CUVIL_INLINE void unique(const T *x, T *y, int64_t *indices, int64_t *inverse, int64_t *counts,
                         int64_t *countSlot, const cuvil_unique_params *p) {
  const UniqueSlices<T> slices{x, p->outer, p->n, p->inner};
  const int64_t n = p->n;
  int64_t *perm = counts;
  IndexHeap<UniqueSlices<T>> heap{slices, perm};
  for (int64_t a = 0; a < n; ++a)
    perm[a] = a;
  for (int64_t root = n / 2 - 1; root >= 0; --root)
    heap.siftDown(root, n);
  heap.sort(n);
  int64_t count = 0;
  if (p->sorted) {
    int64_t start = 0, previous = -1;
    for (int64_t j = 0; j < n; ++j) {
      int64_t a = perm[j];
      if (j == 0 || slices.compare(previous, a) != 0) {
        if (count > 0)
          counts[count - 1] = j - start;
        indices[count++] = a;
        start = j;
      }
      inverse[a] = count - 1;
      previous = a;
    }
    if (count > 0)
      counts[count - 1] = n - start;
  } else {
    int64_t first = -1;
    for (int64_t j = 0; j < n; ++j) {
      int64_t a = perm[j];
      if (j == 0 || slices.compare(first, a) != 0)
        first = a;
      inverse[a] = first;
    }
    for (int64_t a = 0; a < n; ++a) {
      int64_t f = inverse[a];
      if (f == a) {
        indices[count] = a;
        counts[count] = 1;
        inverse[a] = count++;
      } else {
        inverse[a] = inverse[f];
        ++counts[inverse[a]];
      }
    }
  }
  for (int64_t o = 0; o < p->outer; ++o)
    for (int64_t g = 0; g < count; ++g) {
      const T *from = x + (o * n + indices[g]) * p->inner;
      T *to = y + (o * count + g) * p->inner;
      for (int64_t i = 0; i < p->inner; ++i)
        to[i] = from[i];
    }
  *countSlot = count;
}

// One class's scores with the order NonMaxSuppression takes boxes in.
struct NmsScores {
  const float *score;
  const float *threshold; // null: every non-NaN score is a candidate

  bool candidate(int64_t i) const {
    float v = score[i];
    return !__builtin_isnan(v) && (!threshold || v > *threshold);
  }
  // Box a is taken before box b: a higher score, or an equal one and a
  // smaller index.
  bool before(int64_t a, int64_t b) const {
    return score[a] > score[b] || (score[a] == score[b] && a < b);
  }
};

// A box with lo <= hi on each axis (corners in either order, or a centre
// and a size).
struct NmsBox {
  float x0, x1, y0, y1;
};
CUVIL_INLINE NmsBox nmsBox(const float *b, bool center) {
  if (center)
    return {b[0] - b[2] / 2, b[0] + b[2] / 2, b[1] - b[3] / 2, b[1] + b[3] / 2};
  return {b[1] <= b[3] ? b[1] : b[3], b[1] <= b[3] ? b[3] : b[1], b[0] <= b[2] ? b[0] : b[2],
          b[0] <= b[2] ? b[2] : b[0]};
}
CUVIL_INLINE float areaOf(const NmsBox &b) { return (b.x1 - b.x0) * (b.y1 - b.y0); }

// Whether box a's IoU with box b is above the threshold, as the ONNX
// reference computes it: an empty intersection or area never suppresses,
// and neither does a NaN anywhere (it makes an area NaN).
CUVIL_INLINE bool suppresses(const NmsBox &a, float areaA, const NmsBox &b, float threshold) {
  float x0 = a.x0 > b.x0 ? a.x0 : b.x0, x1 = a.x1 < b.x1 ? a.x1 : b.x1;
  float y0 = a.y0 > b.y0 ? a.y0 : b.y0, y1 = a.y1 < b.y1 ? a.y1 : b.y1;
  if (!(x1 > x0) || !(y1 > y0))
    return false;
  float intersection = (x1 - x0) * (y1 - y0), areaB = areaOf(b);
  float united = areaA + areaB - intersection;
  if (!(intersection > 0) || !(areaA > 0) || !(areaB > 0) || !(united > 0))
    return false;
  return intersection / united > threshold;
}

// The boxes one class keeps. Their indices, in the order kept, and the
// extents of those that can suppress (an area above 0: no NaN), in columns
// x0, x1, y0, y1 so that a candidate is tested against eight at once. The
// extents' first `settled` entries are sorted by x0, the rest (at most
// kRecentBoxes, the latest kept) not yet: a candidate is tested only
// against the settled boxes whose x0 lies within the widest settled box's
// width of its own x extent (for a detector's batched NMS, whose boxes are
// offset per class, the boxes of its own class and a neighbour's), and
// against every recent one. The recent boxes are sorted on the stack and
// merged in when there are kRecentBoxes of them. They live in the output's
// free tail, which the int64 rows are written over at the end: accessed as
// types that may alias those rows.
using cuvil::kernels::i32x8;
using cuvil::kernels::select;
using cuvil::kernels::v8;
typedef float __attribute__((may_alias)) AliasedFloat;
typedef int32_t __attribute__((may_alias)) AliasedI32;
constexpr int64_t kRecentBoxes = 256;
struct KeptBoxes {
  AliasedI32 *index;
  AliasedFloat *x0, *x1, *y0, *y1;
  int64_t count = 0, extents = 0, settled = 0;
  float widest = 0; // of the settled boxes, x1 - x0 as computed

  NmsBox at(int64_t e) const { return {x0[e], x1[e], y0[e], y1[e]}; }
  void put(int64_t e, const NmsBox &b) const {
    x0[e] = b.x0;
    x1[e] = b.x1;
    y0[e] = b.y0;
    y1[e] = b.y1;
  }
  void keep(int64_t i, const NmsBox &b) {
    index[count++] = int32_t(i);
    if (!(areaOf(b) > 0))
      return; // never suppresses
    put(extents++, b);
    if (extents - settled == kRecentBoxes)
      settle();
  }
  // Sorts the recent boxes by x0 (insertion, on the stack) and merges them
  // into the settled ones from the back.
  void settle() {
    NmsBox recent[kRecentBoxes];
    int64_t r = extents - settled;
    for (int64_t j = 0; j < r; ++j) {
      NmsBox b = at(settled + j);
      float w = b.x1 - b.x0;
      widest = w > widest ? w : widest;
      int64_t to = j;
      for (; to > 0 && recent[to - 1].x0 > b.x0; --to)
        recent[to] = recent[to - 1];
      recent[to] = b;
    }
    for (int64_t i = settled - 1, j = r - 1, w = extents - 1; j >= 0; --w)
      if (i >= 0 && x0[i] > recent[j].x0)
        put(w, at(i--));
      else
        put(w, recent[j--]);
    settled = extents;
  }
  // The first settled entry whose x0 is not below `key`, without branches
  // on the data (the compares come out either way as often).
  int64_t firstAtLeast(float key) const {
    if (settled == 0)
      return 0;
    const AliasedFloat *base = x0;
    for (int64_t n = settled; n > 1;) {
      int64_t half = n / 2;
      base = __builtin_unpredictable(base[half] < key) ? base + half : base;
      n -= half;
    }
    return base - x0 + (*base < key);
  }
};
CUVIL_INLINE v8 load8(const AliasedFloat *p) {
  v8 v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

// Neither operand is NaN here (kept extents and candidates have areas above
// 0): one vminps/vmaxps each, not the NaN-aware builtins' compare and blend.
CUVIL_INLINE v8 min8(v8 a, v8 b) { return select(a < b, a, b); }
CUVIL_INLINE v8 max8(v8 a, v8 b) { return select(a > b, a, b); }

// Lanes of kept boxes [e, e + 8) whose x extent overlaps a's.
CUVIL_INLINE i32x8 overlapsInX(const NmsBox &a, const KeptBoxes &kept, int64_t e) {
  return min8(load8(kept.x1 + e), v8(a.x1)) > max8(load8(kept.x0 + e), v8(a.x0));
}

// Whether one of kept boxes [e, e + 8) suppresses a (`suppresses`' tests).
CUVIL_INLINE bool suppressedByEight(const NmsBox &a, float areaA, const KeptBoxes &kept, int64_t e,
                                    float threshold) {
  v8 bx0 = load8(kept.x0 + e), bx1 = load8(kept.x1 + e);
  v8 by0 = load8(kept.y0 + e), by1 = load8(kept.y1 + e);
  v8 x0 = max8(bx0, v8(a.x0)), x1 = min8(bx1, v8(a.x1));
  v8 y0 = max8(by0, v8(a.y0)), y1 = min8(by1, v8(a.y1));
  v8 intersection = (x1 - x0) * (y1 - y0), areaB = (bx1 - bx0) * (by1 - by0);
  v8 united = areaA + areaB - intersection;
  i32x8 hit = (x1 > x0) & (y1 > y0) & (intersection > 0.0f) & (areaB > 0.0f) & (united > 0.0f) &
              (intersection / united > threshold);
  return __builtin_reduce_or(hit) != 0;
}

// Whether one of kept extents [begin, end) suppresses a (of area areaA > 0):
// 32 boxes a step are first screened by their x extents alone, the 8 that
// overlap tested in full; then the rest one by one. Sorted extents stop at
// the first whose x0 is not below a.x1: it and those after it begin after
// a ends.
template <bool Sorted>
CUVIL_INLINE bool suppressedByRange(const NmsBox &a, float areaA, const KeptBoxes &kept,
                                    int64_t begin, int64_t end, float threshold) {
  int64_t e = begin;
  for (; e + 32 <= end; e += 32) {
    if (Sorted && !(kept.x0[e] < a.x1))
      return false;
    i32x8 x[4];
#pragma clang loop unroll(full)
    for (int q = 0; q < 4; ++q)
      x[q] = overlapsInX(a, kept, e + 8 * q);
    if (__builtin_reduce_or(x[0] | x[1] | x[2] | x[3]) == 0)
      continue;
#pragma clang loop unroll(full)
    for (int q = 0; q < 4; ++q)
      if (__builtin_reduce_or(x[q]) != 0 && suppressedByEight(a, areaA, kept, e + 8 * q, threshold))
        return true;
  }
  for (; e + 8 <= end; e += 8)
    if (suppressedByEight(a, areaA, kept, e, threshold))
      return true;
  for (; e < end; ++e)
    if (suppresses(a, areaA, kept.at(e), threshold))
      return true;
  return false;
}

// Whether a kept box suppresses a. A settled box b with b.x0 below
// a.x0 - widest ends before a begins (b.x1 <= a.x0, no overlap); the margin
// covers the rounding of the widths and of the key (2^-20 of the magnitudes
// for a few roundings of 2^-24 each, 2^-124 for results flushed to zero),
// so that no such box is skipped that might overlap.
CUVIL_INLINE bool suppressedByKept(const NmsBox &a, const KeptBoxes &kept, float threshold) {
  float areaA = areaOf(a);
  if (!(areaA > 0))
    return false;
  int64_t begin = 0;
  float magnitude = (a.x0 < 0 ? -a.x0 : a.x0) + kept.widest;
  float key = a.x0 - kept.widest - (magnitude * 0x1p-20f + 0x1p-124f);
  if (key > -__builtin_inff() && magnitude < __builtin_inff())
    begin = kept.firstAtLeast(key);
  return suppressedByRange<false>(a, areaA, kept, kept.settled, kept.extents, threshold) ||
         suppressedByRange<true>(a, areaA, kept, begin, kept.settled, threshold);
}

// Keeps up to `limit` boxes of one class, their indices in kept.index[0,
// limit), with a heap of `heapRoom` slots; returns how many.
CUVIL_INLINE int64_t suppressClass(const float *boxes, const NmsScores &scores, int64_t n,
                                   bool center, float iou, int64_t limit, KeptBoxes &kept,
                                   AliasedI32 *heapSlots, int64_t heapRoom) {
  IndexHeap<NmsScores, AliasedI32> heap{scores, heapSlots};
  int64_t cutoff = -1;
  while (kept.count < limit) {
    int64_t size = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!scores.candidate(i) || (cutoff >= 0 && !scores.before(cutoff, i)))
        continue;
      if (size < heapRoom) {
        heap.slots[size] = int32_t(i);
        heap.siftUp(size++);
      } else if (scores.before(i, heap.slots[0])) {
        heap.slots[0] = int32_t(i);
        heap.siftDown(0, size);
      }
    }
    heap.sort(size);
    for (int64_t j = 0; j < size && kept.count < limit; ++j) {
      int64_t i = heap.slots[j];
      NmsBox box = nmsBox(boxes + 4 * i, center);
      if (!suppressedByKept(box, kept, iou))
        kept.keep(i, box);
    }
    if (size < heapRoom)
      break;
    cutoff = heap.slots[size - 1];
  }
  return kept.count;
}

CUVIL_INLINE void nonMaxSuppression(const float *boxes, const float *scores,
                                    const int64_t *maxOutput, const float *iouThreshold,
                                    const float *scoreThreshold, int64_t *selected,
                                    int64_t *countSlot, const cuvil_nms_params *p) {
  int64_t n = p->boxes, perClass = maxOutput ? *maxOutput : 0;
  perClass = perClass < 0 ? 0 : perClass < n ? perClass : n;
  float iou = iouThreshold ? *iouThreshold : 0.0f;
  int64_t total = 0;
  for (int64_t b = 0; b < p->batches; ++b)
    for (int64_t c = 0; c < p->classes; ++c) {
      int64_t *region = selected + 3 * total, room = 3 * (p->capacity - total);
      int64_t limit = perClass <= room / 3 ? perClass : room / 3;
      if (limit == 0)
        continue;
      NmsScores classScores{scores + (b * p->classes + c) * n, scoreThreshold};
      auto *words = reinterpret_cast<AliasedI32 *>(region);
      auto *columns = reinterpret_cast<AliasedFloat *>(words + limit);
      KeptBoxes kept{words, columns, columns + limit, columns + 2 * limit, columns + 3 * limit};
      int64_t heapRoom = 2 * room - 5 * limit < n ? 2 * room - 5 * limit : n;
      int64_t k = suppressClass(boxes + b * n * 4, classScores, n, p->center_point_box != 0, iou,
                                limit, kept, words + 5 * limit, heapRoom);
      // Row j's 24 bytes lie past index j's 4 (j > 0) or start with them.
      for (int64_t j = k - 1; j >= 0; --j) {
        int64_t box = kept.index[j];
        region[3 * j] = b;
        region[3 * j + 1] = c;
        region[3 * j + 2] = box;
      }
      total += k;
    }
  *countSlot = total;
}

} // namespace

#define CUVIL_DEFINE_NONZERO(name, T, mask)                                                        \
  CUVIL_KERNEL void cuvil_nonzero_##name(const T *x, int64_t *y, int64_t *count,                   \
                                         const cuvil_nonzero_params *p, int64_t begin,             \
                                         int64_t end) {                                            \
    if (begin < end)                                                                               \
      nonZero<T, uint64_t(mask)>(x, y, count, p);                                                  \
  }
CUVIL_NONZERO_TYPES(CUVIL_DEFINE_NONZERO)

#define CUVIL_DEFINE_COMPRESS(size, T)                                                             \
  CUVIL_KERNEL void cuvil_compress_##size(const T *x, const uint8_t *cond, T *y, int64_t *count,   \
                                          const cuvil_compress_params *p, int64_t begin,           \
                                          int64_t end) {                                           \
    if (begin < end)                                                                               \
      compress<T>(x, cond, y, count, p);                                                           \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_COMPRESS)

#define CUVIL_DEFINE_UNIQUE(name, T)                                                               \
  CUVIL_KERNEL void cuvil_unique_##name(                                                           \
      const T *x, T *y, int64_t *indices, int64_t *inverse, int64_t *counts, int64_t *count,       \
      const cuvil_unique_params *p, int64_t begin, int64_t end) {                                  \
    if (begin < end)                                                                               \
      unique<T>(x, y, indices, inverse, counts, count, p);                                         \
  }
CUVIL_UNIQUE_TYPES(CUVIL_DEFINE_UNIQUE)

CUVIL_KERNEL void cuvil_nms_f32(const float *boxes, const float *scores, const int64_t *max_output,
                                const float *iou_threshold, const float *score_threshold,
                                int64_t *selected, int64_t *count, const cuvil_nms_params *p,
                                int64_t begin, int64_t end) {
  if (begin < end)
    nonMaxSuppression(boxes, scores, max_output, iou_threshold, score_threshold, selected, count,
                      p);
}
