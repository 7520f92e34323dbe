// Sequences and optionals, resolved while the model is imported: Cuvil
// compiles for lengths and presence known at compile time, so a sequence is
// the list of its element tensors and an optional is its tensor (or
// sequence), or nothing. The ops that build, read and change them
// (SequenceConstruct/Insert/Erase/At/Length, SplitToSequence,
// ConcatFromSequence, SequenceMap, Optional, OptionalHasElement,
// OptionalGetElement, Identity of one) become those lists, constants or
// ordinary tensor nodes (Concat, Split, the body of a SequenceMap once per
// element). Positions and split sizes must be constants.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <onnx/onnx_pb.h>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cuvil {

struct CompositeValue {
  bool sequence = false; // a sequence (else one tensor)
  bool optional = false; // an optional of that ...
  bool present = true;   // ... which holds it (false: empty)
  DType dtype = DType::F32;
  std::vector<Value *> tensors; // a sequence's elements in order, or the one tensor

  static CompositeValue ofSequence(std::vector<Value *> elements, DType dtype) {
    return {true, false, true, dtype, std::move(elements)};
  }
};

// What a name stands for: a tensor, or a sequence or optional.
using BoundValue = std::variant<Value *, CompositeValue>;

// What importing a composite op needs of the importer.
class CompositeScope {
public:
  virtual ~CompositeScope() = default;
  virtual Graph &graph() = 0;
  // The value a name stands for: a tensor, or an error naming it.
  virtual Expected<Value *> tensor(const std::string &name) = 0;
  // True when the name stands for a sequence or optional.
  virtual bool isComposite(const std::string &name) const = 0;
  virtual Expected<CompositeValue> composite(const std::string &name) = 0;
  virtual void bind(const std::string &name, Value *tensor) = 0;
  virtual void bind(const std::string &name, CompositeValue value) = 0;
  // What a name stands for, either kind.
  Expected<BoundValue> value(const std::string &name);
  // The extent ONNX's own shape inference gives value `name` along `axis`,
  // when it is a number (InferredExtents.h): for a tensor a node computes,
  // which has no IR type while importing.
  virtual std::optional<int64_t> inferredExtent(const std::string &name, int64_t axis) = 0;
  // Imports `body`'s nodes into the current graph with its inputs bound
  // to `inputs`; returns what its outputs stand for.
  virtual Expected<std::vector<BoundValue>> inlineBody(const onnx::GraphProto &body,
                                                       const std::vector<BoundValue> &inputs) = 0;
};

// Whether `op` builds, reads or changes sequences or optionals.
bool isCompositeOp(std::string_view op);
// Imports such a node, an Identity of a composite value, or a Loop that
// carries one: unrolled, its trip count and condition known at compile time.
Status importCompositeOp(const onnx::NodeProto &node, CompositeScope &scope);

} // namespace cuvil
