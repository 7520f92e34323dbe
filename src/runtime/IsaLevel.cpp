// The instruction-set level of this CPU, as cuvil_run picks its variant by:
// libc only (no C++ runtime library), for model libraries as for infer.bin.
#include "Isa.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__aarch64__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

namespace cuvil::runtime {
namespace {

// In the order of cuvil_isa_level (ModelABI.h): each level includes the
// ones before it.
#if defined(__aarch64__)
constexpr const char *kLevelNames[] = {"neon", "sve"};
#else
constexpr const char *kLevelNames[] = {"baseline", "avx2", "avx512", "avx512vnni", "avx512bf16"};
#endif
constexpr int32_t kLevels = int32_t(sizeof kLevelNames / sizeof kLevelNames[0]);

// "baseline, avx2, ...", joined at compile time (no C++ runtime here).
constexpr auto kLevelList = [] {
  std::array<char, 64> text{};
  size_t length = 0;
  for (const char *name : kLevelNames) {
    if (length > 0) {
      text[length++] = ',';
      text[length++] = ' ';
    }
    for (const char *c = name; *c; ++c)
      text[length++] = *c;
  }
  return text;
}();

int32_t detectLevel() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
              __builtin_cpu_supports("bmi2");
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512vl");
  bool vnni = avx512 && __builtin_cpu_supports("avx512vnni");
  bool bf16 = vnni && __builtin_cpu_supports("avx512bf16");
  return bf16 ? 4 : (vnni ? 3 : (avx512 ? 2 : (avx2 ? 1 : 0)));
#elif defined(__aarch64__)
  constexpr unsigned long kHwcapSve = 1ul << 22; // HWCAP_SVE (asm/hwcap.h)
  return (getauxval(AT_HWCAP) & kHwcapSve) ? 1 : 0;
#else
  return 0;
#endif
}

} // namespace

int32_t scalableVectorBits() {
#if defined(__aarch64__)
  if (effectiveIsaLevel() >= 1) {
    int length = prctl(PR_SVE_GET_VL, 0, 0, 0, 0);
    if (length > 0)
      return (length & PR_SVE_VL_LEN_MASK) * 8;
  }
#endif
  return 0;
}

int32_t isaLevelCount() { return kLevels; }

const char *isaLevelNames() { return kLevelList.data(); }

const char *isaLevelName(int32_t level) {
  return level >= 0 && level < kLevels ? kLevelNames[level] : "unknown";
}

int32_t requestedIsaCap() {
  const char *value = std::getenv("CUVIL_ISA");
  if (!value || !*value)
    return -1;
  for (int32_t level = 0; level < kLevels; ++level)
    if (std::strcmp(value, kLevelNames[level]) == 0)
      return level;
  return kUnknownIsaCap;
}

int32_t effectiveIsaLevel() {
  // Computed once; racing first calls compute the same value.
  static std::atomic<int32_t> cached{-1};
  int32_t level = cached.load(std::memory_order_relaxed);
  if (level < 0) {
    level = detectLevel();
    int32_t cap = requestedIsaCap();
    if (cap >= 0 && cap < level)
      level = cap;
    cached.store(level, std::memory_order_relaxed);
  }
  return level;
}

} // namespace cuvil::runtime

extern "C" int32_t cuvil_isa_level(void) { return cuvil::runtime::effectiveIsaLevel(); }
