// Normalises ops whose signature changed across ONNX opsets to the newest
// form, so the IR has one form per op: attributes that later opsets turned
// into inputs (Reduce* axes, Split sizes, Slice starts/ends, Clip bounds,
// Squeeze/Unsqueeze axes, DFT's axis) become constant inputs, and the pre-13
// coerce-to-2-D Softmax becomes Flatten -> Softmax -> Reshape; variadic
// Max/Min/Sum become chains of binary nodes, the deprecated Scatter
// ScatterElements. Before opset 7: the legacy broadcast/axis attributes
// become numpy broadcasting, consumed_inputs and is_test go, Reshape's
// shape attribute becomes its input, and RNN, GRU and LSTM lose
// output_sequence. GroupNormalization's per-group scale and bias (opset 18)
// are repeated per channel (opset 21).
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <map>
#include <string>

namespace cuvil {

// What adapters may need besides the node: the model's opset and, for
// opsets before 7 (whose broadcasting aligned B at an axis of A), the rank
// of every value ONNX shape inference could type, by name.
struct AdaptContext {
  int64_t opset = 0;
  std::map<std::string, int64_t> ranks;
};

// Applies the adapter for `node` (created with its ONNX inputs and
// attributes) at the model's `opset`, if one exists. Returns the values that
// now stand for the node's results (an adapter may replace the node).
Expected<std::vector<Value *>> adaptToLatestOpset(Graph &graph, Node &node,
                                                  const AdaptContext &context);

// Whether an adapter applies to `op` at `opset` (it may rewrite an op the
// IR does not have, such as Sum).
bool adaptsAway(std::string_view op, int64_t opset);

// A table of strings as constants, as StringIndex, StringNormalizer and
// StringConstant take it: their bytes end to end (u8) and where each
// starts (i64, with the end). StringIndex needs `strings` sorted and unique.
std::pair<Value *, Value *> stringTable(Graph &graph, const std::string &base,
                                        const std::vector<std::string> &strings);

// String constants are run-time values (DType.h): `strings` of `shape`
// made at each run by a StringConstant node, pointing into their bytes.
Value *addStringConstant(Graph &graph, const std::string &name, const Shape &shape,
                         const std::vector<std::string> &strings);

} // namespace cuvil
