// Sets of code points for RegexProgram's parser: sorted inclusive ranges,
// their complement and case folding as RE2 has them, and the named classes.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace cuvil::ops::regex {

using CodePointRanges = std::vector<std::pair<uint32_t, uint32_t>>; // inclusive
constexpr uint32_t kMaxCodePoint = 0x10FFFF;

// Sorted, with overlapping and adjacent ranges merged.
CodePointRanges normalized(CodePointRanges ranges);
// Every code point up to kMaxCodePoint not in `ranges`.
CodePointRanges complement(const CodePointRanges &ranges);
// `ranges` with the case partners of every letter in them (ASCII, Latin-1,
// Latin Extended-A, Greek, Cyrillic, and RE2's extra orbits: the Kelvin
// sign, long s, micro sign, Angstrom sign, final sigma).
CodePointRanges caseFolded(const CodePointRanges &ranges);
// The [:name:] class (alnum, alpha, ..., xdigit); null for another name.
const CodePointRanges *posixClass(std::string_view name);
// The Perl class \d, \s or \w by its lower-case letter; null for another.
const CodePointRanges *perlClass(char letter);

} // namespace cuvil::ops::regex
