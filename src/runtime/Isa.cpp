#include "Isa.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace cuvil::runtime {
namespace {

constexpr const char *kLevelNames[] = {"baseline", "avx2", "avx512"};

int32_t detectLevel() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
              __builtin_cpu_supports("bmi2");
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512vl");
  return avx2 ? (avx512 ? 2 : 1) : 0;
#else
  return 0;
#endif
}

// CUVIL_ISA as a level cap, -1 when unset; throws on an unknown name.
int32_t requestedCap() {
  const char *value = std::getenv("CUVIL_ISA");
  if (!value || !*value)
    return -1;
  for (int32_t level = 0; level < 3; ++level)
    if (std::strcmp(value, kLevelNames[level]) == 0)
      return level;
  throw std::runtime_error(std::string("CUVIL_ISA='") + value +
                           "' is not one of baseline, avx2, avx512");
}

int32_t effectiveLevel() {
  static const int32_t level = [] {
    int32_t detected = detectLevel();
    int32_t cap = requestedCap();
    return cap >= 0 && cap < detected ? cap : detected;
  }();
  return level;
}

} // namespace

const char *isaLevelName(int32_t level) {
  return level >= 0 && level < 3 ? kLevelNames[level] : "unknown";
}

void checkIsaSupport(const cuvil_model_info &model) {
  requestedCap(); // reject a bad CUVIL_ISA before anything runs
  if (effectiveLevel() < model.min_isa_level)
    throw std::runtime_error(
        std::string("this executable needs a CPU with ") + isaLevelName(model.min_isa_level) +
        " (compiled variants: " + model.isa_variants + "), but this one offers " +
        isaLevelName(effectiveLevel()) + (std::getenv("CUVIL_ISA") ? " under CUVIL_ISA" : ""));
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
  int32_t level = effectiveLevel();
  for (const std::string &name : names) {
    for (int32_t l = 0; l < 3; ++l)
      if (name == kLevelNames[l] && l <= level)
        return name;
  }
  return names.empty() ? std::string() : names.back();
}

} // namespace cuvil::runtime

extern "C" int32_t cuvil_isa_level(void) { return cuvil::runtime::effectiveLevel(); }
