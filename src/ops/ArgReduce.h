// ArgMax and ArgMin share their shape rule, reference and lowering; each
// op's file holds its definition.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

// The definition of ArgMax (minimum = false) or ArgMin; `name` is a string
// literal (the schema keeps a view of it).
OpDefinition argReduceDefinition(std::string_view name, bool minimum);

} // namespace cuvil::ops
