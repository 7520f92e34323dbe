#include "Isa.h"

#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace cuvil::runtime {

void checkIsaSupport(const cuvil_model_info &model) {
  // Reject a bad CUVIL_ISA before anything runs.
  if (requestedIsaCap() == kUnknownIsaCap)
    throw std::runtime_error(std::string("CUVIL_ISA='") + std::getenv("CUVIL_ISA") +
                             "' is not one of " + isaLevelNames());
  if (effectiveIsaLevel() < model.min_isa_level)
    throw std::runtime_error(
        std::string("this executable needs a CPU with ") + isaLevelName(model.min_isa_level) +
        " (compiled variants: " + model.isa_variants + "), but this one offers " +
        isaLevelName(effectiveIsaLevel()) + (std::getenv("CUVIL_ISA") ? " under CUVIL_ISA" : ""));
}

std::string selectedVariant(const cuvil_model_info &model) {
  // Variants are listed best first; cuvil_run takes the first the level allows.
  std::string variants = model.isa_variants, chosen;
  std::vector<std::string> names;
  for (size_t start = 0; start <= variants.size();) {
    size_t comma = variants.find(',', start);
    names.push_back(
        variants.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  int32_t level = effectiveIsaLevel();
  for (const std::string &name : names) {
    for (int32_t l = 0; l < isaLevelCount(); ++l)
      if (name == isaLevelName(l) && l <= level)
        return name;
  }
  return names.empty() ? std::string() : names.back();
}

} // namespace cuvil::runtime
