#include "RegexCodePoints.h"

#include <algorithm>
#include <optional>

namespace cuvil::ops::regex {
namespace {

// Letters with a case partner: lower-case code points [first, last] (every
// step-th), upper case = lower + delta; then the pairs outside that rule
// whose case folding RE2 also follows (Kelvin sign, long s, micro sign,
// Angstrom sign, final sigma).
struct CaseRange {
  uint32_t first, last;
  int32_t delta;
  uint32_t step;
};
constexpr CaseRange kCaseRanges[] = {
    {0x61, 0x7A, -32, 1},   {0xE0, 0xF6, -32, 1},    {0xF8, 0xFE, -32, 1},
    {0xFF, 0xFF, 0x79, 1},  {0x101, 0x12F, -1, 2},   {0x133, 0x137, -1, 2},
    {0x13A, 0x148, -1, 2},  {0x14B, 0x177, -1, 2},   {0x17A, 0x17E, -1, 2},
    {0x3B1, 0x3C1, -32, 1}, {0x3C3, 0x3C9, -32, 1},  {0x430, 0x44F, -32, 1},
    {0x450, 0x45F, -80, 1}, {0x3C2, 0x3C2, -31, 1},  {0x17F, 0x17F, -300, 1},
    {0xB5, 0xB5, 0x2E7, 1}, {0x6B, 0x6B, 0x20BF, 1}, {0xE5, 0xE5, 0x2046, 1},
};
constexpr uint32_t kLastCased = 0x212B; // the largest code point above

// Every code point c folds together with (its case orbit, c included).
std::vector<uint32_t> caseOrbit(uint32_t c) {
  std::vector<uint32_t> orbit = {c};
  for (size_t i = 0; i < orbit.size(); ++i)
    for (const CaseRange &range : kCaseRanges) {
      const uint32_t x = orbit[i];
      std::optional<uint32_t> partner;
      if (x >= range.first && x <= range.last && (x - range.first) % range.step == 0)
        partner = uint32_t(int64_t(x) + range.delta);
      const int64_t upperFirst = int64_t(range.first) + range.delta;
      const int64_t upperLast = int64_t(range.last) + range.delta;
      if (int64_t(x) >= upperFirst && int64_t(x) <= upperLast &&
          (int64_t(x) - upperFirst) % range.step == 0)
        partner = uint32_t(int64_t(x) - range.delta);
      if (partner && std::find(orbit.begin(), orbit.end(), *partner) == orbit.end())
        orbit.push_back(*partner);
    }
  return orbit;
}

struct NamedRanges {
  std::string_view name;
  CodePointRanges ranges;
};
const NamedRanges kPosixClasses[] = {
    {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
    {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
    {"ascii", {{0, 0x7F}}},
    {"blank", {{'\t', '\t'}, {' ', ' '}}},
    {"cntrl", {{0, 0x1F}, {0x7F, 0x7F}}},
    {"digit", {{'0', '9'}}},
    {"graph", {{'!', '~'}}},
    {"lower", {{'a', 'z'}}},
    {"print", {{' ', '~'}}},
    {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}},
    {"space", {{'\t', '\r'}, {' ', ' '}}},
    {"upper", {{'A', 'Z'}}},
    {"word", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}, {'_', '_'}}},
    {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
};
const NamedRanges kPerlClasses[] = {
    {"d", {{'0', '9'}}},
    {"s", {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}}},
    {"w", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}, {'_', '_'}}},
};

} // namespace

CodePointRanges normalized(CodePointRanges ranges) {
  std::sort(ranges.begin(), ranges.end());
  CodePointRanges merged;
  for (const auto &[low, high] : ranges)
    if (!merged.empty() && low <= merged.back().second + 1)
      merged.back().second = std::max(merged.back().second, high);
    else
      merged.emplace_back(low, high);
  return merged;
}

CodePointRanges complement(const CodePointRanges &ranges) {
  CodePointRanges result;
  uint32_t next = 0;
  for (const auto &[low, high] : normalized(ranges)) {
    if (low > next)
      result.emplace_back(next, low - 1);
    next = high + 1;
  }
  if (next <= kMaxCodePoint)
    result.emplace_back(next, kMaxCodePoint);
  return result;
}

CodePointRanges caseFolded(const CodePointRanges &ranges) {
  CodePointRanges result = ranges;
  for (const auto &[low, high] : ranges)
    for (uint32_t c = low; c <= std::min(high, kLastCased); ++c)
      for (uint32_t other : caseOrbit(c))
        result.emplace_back(other, other);
  return normalized(std::move(result));
}

const CodePointRanges *posixClass(std::string_view name) {
  for (const NamedRanges &entry : kPosixClasses)
    if (entry.name == name)
      return &entry.ranges;
  return nullptr;
}

const CodePointRanges *perlClass(char letter) {
  for (const NamedRanges &entry : kPerlClasses)
    if (entry.name[0] == letter)
      return &entry.ranges;
  return nullptr;
}

} // namespace cuvil::ops::regex
