#include "cuvil/ir/OpSchema.h"

#include <cassert>

namespace cuvil {

OpRegistry &OpRegistry::instance() {
  static OpRegistry registry;
  return registry;
}

void OpRegistry::add(const OpSchema *schema) {
  bool inserted = schemas_.emplace(schema->name, schema).second;
  assert(inserted && "op registered twice");
  (void)inserted;
}

const OpSchema *OpRegistry::find(std::string_view op) const {
  auto it = schemas_.find(op);
  return it == schemas_.end() ? nullptr : it->second;
}

std::vector<std::string_view> OpRegistry::names() const {
  std::vector<std::string_view> result;
  for (const auto &entry : schemas_)
    result.push_back(entry.first);
  return result;
}

} // namespace cuvil
