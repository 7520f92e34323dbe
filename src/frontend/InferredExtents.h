// The static extents ONNX's own shape inference gives a model's values,
// for the few places the importer needs a number before the IR's shape
// inference has typed the tensors nodes compute (how many elements a
// SplitToSequence of a computed tensor makes). The user's --shape and
// --shape-range apply to the model's inputs first (a ranged dim is
// symbolic), so the extents are those of the compile, never the model's
// declared example; the IR's own shape rules check them again later (a
// Split whose sizes do not add up to its extent is an error).
#pragma once

#include "cuvil/frontend/OnnxImporter.h"

#include <map>
#include <onnx/onnx_pb.h>
#include <optional>
#include <string>
#include <vector>

namespace cuvil {

class InferredExtents {
public:
  InferredExtents(const onnx::ModelProto &model, const ImportOptions &options)
      : model_(model), options_(options) {}

  // Value `name`'s extent along `axis` (negative: from the end), when ONNX
  // infers a number there. Inference runs once, on first use.
  std::optional<int64_t> extent(const std::string &name, int64_t axis);

private:
  using Extents = std::vector<std::optional<int64_t>>;
  std::map<std::string, Extents> infer() const;

  const onnx::ModelProto &model_;
  const ImportOptions &options_;
  std::optional<std::map<std::string, Extents>> extents_;
};

} // namespace cuvil
