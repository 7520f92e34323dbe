// Winograd F(4x4, 3x3) convolution (stride 1, dilation 1) in NCHWc (B = 16 or 8):
// 2.25x fewer multiplications than the direct kernel for every 4x4 output
// tile, at the price of transforms and 4x larger (pre-transformed) weights.
//
//   x, y, residual: [N, CB, H, W, B]; bias: [OCB * B]
//   u: the weights transformed at compile time, U = G g G^T per (oc, ic):
//      [36][OCB][ICB][B ic][B oc]
// A task is a share of the output tiles of one image (tiles run row-major
// over the 4x4 grid) and of its output-block groups, done in runs of up to
// T tiles. It owns a scratch slot:
//   V[36][ICB][T][B]   input tiles transformed, V = B^T d B
//   M[36][T][J][B]     products for one group of J output blocks
// except that with a shared input (small images, whose transformed weights
// outweigh it) winograd_input first transforms every image once into
// V[n][36][ICB][tiles][B] at the start of scratch, and each task, taking all
// tiles and a share of the groups, owns only its M.
//   for each run of T tiles:
//     (unless shared) for icb, tile p: V[.][icb][p] = B^T d(p) B  (6x6 patch, zero padded)
//     for each group of J output blocks:
//       for xi in 0..35, for each block of P tiles p in the run:
//                             M[xi][p][j] = sum_icb,c V[xi][icb][p][c] * U[xi][ocb+j][icb][c]
//                             (P x J register tile, like a 1x1 convolution)
//       for p, j:             y(tile p, block j) = act(A^T M A + bias + residual), valid pixels
// The slice U[xi][group] is loaded from memory once per run and reused from
// L2 by the run's other P-tile blocks: the transformed weights are 4x the
// direct kernel's, and on small images (few tiles) streaming them once per
// P tiles (or once per task) cost more than the multiplications saved.
// B^T, A^T: those of src/ops/WinogradMatrices.h (the points 0, 1, -1, 1/2,
// -2, the most accurate for F(4, 3)), spelled out as vector arithmetic.
#include "Vector.h"

#include "cuvil/kernels/Conv.h"

using namespace cuvil::kernels;

namespace {

using Params = cuvil_winograd_params;

struct Shape {
  int64_t ICB, OCB;
  cuvil_window2d win; // extents and pads (3x3, stride 1)
  int64_t tilesH, tilesW, P, J, B, T;
  bool shared;
  int64_t tiles() const { return tilesH * tilesW; }
  int64_t VT() const { return shared ? tiles() : T; } // tile slots in a V
  int64_t vFloats() const { return 36 * ICB * VT() * B; }
  int64_t mFloats() const { return 36 * T * J * B; }
};

CUVIL_INLINE Shape shapeOf(const Params &p, int B) {
  return {p.ICB,         p.OCB,         p.window, p.tiles_h,   p.tiles_w,
          p.tile.pixels, p.tile.blocks, B,        p.run_tiles, p.shared_input != 0};
}

// r = B^T d for six vectors d0..d5 (one column or row of a 6x6 tile).
template <typename V> CUVIL_INLINE void inputTransform6(const V d[6], V r[6]) {
  V d31 = d[3] - d[1], d42 = d[4] - d[2];
  r[0] = d[0] + d[4] - 2.0f * d[2] + 1.5f * d31;
  r[1] = d[4] - d[1] + 0.5f * d[2] + 2.5f * d[3];
  r[2] = d[4] + d[1] - 2.5f * d[2] + 0.5f * d[3];
  r[3] = d42 + 2.0f * d31;
  r[4] = d42 - 0.5f * d31;
  r[5] = d[5] + d[1] - 2.0f * d[3] + 1.5f * (d[4] - d[2]);
}

// o = A^T m for six vectors m0..m5.
template <typename V> CUVIL_INLINE void outputTransform6(const V m[6], V o[4]) {
  V a = m[1] + m[2], b = m[1] - m[2];
  o[0] = m[0] + a + m[3] + m[4];
  o[1] = b + 0.5f * m[3] - 2.0f * m[4];
  o[2] = a + 0.25f * m[3] + 4.0f * m[4];
  o[3] = b + 0.125f * m[3] - 8.0f * m[4] + m[5];
}

// Keeps the compiler from forwarding the first pass's stores to the second
// pass's loads, which would make all 36 intermediate vectors live at once
// (and spill them); staged through memory, each pass holds 12. `stage` (a
// local buffer) escapes into the barrier, so that it stays in memory too.
CUVIL_INLINE void memoryBarrier(const void *stage = nullptr) {
  asm volatile("" ::"r"(stage) : "memory");
}

// V[.][icb][p] for tile `tile` of one image, in two passes: columns
// (B^T d) into a local 6x6 stage, then rows ((B^T d) B) into V. The stage
// keeps the first pass out of V, whose positions lie ICB x VT x B floats
// apart: a power of two times 1 KiB for many layers (ResNet-50's layer3:
// 16 KiB), where the 36 lines of a tile share a few cache sets and, written
// and read back in place, missed L1 and L2 (the transform ran at 4% of its
// memory bound). V is a block's vector, or v8 to transform the two halves of
// a 16-lane block separately where registers are 256 bits wide.
template <int B, typename V>
CUVIL_INLINE void transformInputTile(const Shape &s, const float *x, float *v, int64_t tile,
                                     int64_t p, int64_t icb0, int64_t icb1) {
  constexpr int kLanes = sizeof(V) / sizeof(float);
  const int64_t ih0 = (tile / s.tilesW) * 4 - s.win.PT, iw0 = (tile % s.tilesW) * 4 - s.win.PL;
  const int64_t xiStride = s.ICB * s.VT() * B; // floats between positions xi and xi + 1
  float stage[36 * kLanes] __attribute__((aligned(64)));
  for (int64_t icb = icb0; icb < icb1; ++icb) {
    for (int half = 0; half < B; half += kLanes) {
      const float *plane = x + icb * s.win.IH * s.win.IW * B + half;
      float *vt = v + (icb * s.VT() + p) * B + half; // position xi at vt + xi * xiStride
#pragma clang loop unroll(full)
      for (int col = 0; col < 6; ++col) {
        V d[6], r[6];
#pragma clang loop unroll(full)
        for (int row = 0; row < 6; ++row) {
          const int64_t ih = ih0 + row, iw = iw0 + col;
          const bool inside = ih >= 0 && ih < s.win.IH && iw >= 0 && iw < s.win.IW;
          d[row] = inside ? loadV<V>(plane + (ih * s.win.IW + iw) * B) : V(0.0f);
        }
        inputTransform6(d, r);
#pragma clang loop unroll(full)
        for (int row = 0; row < 6; ++row)
          storeV(stage + (row * 6 + col) * kLanes, r[row]);
      }
      memoryBarrier(stage);
#pragma clang loop unroll(full)
      for (int row = 0; row < 6; ++row) {
        V t[6], r[6];
#pragma clang loop unroll(full)
        for (int col = 0; col < 6; ++col)
          t[col] = loadV<V>(stage + (row * 6 + col) * kLanes);
        inputTransform6(t, r);
#pragma clang loop unroll(full)
        for (int col = 0; col < 6; ++col)
          storeV(vt + (row * 6 + col) * xiStride, r[col]);
      }
      memoryBarrier(stage);
    }
  }
}

// M[xi][p0 + p][j] for P tiles from run slot p0 (V slot v0 + p0) and J
// blocks from ocb, one position xi.
template <int B, int P, int J>
CUVIL_INLINE void multiply(const Shape &s, const float *v, const float *u, float *m, int64_t ocb,
                           int64_t xi, int64_t v0, int64_t p0, WeightPrefetch *prefetch) {
  using V = Block<B>;
  V acc[P][J];
#pragma clang loop unroll(full)
  for (int p = 0; p < P; ++p)
#pragma clang loop unroll(full)
    for (int j = 0; j < J; ++j)
      acc[p][j] = 0.0f;
  const float *vXi = v + (xi * s.ICB * s.VT() + v0 + p0) * B;
  const float *uXi = u + (xi * s.OCB + ocb) * s.ICB * B * B;
  for (int64_t icb = 0; icb < s.ICB; ++icb) {
    if (prefetch)
      prefetch->issue();
    const float *vp = vXi + icb * s.VT() * B;
    const float *up = uXi + icb * B * B;
    for (int64_t c = 0; c < B; ++c) {
      V wv[J];
#pragma clang loop unroll(full)
      for (int j = 0; j < J; ++j)
        wv[j] = loadV<V>(up + j * s.ICB * B * B + c * B);
#pragma clang loop unroll(full)
      for (int p = 0; p < P; ++p) {
        V xv = vp[p * B + c];
#pragma clang loop unroll(full)
        for (int j = 0; j < J; ++j)
          acc[p][j] += xv * wv[j];
      }
    }
  }
#pragma clang loop unroll(full)
  for (int p = 0; p < P; ++p)
#pragma clang loop unroll(full)
    for (int j = 0; j < J; ++j)
      storeV(m + ((xi * s.T + p0 + p) * s.J + j) * B, acc[p][j]);
}

template <int B, int J>
CUVIL_INLINE void multiplyOf(int64_t tiles, const Shape &s, const float *v, const float *u,
                             float *m, int64_t ocb, int64_t xi, int64_t v0, int64_t p0,
                             WeightPrefetch *prefetch) {
#define CUVIL_TILES_CASE(n)                                                                        \
  case n:                                                                                          \
    if constexpr (CUVIL_WINOGRAD_TILE_INSTANTIATED(B, n, J))                                       \
      multiply<B, n, J>(s, v, u, m, ocb, xi, v0, p0, prefetch);                                    \
    else                                                                                           \
      CUVIL_NOT_INSTANTIATED();                                                                    \
    return;
  switch (tiles) {
    CUVIL_TILES_CASE(1)
    CUVIL_TILES_CASE(2)
    CUVIL_TILES_CASE(3)
    CUVIL_TILES_CASE(4)
    CUVIL_TILES_CASE(5)
    CUVIL_TILES_CASE(6)
    CUVIL_TILES_CASE(7)
    CUVIL_TILES_CASE(8)
  default:
    CUVIL_NOT_INSTANTIATED();
  }
#undef CUVIL_TILES_CASE
}

// y for tile `tile` (slot p) and block ocb + j from M, in two passes over
// M itself: columns (A^T M into rows 0..3), then rows ((A^T M) A); by
// halves of a 16-lane block when V is v8. (A local stage as the input
// transform has measured no faster: M is a run's, and stays in L1 and L2.)
template <int B, typename V>
CUVIL_INLINE void transformOutputTile(const Shape &s, float *m, const float *bias, const float *res,
                                      float *y, int64_t tile, int64_t p, int64_t ocb, int64_t j,
                                      const cuvil_unary &act) {
  constexpr int kLanes = sizeof(V) / sizeof(float);
  const int64_t xiStride = s.T * s.J * B; // M
  const int64_t oh0 = (tile / s.tilesW) * 4, ow0 = (tile % s.tilesW) * 4;
  const int64_t plane = (ocb + j) * s.win.OH * s.win.OW * B;
  for (int half = 0; half < B; half += kLanes) {
    float *mt = m + (p * s.J + j) * B + half; // position xi at mt + xi * xiStride
#pragma clang loop unroll(full)
    for (int col = 0; col < 6; ++col) {
      V column[6], o[4];
#pragma clang loop unroll(full)
      for (int row = 0; row < 6; ++row)
        column[row] = loadV<V>(mt + (row * 6 + col) * xiStride);
      outputTransform6(column, o);
#pragma clang loop unroll(full)
      for (int row = 0; row < 4; ++row)
        storeV(mt + (row * 6 + col) * xiStride, o[row]);
    }
    memoryBarrier();
    const V b = bias ? loadV<V>(bias + (ocb + j) * B + half) : V(0.0f);
#pragma clang loop unroll(full)
    for (int row = 0; row < 4; ++row) {
      V t[6], o[4];
#pragma clang loop unroll(full)
      for (int col = 0; col < 6; ++col)
        t[col] = loadV<V>(mt + (row * 6 + col) * xiStride);
      outputTransform6(t, o);
      // A row at a time: the tile's 16 results would not fit the registers.
      const int64_t oh = oh0 + row;
      auto inside = [&](int col)
                        CUVIL_LAMBDA_INLINE { return oh < s.win.OH && ow0 + col < s.win.OW; };
      auto offset = [&](int col) CUVIL_LAMBDA_INLINE {
        return plane + (oh * s.win.OW + ow0 + col) * B + half;
      };
#pragma clang loop unroll(full)
      for (int col = 0; col < 4; ++col) {
        o[col] += b;
        if (res && inside(col))
          o[col] += loadV<V>(res + offset(col));
      }
      applyUnaryEach(act, o);
#pragma clang loop unroll(full)
      for (int col = 0; col < 4; ++col)
        if (inside(col))
          storeV(y + offset(col), o[col]);
    }
    memoryBarrier();
  }
}

// The slice of U the multiplication after (xi, blocks [ocb, ocb + J))
// reads: the next position's, or the next blocks' first, fetched over the
// `tiles`-tile run's input blocks.
CUVIL_INLINE WeightPrefetch nextSlice(const Shape &s, const float *u, int64_t ocb, int64_t J,
                                      int64_t xi, int64_t tiles) {
  const int64_t nextXi = xi + 1 < 36 ? xi + 1 : 0, nextOcb = xi + 1 < 36 ? ocb : ocb + J;
  const int64_t blocks = s.OCB - nextOcb < s.J ? s.OCB - nextOcb : s.J;
  const int64_t bytes = blocks > 0 ? blocks * s.ICB * s.B * s.B * int64_t(sizeof(float)) : 0;
  const int64_t issues = (tiles + s.P - 1) / s.P * s.ICB;
  return {reinterpret_cast<const char *>(u + (nextXi * s.OCB + nextOcb) * s.ICB * s.B * s.B), 0,
          bytes, bytes > 0 ? 1 : 0, (bytes / 64 + issues - 1) / issues};
}

// All P-tile blocks of a run, one position xi at a time.
template <int B, int J>
CUVIL_INLINE void multiplyRun(int64_t tiles, const Shape &s, const float *v, const float *u,
                              float *m, int64_t ocb, int64_t v0, bool prefetchWeights) {
  for (int64_t xi = 0; xi < 36; ++xi) {
    WeightPrefetch prefetch = nextSlice(s, u, ocb, J, xi, tiles);
    for (int64_t p0 = 0; p0 < tiles; p0 += s.P)
      multiplyOf<B, J>(tiles - p0 < s.P ? tiles - p0 : s.P, s, v, u, m, ocb, xi, v0, p0,
                       prefetchWeights ? &prefetch : nullptr);
  }
}

// Input blocks [icb0, icb1) of one tile.
template <int B>
CUVIL_INLINE void transformInput(const Shape &s, bool halves, const float *x, float *v,
                                 int64_t tile, int64_t p, int64_t icb0, int64_t icb1) {
  if (halves)
    transformInputTile<B, v8>(s, x, v, tile, p, icb0, icb1);
  else
    transformInputTile<B, Block<B>>(s, x, v, tile, p, icb0, icb1);
}

// The shared V of whole images: tasks (n, share of the input blocks), so that
// a thread transforms the blocks the previous convolution's same thread
// wrote (its tasks split output blocks). Layout V[n][36][ICB][tiles][B],
// ahead of the multiply tasks' M slots in scratch.
template <int B>
CUVIL_INLINE void winogradInputTasks(const float *x, float *scratch, const Params *p, int64_t begin,
                                     int64_t end) {
  const Shape s = shapeOf(*p, B);
  const int64_t parts = p->input_tasks;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t n = task / parts, part = task % parts;
    const float *xn = x + n * s.ICB * s.win.IH * s.win.IW * B;
    float *vn = scratch + n * s.vFloats();
    for (int64_t tile = 0; tile < s.tiles(); ++tile)
      transformInput<B>(s, p->half_vectors != 0, xn, vn, tile, tile, s.ICB * part / parts,
                        s.ICB * (part + 1) / parts);
  }
}

// Tasks: (n, share of the tiles, share of the output-block groups). Each
// task has an M slot in scratch, and a V slot unless the input is shared.
template <int B>
CUVIL_INLINE void winogradTasks(const float *x, const float *u, const float *bias, const float *res,
                                float *y, float *scratch, const Params *prm, int64_t begin,
                                int64_t end) {
  const Shape s = shapeOf(*prm, B);
  const int64_t tasksPerImage = prm->tasks_per_image, ocbParts = prm->ocb_parts;
  const int64_t tileParts = tasksPerImage / ocbParts, groups = (s.OCB + s.J - 1) / s.J;
  const bool halves = prm->half_vectors != 0, prefetch = prm->prefetch_weights != 0;
  // Per task: [V] M, after the shared Vs when there are some.
  const int64_t slot = s.mFloats() + (s.shared ? 0 : s.vFloats());
  float *own = scratch + (s.shared ? prm->images * s.vFloats() : 0) + begin * slot;
  float *m = own + (s.shared ? 0 : s.vFloats());
  for (int64_t task = begin; task < end; ++task) {
    const int64_t n = task / tasksPerImage, part = task % tasksPerImage / ocbParts;
    const int64_t ocbPart = task % ocbParts;
    const int64_t ocbBegin = groups * ocbPart / ocbParts * s.J;
    const int64_t ocbEnd = groups * (ocbPart + 1) / ocbParts * s.J;
    const float *xn = x + n * s.ICB * s.win.IH * s.win.IW * B;
    float *yn = y + n * s.OCB * s.win.OH * s.win.OW * B;
    const float *rn = res ? res + n * s.OCB * s.win.OH * s.win.OW * B : nullptr;
    float *v = s.shared ? scratch + n * s.vFloats() : own;
    const int64_t last = s.tiles() * (part + 1) / tileParts;
    for (int64_t tile0 = s.tiles() * part / tileParts; tile0 < last; tile0 += s.T) {
      const int64_t tiles = last - tile0 < s.T ? last - tile0 : s.T;
      const int64_t v0 = s.shared ? tile0 : 0; // the run's first V slot
      if (!s.shared)
        for (int64_t p = 0; p < tiles; ++p)
          transformInput<B>(s, halves, xn, v, tile0 + p, p, 0, s.ICB);
      for (int64_t ocb = ocbBegin; ocb < ocbEnd && ocb < s.OCB; ocb += s.J) {
        const int64_t J = s.OCB - ocb < s.J ? s.OCB - ocb : s.J;
        switch (J) {
        case 4:
          multiplyRun<B, 4>(tiles, s, v, u, m, ocb, v0, prefetch);
          break;
        case 3:
          multiplyRun<B, 3>(tiles, s, v, u, m, ocb, v0, prefetch);
          break;
        case 2:
          multiplyRun<B, 2>(tiles, s, v, u, m, ocb, v0, prefetch);
          break;
        case 1:
          multiplyRun<B, 1>(tiles, s, v, u, m, ocb, v0, prefetch);
          break;
        default:
          CUVIL_NOT_INSTANTIATED();
        }
        for (int64_t p = 0; p < tiles; ++p)
          for (int64_t j = 0; j < J; ++j) {
            if (halves)
              transformOutputTile<B, v8>(s, m, bias, rn, yn, tile0 + p, p, ocb, j, prm->activation);
            else
              transformOutputTile<B, Block<B>>(s, m, bias, rn, yn, tile0 + p, p, ocb, j,
                                               prm->activation);
          }
      }
    }
  }
}

} // namespace

CUVIL_BLOCKED_KERNELS(winograd_input, winogradInputTasks,
                      (const float *x, float *scratch, const cuvil_winograd_params *p,
                       int64_t begin, int64_t end),
                      (x, scratch, p, begin, end))
CUVIL_BLOCKED_KERNELS(winograd, winogradTasks,
                      (const float *x, const float *u, const float *bias, const float *res,
                       float *y, float *scratch, const cuvil_winograd_params *p, int64_t begin,
                       int64_t end),
                      (x, u, bias, res, y, scratch, p, begin, end))
