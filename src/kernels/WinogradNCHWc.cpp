// Winograd F(4x4, 3x3) convolution (stride 1, dilation 1) in NCHWc (B = 16 or 8):
// 2.25x fewer multiplications than the direct kernel for every 4x4 output
// tile, at the price of transforms and 4x larger (pre-transformed) weights.
//
//   x, y, residual: [N, CB, H, W, B]; bias: [OCB * B]
//   u: the weights transformed at compile time, U = G g G^T per (oc, ic):
//      [36][OCB][ICB][B ic][B oc]
// A task is a block of P output tiles of one image (tiles run row-major over
// the 4x4 grid). It owns one scratch slot:
//   V[36][ICB][P][B]   input tiles transformed, V = B^T d B
//   M[36][P][J][B]     products for one group of J output blocks
//   for icb, tile p:          V[.][icb][p] = B^T d(p) B          (6x6 patch, zero padded)
//   for each group of J output blocks:
//     for xi in 0..35:        M[xi][p][j] = sum_icb,c V[xi][icb][p][c] * U[xi][ocb+j][icb][c]
//                             (P x J register tile, like a 1x1 convolution)
//     for p, j:               y(tile p, block j) = act(A^T M A + bias + residual), valid pixels
// B^T, A^T: the standard interpolation points 0, +-1, +-2 (Lavin & Gray).
#include "Vector.h"

using namespace cuvil::kernels;

namespace {

enum Param {
  kICB,
  kIH,
  kIW,
  kOCB,
  kOH,
  kOW,
  kPT,
  kPL,
  kTilesH,
  kTilesW,
  kTileBlock,
  kTileJ,
  kAct,
  kTasksPerImage,
  kHalfVectors, // 1: transform 8-lane halves of 16-lane blocks (256-bit registers)
};

struct Shape {
  int64_t ICB, IH, IW, OCB, OH, OW, PT, PL, tilesH, tilesW, P, J, B;
  int64_t tiles() const { return tilesH * tilesW; }
  int64_t vFloats() const { return 36 * ICB * P * B; }
  int64_t slotFloats() const { return vFloats() + 36 * P * J * B; }
};

// r = B^T d for six vectors d0..d5 (one column or row of a 6x6 tile).
template <typename V> CUVIL_INLINE void inputTransform6(const V d[6], V r[6]) {
  r[0] = 4.0f * d[0] - 5.0f * d[2] + d[4];
  r[1] = -4.0f * d[1] - 4.0f * d[2] + d[3] + d[4];
  r[2] = 4.0f * d[1] - 4.0f * d[2] - d[3] + d[4];
  r[3] = -2.0f * d[1] - d[2] + 2.0f * d[3] + d[4];
  r[4] = 2.0f * d[1] - d[2] - 2.0f * d[3] + d[4];
  r[5] = 4.0f * d[1] - 5.0f * d[3] + d[5];
}

// o = A^T m for six vectors m0..m5.
template <typename V> CUVIL_INLINE void outputTransform6(const V m[6], V o[4]) {
  V a = m[1] + m[2], b = m[1] - m[2], c = m[3] + m[4], d = m[3] - m[4];
  o[0] = m[0] + a + c;
  o[1] = b + 2.0f * d;
  o[2] = a + 4.0f * c;
  o[3] = b + 8.0f * d + m[5];
}

// Keeps the compiler from forwarding the first pass's stores to the second
// pass's loads, which would make all 36 intermediate vectors live at once
// (and spill them); staged through memory, each pass holds 12.
CUVIL_INLINE void memoryBarrier() { asm volatile("" ::: "memory"); }

// V[.][icb][p] for tile `tile` of one image, in two passes over V itself:
// columns (B^T d), then rows ((B^T d) B). V is a block's vector, or v8 to
// transform the two halves of a 16-lane block separately where registers are
// 256 bits wide.
template <int B, typename V>
CUVIL_INLINE void transformInputTile(const Shape &s, const float *x, float *v, int64_t tile,
                                     int64_t p) {
  constexpr int kLanes = sizeof(V) / sizeof(float);
  const int64_t ih0 = (tile / s.tilesW) * 4 - s.PT, iw0 = (tile % s.tilesW) * 4 - s.PL;
  const int64_t xiStride = s.ICB * s.P * B; // floats between positions xi and xi + 1
  for (int64_t icb = 0; icb < s.ICB; ++icb) {
    for (int half = 0; half < B; half += kLanes) {
      const float *plane = x + icb * s.IH * s.IW * B + half;
      float *vt = v + (icb * s.P + p) * B + half; // position xi at vt + xi * xiStride
#pragma clang loop unroll(full)
      for (int col = 0; col < 6; ++col) {
        V d[6], r[6];
#pragma clang loop unroll(full)
        for (int row = 0; row < 6; ++row) {
          const int64_t ih = ih0 + row, iw = iw0 + col;
          const bool inside = ih >= 0 && ih < s.IH && iw >= 0 && iw < s.IW;
          d[row] = inside ? loadV<V>(plane + (ih * s.IW + iw) * B) : V(0.0f);
        }
        inputTransform6(d, r);
#pragma clang loop unroll(full)
        for (int row = 0; row < 6; ++row)
          storeV(vt + (row * 6 + col) * xiStride, r[row]);
      }
      memoryBarrier();
#pragma clang loop unroll(full)
      for (int row = 0; row < 6; ++row) {
        V t[6], r[6];
#pragma clang loop unroll(full)
        for (int col = 0; col < 6; ++col)
          t[col] = loadV<V>(vt + (row * 6 + col) * xiStride);
        inputTransform6(t, r);
#pragma clang loop unroll(full)
        for (int col = 0; col < 6; ++col)
          storeV(vt + (row * 6 + col) * xiStride, r[col]);
      }
      memoryBarrier();
    }
  }
}

// M[xi][p][j] for P tiles and J blocks from ocb, one position xi.
template <int B, int P, int J>
CUVIL_INLINE void multiply(const Shape &s, const float *v, const float *u, float *m, int64_t ocb,
                           int64_t xi) {
  using V = Block<B>;
  V acc[P][J];
#pragma clang loop unroll(full)
  for (int p = 0; p < P; ++p)
#pragma clang loop unroll(full)
    for (int j = 0; j < J; ++j)
      acc[p][j] = 0.0f;
  const float *vXi = v + xi * s.ICB * s.P * B;
  const float *uXi = u + (xi * s.OCB + ocb) * s.ICB * B * B;
  for (int64_t icb = 0; icb < s.ICB; ++icb) {
    const float *vp = vXi + icb * s.P * B;
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
      storeV(m + ((xi * s.P + p) * s.J + j) * B, acc[p][j]);
}

template <int B, int P, int J>
CUVIL_INLINE void multiplyAll(const Shape &s, const float *v, const float *u, float *m,
                              int64_t ocb) {
  for (int64_t xi = 0; xi < 36; ++xi)
    multiply<B, P, J>(s, v, u, m, ocb, xi);
}

template <int B, int J>
CUVIL_INLINE void multiplyOf(int64_t tiles, const Shape &s, const float *v, const float *u,
                             float *m, int64_t ocb) {
#define CUVIL_TILES_CASE(n)                                                                        \
  case n:                                                                                          \
    if constexpr (n * J <= CUVIL_WINOGRAD_MAX_ACCUMULATORS(B))                                     \
      multiplyAll<B, n, J>(s, v, u, m, ocb);                                                       \
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
    return;
  }
#undef CUVIL_TILES_CASE
}

// y for tile `tile` (slot p) and block ocb + j from M, in two passes over
// M itself: columns (A^T M into rows 0..3), then rows ((A^T M) A); by
// halves of a 16-lane block when V is v8.
template <int B, typename V>
CUVIL_INLINE void transformOutputTile(const Shape &s, float *m, const float *bias, const float *res,
                                      float *y, int64_t tile, int64_t p, int64_t ocb, int64_t j,
                                      int64_t act, float alpha, float beta) {
  constexpr int kLanes = sizeof(V) / sizeof(float);
  const int64_t xiStride = s.P * s.J * B;
  const int64_t oh0 = (tile / s.tilesW) * 4, ow0 = (tile % s.tilesW) * 4;
  const int64_t plane = (ocb + j) * s.OH * s.OW * B;
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
      const int64_t oh = oh0 + row;
#pragma clang loop unroll(full)
      for (int col = 0; col < 4; ++col) {
        const int64_t ow = ow0 + col;
        if (oh >= s.OH || ow >= s.OW)
          continue;
        const int64_t offset = plane + (oh * s.OW + ow) * B + half;
        V value = o[col] + b;
        if (res)
          value += loadV<V>(res + offset);
        storeV(y + offset, applyUnary<V>(act, value, alpha, beta));
      }
    }
    memoryBarrier();
  }
}

// Tasks: (n, run of consecutive P-tile blocks); the scratch has one slot per
// task, so the task count per image is capped to keep the arena small.
template <int B>
CUVIL_INLINE void winogradTasks(const float *x, const float *u, const float *bias, const float *res,
                                float *y, float *scratch, const int64_t *prm, float alpha,
                                float beta, int64_t begin, int64_t end) {
  using V = Block<B>;
  const Shape s{prm[kICB],       prm[kIH],    prm[kIW], prm[kOCB],    prm[kOH],
                prm[kOW],        prm[kPT],    prm[kPL], prm[kTilesH], prm[kTilesW],
                prm[kTileBlock], prm[kTileJ], B};
  const int64_t blocks = (s.tiles() + s.P - 1) / s.P, tasksPerImage = prm[kTasksPerImage];
  float *v = scratch + begin * s.slotFloats();
  float *m = v + s.vFloats();
  for (int64_t task = begin; task < end; ++task) {
    const int64_t n = task / tasksPerImage, part = task % tasksPerImage;
    const float *xn = x + n * s.ICB * s.IH * s.IW * B;
    float *yn = y + n * s.OCB * s.OH * s.OW * B;
    const float *rn = res ? res + n * s.OCB * s.OH * s.OW * B : nullptr;
    for (int64_t block = blocks * part / tasksPerImage; block < blocks * (part + 1) / tasksPerImage;
         ++block) {
      const int64_t tile0 = block * s.P;
      const int64_t tiles = s.tiles() - tile0 < s.P ? s.tiles() - tile0 : s.P;
      for (int64_t p = 0; p < tiles; ++p) {
        if (prm[kHalfVectors])
          transformInputTile<B, v8>(s, xn, v, tile0 + p, p);
        else
          transformInputTile<B, V>(s, xn, v, tile0 + p, p);
      }
      for (int64_t ocb = 0; ocb < s.OCB; ocb += s.J) {
        const int64_t J = s.OCB - ocb < s.J ? s.OCB - ocb : s.J;
        switch (J) {
        case 4:
          multiplyOf<B, 4>(tiles, s, v, u, m, ocb);
          break;
        case 3:
          multiplyOf<B, 3>(tiles, s, v, u, m, ocb);
          break;
        case 2:
          multiplyOf<B, 2>(tiles, s, v, u, m, ocb);
          break;
        default:
          multiplyOf<B, 1>(tiles, s, v, u, m, ocb);
          break;
        }
        for (int64_t p = 0; p < tiles; ++p)
          for (int64_t j = 0; j < J; ++j) {
            if (prm[kHalfVectors])
              transformOutputTile<B, v8>(s, m, bias, rn, yn, tile0 + p, p, ocb, j, prm[kAct], alpha,
                                         beta);
            else
              transformOutputTile<B, V>(s, m, bias, rn, yn, tile0 + p, p, ocb, j, prm[kAct], alpha,
                                        beta);
          }
      }
    }
  }
}

} // namespace

CUVIL_BLOCKED_KERNELS(winograd, winogradTasks,
                      (const float *x, const float *u, const float *bias, const float *res,
                       float *y, float *scratch, const int64_t *prm, float alpha, float beta,
                       int64_t begin, int64_t end),
                      (x, u, bias, res, y, scratch, prm, alpha, beta, begin, end))
