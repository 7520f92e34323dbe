// Shared by RNN, GRU, LSTM and cuvil.Recurrence, the form canonicalize
// gives them (the input projection as a MatMul before it): the cells, the
// attributes, the activations, the shape rules and the reference.
#pragma once

#include "OpSupport.h"
#include "cuvil/kernels/Recurrence.h"

namespace cuvil::ops {

// What tells the three recurrences apart.
struct RecurrentCell {
  std::string_view op;
  cuvil_cell kernel;
  int64_t gates; // W and R hold gates x hidden_size rows per direction
  // The activation functions of one direction when the node names none.
  std::vector<std::string_view> activations;
};
// The cell of "RNN", "GRU" or "LSTM"; null for another name.
const RecurrentCell *recurrentCell(std::string_view op);

// The ONNX ops' inputs, by position.
enum RecurrentInput : size_t { kX, kW, kR, kB, kSequenceLens, kInitialH, kInitialC, kPeepholes };

// The attributes `op` takes ("RNN", "GRU", "LSTM", or every one of them
// and `cell` for cuvil.Recurrence), with ONNX's defaults.
std::vector<AttrSpec> recurrentAttributes(std::string_view op);

struct RecurrentGeometry {
  const RecurrentCell *cell;
  int64_t directions, hidden;
  bool reverse;    // direction "reverse": direction 0 runs from the end
  bool batchMajor; // layout 1: X [B, S, I], Y [B, S, D, H], states [B, D, H]
  Dim steps, batch;
  // A state's shape (initial_h, Y_h, ...) and Y's.
  Shape stateShape() const;
  Shape outputShape() const;
};
// The geometry of a node of `cell` whose input x is [S, B, ...] (or
// [B, S, ...]) and whose hidden size is `hidden`; checks the attributes.
Expected<RecurrentGeometry> recurrentGeometry(const Node &node, const RecurrentCell &cell,
                                              const Shape &x, int64_t hidden);

// Checks the optional inputs B, sequence_lens, initial_h, initial_c and P,
// found from input `first` on, and types the results Y, Y_h (and Y_c), all
// of float type `dtype` but sequence_lens.
Status inferRecurrentResults(InferContext &ctx, const RecurrentGeometry &g, size_t first,
                             DType dtype);

// One activation function with its alpha and beta.
struct RecurrentActivation {
  const OpDefinition *op; // the unary op it is, or null (Affine, ScaledTanh)
  std::vector<float> params;
  cuvil_unary kernel;
  double apply(double x) const;
};
// f, g, h (as many as the cell uses) of each direction, in order.
Expected<std::vector<RecurrentActivation>> recurrentActivations(const Node &node,
                                                                const RecurrentGeometry &g);

// The shape rule and reference of RNN, GRU and LSTM, and their lowering
// (an error: canonicalize rewrites them).
Status inferRecurrent(InferContext &ctx);
Status evalRecurrent(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out);
Status lowerRecurrent(const Node &node, LoweringContext &ctx);

} // namespace cuvil::ops
