#include "InferredExtents.h"

#include "IsolatedShapeInference.h"

namespace cuvil {

std::optional<int64_t> InferredExtents::extent(const std::string &name, int64_t axis) {
  if (!extents_)
    extents_ = infer();
  auto found = extents_->find(name);
  if (found == extents_->end())
    return std::nullopt;
  const auto rank = int64_t(found->second.size());
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return found->second[size_t(axis < 0 ? axis + rank : axis)];
}

// Inference on a copy whose inputs have the compile's shapes: --shape's
// dims, or every dim symbolic for an input --shape-range gives.
std::map<std::string, InferredExtents::Extents> InferredExtents::infer() const {
  onnx::ModelProto copy = model_;
  for (onnx::ValueInfoProto &input : *copy.mutable_graph()->mutable_input()) {
    if (!input.type().has_tensor_type())
      continue;
    onnx::TensorShapeProto *shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (auto fixed = options_.inputShapes.find(input.name()); fixed != options_.inputShapes.end()) {
      shape->clear_dim();
      for (const Dim &dim : fixed->second)
        if (dim.isConstant())
          shape->add_dim()->set_dim_value(dim.constant());
        else
          shape->add_dim()->set_dim_param(dim.str());
    } else if (options_.inputRanges.count(input.name())) {
      for (int d = 0; d < shape->dim_size(); ++d)
        shape->mutable_dim(d)->set_dim_param(input.name() + "_dim" + std::to_string(d));
    }
  }
  std::map<std::string, Extents> extents;
  std::optional<onnx::GraphProto> typed = inferValueTypes(copy);
  if (!typed)
    return extents;
  for (const auto *infos : {&typed->value_info(), &typed->output()})
    for (const onnx::ValueInfoProto &info : *infos) {
      if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape())
        continue;
      Extents &dims = extents[info.name()];
      for (const onnx::TensorShapeProto_Dimension &dim : info.type().tensor_type().shape().dim())
        dims.push_back(dim.has_dim_value() ? std::optional<int64_t>(dim.dim_value())
                                           : std::nullopt);
    }
  return extents;
}

} // namespace cuvil
