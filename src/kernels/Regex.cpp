// RegexFullMatch (include/cuvil/kernels/Regex.h): Thompson's simulation,
// as RE2 and Go run an automaton when no submatch is wanted:
//   states = closure({start}) at position 0
//   for each code point c of the string, at position i:
//     states = closure({s.next : s in states, s a RANGES state holding c})
//              at position i + 1                     (stop once empty)
//   y = the text ended and MATCH is in states
// A closure follows SPLIT edges, and ASSERT edges whose conditions hold
// between the code points around its position; it keeps the states that
// consume (or accept). Each state enters a set once (a generation mark),
// so a closure costs O(states) and a string O(states x code points).
#include "KernelSupport.h"

#include "cuvil/kernels/Regex.h"

namespace {

constexpr uint32_t kReplacement = 0xFFFD;
constexpr int32_t kNoCode = -1; // before the first or after the last code point

struct CodePoint {
  uint32_t code;
  int64_t bytes;
};

// The code point at s[i]. A sequence that is not shortest-form UTF-8 of a
// scalar value (overlong, a surrogate, above U+10FFFF, truncated) is one
// byte read as U+FFFD.
CUVIL_INLINE CodePoint decode(const uint8_t *s, int64_t size, int64_t i) {
  const uint32_t b0 = s[i];
  if (b0 < 0x80)
    return {b0, 1};
  const int64_t length = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
  if (length == 0 || b0 > 0xF4 || i + length > size)
    return {kReplacement, 1};
  uint32_t code = b0 & (0x7F >> length);
  for (int64_t k = 1; k < length; ++k) {
    if ((s[i + k] & 0xC0) != 0x80)
      return {kReplacement, 1};
    code = code << 6 | (s[i + k] & 0x3F);
  }
  constexpr uint32_t kShortest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kShortest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
    return {kReplacement, 1};
  return {code, length};
}

CUVIL_INLINE bool isWord(int32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

// The ASSERT conditions that hold between code points `before` and
// `after` (kNoCode at the ends of the text).
CUVIL_INLINE int32_t conditionsAt(int32_t before, int32_t after) {
  int32_t held = 0;
  if (before == kNoCode)
    held |= CUVIL_REGEX_BEGIN_TEXT | CUVIL_REGEX_BEGIN_LINE;
  if (after == kNoCode)
    held |= CUVIL_REGEX_END_TEXT | CUVIL_REGEX_END_LINE;
  if (before == '\n')
    held |= CUVIL_REGEX_BEGIN_LINE;
  if (after == '\n')
    held |= CUVIL_REGEX_END_LINE;
  held |=
      isWord(before) != isWord(after) ? CUVIL_REGEX_WORD_BOUNDARY : CUVIL_REGEX_NOT_WORD_BOUNDARY;
  return held;
}

CUVIL_INLINE bool inRanges(const uint32_t *ranges, int32_t first, int32_t count, uint32_t c) {
  for (int32_t r = first; r < first + count; ++r) {
    if (c < ranges[2 * r])
      return false; // ascending: no later range holds it
    if (c <= ranges[2 * r + 1])
      return true;
  }
  return false;
}

// The states of one position: those that consume or accept.
struct StateSet {
  int32_t count;
  int32_t ids[CUVIL_REGEX_MAX_STATES];
};

struct Automaton {
  const int32_t *program;
  uint32_t *marks; // the generation each state last entered a set in
  int32_t *stack;  // states reached, their edges not yet followed

  // Adds the closure of `state` under `held` to `set`, within the
  // generation `generation` (the set's).
  CUVIL_LAMBDA_INLINE void close(int32_t state, int32_t held, uint32_t generation,
                                 StateSet &set) const {
    if (marks[state] == generation)
      return;
    marks[state] = generation;
    int64_t depth = 0;
    stack[depth++] = state;
    while (depth > 0) {
      const int32_t s = stack[--depth];
      const int32_t *inst = program + 4 * s;
      auto reach = [&](int32_t next) {
        if (marks[next] != generation) {
          marks[next] = generation;
          stack[depth++] = next;
        }
      };
      switch (inst[0]) {
      case CUVIL_REGEX_SPLIT:
        reach(inst[2]);
        reach(inst[1]);
        break;
      case CUVIL_REGEX_ASSERT:
        if ((inst[1] & ~held) == 0)
          reach(inst[3]);
        break;
      default: // MATCH, RANGES
        set.ids[set.count++] = s;
      }
    }
  }
};

} // namespace

CUVIL_KERNEL void cuvil_regex_full_match(const struct cuvil_string *x, const int32_t *program,
                                         const uint32_t *ranges, uint8_t *y,
                                         const struct cuvil_regex_params *p, int64_t begin,
                                         int64_t end) {
  uint32_t marks[CUVIL_REGEX_MAX_STATES];
  int32_t stack[CUVIL_REGEX_MAX_STATES];
  StateSet sets[2];
  for (int64_t s = 0; s < p->states; ++s)
    marks[s] = 0;
  const Automaton automaton{program, marks, stack};
  uint32_t generation = 0;
  auto nextGeneration = [&] { // a wrapped count would find stale marks current
    if (++generation == 0) {
      for (int64_t s = 0; s < p->states; ++s)
        marks[s] = 0;
      generation = 1;
    }
    return generation;
  };
  for (int64_t i = begin; i < end; ++i) {
    const uint8_t *text = reinterpret_cast<const uint8_t *>(x[i].data);
    const int64_t size = x[i].size;
    StateSet *current = &sets[0], *next = &sets[1];
    int64_t at = 0;
    CodePoint c = size > 0 ? decode(text, size, 0) : CodePoint{0, 0};
    current->count = 0;
    automaton.close(int32_t(p->start), conditionsAt(kNoCode, size > 0 ? int32_t(c.code) : kNoCode),
                    nextGeneration(), *current);
    while (at < size && current->count > 0) {
      at += c.bytes;
      const CodePoint after = at < size ? decode(text, size, at) : CodePoint{0, 0};
      const int32_t held = conditionsAt(int32_t(c.code), at < size ? int32_t(after.code) : kNoCode);
      next->count = 0;
      const uint32_t stepGeneration = nextGeneration();
      for (int32_t k = 0; k < current->count; ++k) {
        const int32_t *inst = program + 4 * current->ids[k];
        if (inst[0] == CUVIL_REGEX_RANGES && inRanges(ranges, inst[1], inst[2], c.code))
          automaton.close(inst[3], held, stepGeneration, *next);
      }
      StateSet *swap = current;
      current = next;
      next = swap;
      c = after;
    }
    bool matched = false;
    if (at == size)
      for (int32_t k = 0; k < current->count; ++k)
        matched = matched || program[4 * current->ids[k]] == CUVIL_REGEX_MATCH;
    y[i] = matched ? 1 : 0;
  }
}
