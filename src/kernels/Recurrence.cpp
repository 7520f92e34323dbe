// The recurrences of RNN, GRU and LSTM, over the input projection xw =
// X . W^T of every step (one GEMM before the call). A task runs direction d
// over a tile of MR batch rows; each row has a scratch record
//   [h: Hp][c: Hp][gates: G x Hp][rh: Hp]        Hp = 64 x panels
// and ONNX's gate order (LSTM i, o, f, c; GRU z, r, h). With b = Wb + Rb
// (0 without B), clip() the optional clip and f, g, h the activations:
//   h, c = initial_h, initial_c (or 0)
//   for s in [0, S):
//     a row is active while s < len; its step t = reverse ? len - 1 - s : s
//     if a row is active:
//       gates[g] = h . R[d, g]^T for the tile's rows (the GEMM register tile
//                  over R's panels, backwards on odd steps); a GRU without
//                  linear_before_reset: z, r
//       per active row, vectorised over the hidden units (x = xw[t, b, d]):
//         RNN:  h = f(clip(x + gates + b))
//         LSTM: i = f(clip(x_i + gates_i + P_i c + b_i))
//               f = input_forget ? 1 - i : f(clip(x_f + gates_f + P_f c + b_f))
//               c = f c + i g(clip(x_c + gates_c + b_c))
//               o = f(clip(x_o + gates_o + P_o c + b_o)); h = o h(c)
//         GRU:  z = f(clip(x_z + gates_z + b_z)); r = f(clip(x_r + gates_r + b_r))
//               linear_before_reset: n = g(clip(x_n + r (gates_n + Rb_n) + Wb_n))
//               else: rh = r h, and after the loop over rows
//                     gates_n = rh . R[d, n]^T, n = g(clip(x_n + gates_n + b_n))
//               h = (1 - z) n + z h
//       Y[t, d, b] = h
//     rows not active: Y[s, d, b] = 0
//   Y_h[d, b] = h, Y_c[d, b] = c   (0 for an empty sequence, as ONNX Runtime)
#include "GemmTile.h"

#include "cuvil/kernels/Recurrence.h"

using namespace cuvil::kernels;

namespace {

constexpr int64_t kPanel = CUVIL_RECURRENCE_PANEL;

template <typename T> CUVIL_INLINE T load(const float *p) {
  if constexpr (sizeof(T) == sizeof(float))
    return *p;
  else
    return loadV<T>(p);
}
template <typename T> CUVIL_INLINE void store(float *p, T v) {
  if constexpr (sizeof(T) == sizeof(float))
    *p = v;
  else
    storeV(p, v);
}

// body(T(), j) over the hidden units [0, H): vectors of 16, then floats.
template <typename Body> CUVIL_INLINE void forHiddenUnits(int64_t H, Body body) {
  int64_t j = 0;
  for (; j + 16 <= H; j += 16)
    body(v16(0.0f), j);
  for (; j < H; ++j)
    body(0.0f, j);
}

// What the rows of a task share: direction d's weights and the cell.
struct Direction {
  const cuvil_recurrence_params &p;
  int64_t H, Hp, record; // hidden units, padded, floats per scratch record
  const float *r;        // R's panels of the direction: [G][panels][H][64]
  const float *wb, *rb;  // its biases, or null
  const float *peep;     // its peepholes, or null
  const cuvil_unary *act;

  template <typename T> T clip(T x) const {
    if (p.clip <= 0)
      return x;
    const float bound = float(p.clip);
    return minf(maxf(x, T(-bound)), T(bound));
  }
  template <typename T> T activate(int which, T x) const {
    return applyUnary<T>(act[which], clip(x));
  }
};

// One batch row at one step.
struct Row {
  const float *x; // xw at (t, b) for the direction: G x H values
  float *record;  // its scratch record
  float *y;       // Y at (t, d, b), or null
};

// x + h R^T + Wb + Rb of gate g at unit j.
template <typename T>
CUVIL_INLINE T gateInput(const Direction &dir, const Row &row, int64_t g, int64_t j) {
  T value = load<T>(row.x + g * dir.H + j) + load<T>(row.record + (2 + g) * dir.Hp + j);
  if (dir.wb)
    value += load<T>(dir.wb + g * dir.H + j) + load<T>(dir.rb + g * dir.H + j);
  return value;
}

template <typename T> CUVIL_INLINE void setHidden(const Row &row, int64_t j, T h) {
  store(row.record + j, h);
  if (row.y)
    store(row.y + j, h);
}

template <typename T> CUVIL_INLINE void rnnUnits(const Direction &dir, const Row &row, int64_t j) {
  setHidden(row, j, dir.activate(0, gateInput<T>(dir, row, 0, j)));
}

template <typename T> CUVIL_INLINE void lstmUnits(const Direction &dir, const Row &row, int64_t j) {
  float *cell = row.record + dir.Hp;
  const T previous = load<T>(cell + j);
  T i = gateInput<T>(dir, row, 0, j), o = gateInput<T>(dir, row, 1, j);
  T f = gateInput<T>(dir, row, 2, j);
  if (dir.peep) {
    i += load<T>(dir.peep + j) * previous;
    f += load<T>(dir.peep + 2 * dir.H + j) * previous;
  }
  i = dir.activate(0, i);
  f = dir.p.input_forget ? 1.0f - i : dir.activate(0, f);
  const T c = f * previous + i * dir.activate(1, gateInput<T>(dir, row, 3, j));
  if (dir.peep)
    o += load<T>(dir.peep + dir.H + j) * c;
  store(cell + j, c);
  setHidden(row, j, dir.activate(0, o) * applyUnary<T>(dir.act[2], c));
}

// z, r and, with linear_before_reset, the new h; otherwise z is kept in
// its gate's slot and rh = r h is left for the second product.
template <typename T> CUVIL_INLINE void gruGates(const Direction &dir, const Row &row, int64_t j) {
  float *gates = row.record + 2 * dir.Hp;
  const T z = dir.activate(0, gateInput<T>(dir, row, 0, j));
  const T r = dir.activate(0, gateInput<T>(dir, row, 1, j));
  const T previous = load<T>(row.record + j);
  if (!dir.p.linear_before_reset) {
    store(gates + j, z);
    store(row.record + (2 + dir.p.gates) * dir.Hp + j, r * previous);
    return;
  }
  T linear = load<T>(gates + 2 * dir.Hp + j), n = load<T>(row.x + 2 * dir.H + j);
  if (dir.wb) {
    linear += load<T>(dir.rb + 2 * dir.H + j);
    n += load<T>(dir.wb + 2 * dir.H + j);
  }
  n = dir.activate(1, n + r * linear);
  setHidden(row, j, (1.0f - z) * n + z * previous);
}

// Without linear_before_reset, once gates_n = rh . R_n^T.
template <typename T> CUVIL_INLINE void gruUpdate(const Direction &dir, const Row &row, int64_t j) {
  const T z = load<T>(row.record + 2 * dir.Hp + j), previous = load<T>(row.record + j);
  const T n = dir.activate(1, gateInput<T>(dir, row, 2, j));
  setHidden(row, j, (1.0f - z) * n + z * previous);
}

// gates[first, last) of the tile's `rows` records = a . R[d, g]^T, a read
// at `aOffset` floats into each record. R's panels are walked forwards or
// `backwards`: alternating steps start where the last one ended, on the
// panels still in L2 (R of a 256-unit LSTM is 1 MB, more than L2 holds).
CUVIL_INLINE void recurrentProduct(const Direction &dir, float *records, int64_t rows,
                                   int64_t aOffset, int64_t first, int64_t last, bool backwards) {
  const int64_t NV = dir.p.tile.blocks, H = dir.H;
  const int64_t start = first * dir.p.panels, count = (last - first) * dir.p.panels;
  const GemmEpilogue e{nullptr, nullptr, 0, dir.record, {CUVIL_UNARY_IDENTITY, 0, 0}, 1.0f};
  float *gates = records + 2 * dir.Hp;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t q = start + (backwards ? count - 1 - i : i);
    for (int64_t c0 = 0; c0 < kPanel; c0 += 16 * NV)
      gemmTile(NV, rows, records + aOffset, dir.record, dir.r + q * H * kPanel + c0, H,
               gates + q * kPanel + c0, kPanel - c0, e);
  }
}

} // namespace

CUVIL_KERNEL void cuvil_pack_recurrent_f32(const float *r, float *packed,
                                           const cuvil_pack_recurrent_params *p, int64_t begin,
                                           int64_t end) {
  const int64_t H = p->hidden;
  for (int64_t task = begin; task < end; ++task) { // (d, g): R's rows [task H, task H + H)
    const float *rows = r + task * H * H;
    float *panels = packed + task * p->panels * H * kPanel;
    for (int64_t panel = 0; panel < p->panels; ++panel)
      for (int64_t k = 0; k < H; ++k)
        for (int64_t c = 0; c < kPanel; ++c) {
          const int64_t n = panel * kPanel + c;
          panels[(panel * H + k) * kPanel + c] = n < H ? rows[n * H + k] : 0.0f;
        }
  }
}

CUVIL_KERNEL void cuvil_recurrence_f32(const float *xw, const float *r, const float *bias,
                                       const int32_t *lengths, const float *initial_h,
                                       const float *initial_c, const float *peepholes, float *y,
                                       float *y_h, float *y_c, float *scratch, int64_t *error,
                                       const cuvil_recurrence_params *params, int64_t begin,
                                       int64_t end) {
  const cuvil_recurrence_params &p = *params;
  const int64_t H = p.hidden, G = p.gates, Hp = p.panels * kPanel, record = (3 + G) * Hp;
  const int64_t MR = p.tile.pixels, tiles = (p.batch + MR - 1) / MR, S = p.steps;
  const bool twoProducts = p.cell == CUVIL_CELL_GRU && !p.linear_before_reset;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t d = task / tiles, b0 = task % tiles * MR;
    const int64_t rows = p.batch - b0 < MR ? p.batch - b0 : MR;
    const bool reverse = d == 1 || p.reverse;
    const Direction dir{p,
                        H,
                        Hp,
                        record,
                        r + d * G * p.panels * H * kPanel,
                        bias ? bias + d * 2 * G * H : nullptr,
                        bias ? bias + d * 2 * G * H + G * H : nullptr,
                        peepholes ? peepholes + d * 3 * H : nullptr,
                        p.activations[d]};
    float *records = scratch + (d * p.batch + b0) * record;
    auto lengthOf = [&](int64_t row) { return lengths ? int64_t(lengths[b0 + row]) : S; };
    int64_t longest = 0;
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t length = lengthOf(row);
      if (length < 0 || length > S)
        return raiseError(error, 1, length);
      longest = length > longest ? length : longest;
    }
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t state = d * p.state_direction + (b0 + row) * p.state_batch;
      for (int64_t j = 0; j < H; ++j) {
        records[row * record + j] = initial_h ? initial_h[state + j] : 0.0f;
        records[row * record + Hp + j] = initial_c ? initial_c[state + j] : 0.0f;
      }
    }
    for (int64_t s = 0; s < longest; ++s) {
      auto rowAt = [&](int64_t row) {
        const int64_t length = lengthOf(row), t = reverse ? length - 1 - s : s, b = b0 + row;
        return Row{xw + t * p.xw_step + b * p.xw_batch + d * G * H, records + row * record,
                   y ? y + t * p.y_step + d * p.y_direction + b * p.y_batch : nullptr};
      };
      recurrentProduct(dir, records, rows, 0, 0, twoProducts ? 2 : G, s % 2);
      for (int64_t row = 0; row < rows; ++row) {
        if (s >= lengthOf(row))
          continue;
        const Row at = rowAt(row);
        forHiddenUnits(H, [&](auto zero, int64_t j) {
          using T = decltype(zero);
          switch (p.cell) {
          case CUVIL_CELL_RNN:
            return rnnUnits<T>(dir, at, j);
          case CUVIL_CELL_GRU:
            return gruGates<T>(dir, at, j);
          default:
            return lstmUnits<T>(dir, at, j);
          }
        });
      }
      if (!twoProducts)
        continue;
      recurrentProduct(dir, records, rows, (2 + G) * Hp, 2, 3, s % 2);
      for (int64_t row = 0; row < rows; ++row) {
        if (s >= lengthOf(row))
          continue;
        const Row at = rowAt(row);
        forHiddenUnits(H, [&](auto zero, int64_t j) { gruUpdate<decltype(zero)>(dir, at, j); });
      }
    }
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t length = lengthOf(row), b = b0 + row;
      const int64_t state = d * p.state_direction + b * p.state_batch;
      for (int64_t t = length; y && t < S; ++t) // the padding of a shorter sequence
        for (int64_t j = 0; j < H; ++j)
          y[t * p.y_step + d * p.y_direction + b * p.y_batch + j] = 0.0f;
      for (int64_t j = 0; j < H; ++j) {
        if (y_h)
          y_h[state + j] = length > 0 ? records[row * record + j] : 0.0f;
        if (y_c)
          y_c[state + j] = length > 0 ? records[row * record + Hp + j] : 0.0f;
      }
    }
  }
}
