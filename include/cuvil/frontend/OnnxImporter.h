// The ONNX frontend: loads a ModelProto (external data included), checks it,
// and lowers it into a Cuvil IR graph. Every node maps to the IR op of the
// same name; where an op changed across opsets 7-23 the importer normalises
// to one form (see OpsetAdapters.cpp).
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

namespace cuvil {

// The shapes an input takes at run time: every dim between min and max;
// opt is the one the static code path is compiled for.
struct ShapeRange {
  std::vector<int64_t> min, opt, max;
};

// The values an integer input (a shape tensor: a target shape, pads,
// split sizes) takes at run time, element by element, as TensorRT's
// profiles give them for shape tensors: an element whose min and max are
// equal is that constant, any other becomes a symbol.
// A floating-point input (Resize's scales, OneHot's depth) can only be
// fixed: `reals` holds --value's numbers as written, and `integral` says
// whether min/opt/max hold them too (`ranged`: --value-range gave them).
struct ValueRange {
  std::vector<int64_t> min, opt, max;
  std::vector<double> reals;
  bool integral = true;
  bool ranged = false;
};

struct ImportOptions {
  // Static shapes for inputs with symbolic dims (--shape name=1x3x224x224).
  std::map<std::string, Shape> inputShapes;
  // Ranges of shapes (--shape-range name=1x8:1x128:4x512). A dim whose
  // min and max differ becomes a symbol, named as the model names the dim
  // (its dim_param) or else <input>_<dim>; inputs whose dims share a
  // dim_param share the symbol, ranges and all.
  std::map<std::string, ShapeRange> inputRanges;
  // Values of integer inputs (--value name=3,4 fixes them, --value-range
  // name=1,4:3,4:8,4 ranges them) and of floating-point ones (--value
  // name=1,1,2,2 fixes them). Each ranged element is a symbol named
  // <input>_value<k>; infer.bin reads it from the input's data and refuses
  // data outside the range or unequal to a fixed element.
  std::map<std::string, ValueRange> inputValues;
  // The elements' shapes of sequence inputs (--sequence name=3x4,2x4): the
  // input becomes one tensor input per element, name.K.
  std::map<std::string, std::vector<Shape>> inputSequences;
  // Optional inputs compiled as empty (--absent name); the others hold
  // their value.
  std::set<std::string> absentInputs;
};

// On failure the message lists every problem found (all unsupported ops, not
// only the first), each naming the node, its op and the reason.
Expected<std::unique_ptr<Graph>> importOnnxModel(const std::string &path,
                                                 const ImportOptions &options);
// The same for a serialised model in memory (the fuzz target's entry);
// external data is read relative to `modelDir`.
Expected<std::unique_ptr<Graph>> importOnnxModelBytes(std::string_view bytes,
                                                      const std::string &modelDir,
                                                      const ImportOptions &options);

} // namespace cuvil
