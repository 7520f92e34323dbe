/* The recurrences of RNN, GRU and LSTM (src/kernels/Recurrence.cpp, whose
 * header comment gives the loop nest). The input projection xw = X . W^T of
 * every step is one GEMM before the call; the kernel runs the steps: per
 * step a matrix-vector product of the hidden state with the recurrence
 * weights R, packed into 64-column panels per gate, then the gates. */
#ifndef CUVIL_KERNELS_RECURRENCE_H
#define CUVIL_KERNELS_RECURRENCE_H

#include "cuvil/kernels/Gemm.h"

/* Columns per panel of the packed recurrence weights. */
#define CUVIL_RECURRENCE_PANEL 64

enum cuvil_cell {
  CUVIL_CELL_RNN = 0,  /* one gate: h = f(x + h R^T + b) */
  CUVIL_CELL_GRU = 1,  /* gates z, r, h */
  CUVIL_CELL_LSTM = 2, /* gates i, o, f, c */
};

/* R [D, G * H, H] (gate-major rows, as ONNX orders them) packed per
 * direction and gate into panels of 64 hidden units:
 *   packed[d][g][p][k][c] = R[d][g * H + 64 p + c][k], 0 where 64 p + c >= H.
 * A task is one (d, g). */
struct cuvil_pack_recurrent_params {
  int64_t hidden, panels; /* H, ceil(H / 64) */
};
CUVIL_KERNEL_DECL void cuvil_pack_recurrent_f32(const float *r, float *packed,
                                                const struct cuvil_pack_recurrent_params *p,
                                                int64_t begin, int64_t end);

/* Strides are in elements. Y is [S, D, B, H] (layout 0) or [B, S, D, H]
 * (layout 1), the states (initial_h, initial_c, Y_h, Y_c) [D, B, H] or
 * [B, D, H]; xw holds D * G * H values per (step, batch) row. activations
 * are f, g, h per direction (RNN reads f, GRU f and g). */
struct cuvil_recurrence_params {
  int64_t cell, gates;              /* cuvil_cell; G: 1, 3 or 4 */
  int64_t directions, reverse;      /* D; reverse: direction 0 runs from the end */
  int64_t steps, batch;             /* S, B */
  int64_t hidden, panels;           /* H; ceil(H / 64) */
  int64_t xw_step, xw_batch;        /* xw's row strides */
  int64_t y_step, y_direction;      /* Y's strides */
  int64_t y_batch, state_direction; /* ... and the states' */
  int64_t state_batch;
  int64_t linear_before_reset; /* GRU: r gates (h R^T + Rb) rather than h */
  int64_t input_forget;        /* LSTM: f = 1 - i */
  double clip;                 /* gate inputs clipped to [-clip, clip]; 0: none */
  struct cuvil_unary activations[2][3];
  struct cuvil_tile tile; /* rows x 16-column vectors, a GEMM register tile */
};
/* A task is one direction over a tile of tile.pixels batch rows; each row
 * has a record of (3 + G) * 64 * panels floats in `scratch` ([D, B,
 * record]). bias [D, 2 G H] (Wb then Rb), lengths [B] (null: all S; a length
 * outside [0, S] raises check 1), initial_h, initial_c and peepholes [D,
 * 3 H] may be null, as may each output. */
CUVIL_KERNEL_DECL void cuvil_recurrence_f32(const float *xw, const float *r, const float *bias,
                                            const int32_t *lengths, const float *initial_h,
                                            const float *initial_c, const float *peepholes,
                                            float *y, float *y_h, float *y_c, float *scratch,
                                            int64_t *error, const struct cuvil_recurrence_params *p,
                                            int64_t begin, int64_t end);

#endif /* CUVIL_KERNELS_RECURRENCE_H */
