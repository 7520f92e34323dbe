// Node attributes: the ONNX attribute kinds a static graph needs.
#pragma once

#include "cuvil/ir/Tensor.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace cuvil {

using Attribute = std::variant<int64_t, float, std::string, std::vector<int64_t>,
                               std::vector<float>, std::vector<std::string>, Tensor>;

enum class AttrKind : uint8_t { Int, Float, String, Ints, Floats, Strings, Tensor };

inline AttrKind attrKind(const Attribute &attr) { return AttrKind(attr.index()); }
const char *attrKindName(AttrKind kind);

} // namespace cuvil
