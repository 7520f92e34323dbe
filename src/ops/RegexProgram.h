// The automaton RegexFullMatch's kernel runs (include/cuvil/kernels/Regex.h),
// compiled from a pattern in RE2's syntax, the one ONNX names.
#pragma once

#include "cuvil/support/Status.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace cuvil::ops {

struct RegexProgram {
  std::vector<int32_t> states;  // four numbers a state: op, a, b, next
  std::vector<uint32_t> ranges; // inclusive code point ranges: low, high
  int32_t start = 0;
  int64_t numStates() const { return int64_t(states.size() / 4); }
};

// The program of `pattern`, or what is wrong with it and where. RE2's syntax
// for matching: literals and escapes (\x{...}, octal, \Q...\E), ., classes
// ([...] with ranges, negation, [:posix:] and Perl \d \s \w classes),
// groups (capturing, named, (?:...)), alternation, greedy and lazy
// repetition (*, +, ?, {n,m} up to 1000; lazy is the same for a match of
// the whole text), anchors (^ $ \A \z \b \B) and the flags i, m, s and U.
// Case folding covers the letters of ASCII, Latin-1, Latin Extended-A,
// Greek and Cyrillic. Refused, with a message saying so: Unicode classes
// (\p, \P), \C, backreferences, and programs of more than
// CUVIL_REGEX_MAX_STATES states.
Expected<RegexProgram> compileRegex(std::string_view pattern);

} // namespace cuvil::ops
