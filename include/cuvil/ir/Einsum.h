// Einsum equations in numpy's grammar ("bij,bjk->bik", "...ii->...i",
// implicit "ij,jk"), shared by the Einsum op (shape rule, reference,
// kernel) and the canonicalize rewrite that turns contractions into MatMul.
#pragma once

#include "cuvil/ir/Tensor.h"
#include "cuvil/support/Status.h"

#include <string>
#include <string_view>
#include <vector>

namespace cuvil {

// Every axis of every operand carries a label: letters are 0..51 ('A'-'Z',
// then 'a'-'z', so that sorting labels sorts letters as numpy does), the
// dims an ellipsis stands for are kEllipsisLabel + k, numbered so that the
// ellipses of all operands align to the right (numpy broadcasting).
struct EinsumEquation {
  static constexpr int kLetters = 52;
  static constexpr int kEllipsisLabel = kLetters;
  std::vector<std::vector<int>> operands; // per operand, per axis
  std::vector<int> output;                // per output axis
  int ellipsisRank = 0;                   // the widest ellipsis

  // The labels that appear in an operand and not in the output, ascending.
  std::vector<int> summedLabels() const;
};

// Parses `equation` for operands of these ranks; the error says what is
// wrong with it.
Expected<EinsumEquation> parseEinsum(std::string_view equation, const std::vector<size_t> &ranks);

// The extent of every label (indexed by label, 0 where unused) over the
// operands' shapes: every axis of a label has the same dim, or 1, which
// broadcasts (as in ONNX Runtime); axes of one label in one operand (a
// diagonal) must be equal.
Expected<std::vector<Dim>> einsumLabelDims(const EinsumEquation &equation,
                                           const std::vector<Shape> &shapes);

// An explicit equation with letters only: ellipsis labels get letters the
// equation does not use. `operands` and `output` are lists of labels of
// `equation` (a step of a contraction); an error when letters run out.
Expected<std::string> einsumText(const EinsumEquation &equation,
                                 const std::vector<std::vector<int>> &operands,
                                 const std::vector<int> &output);

} // namespace cuvil
