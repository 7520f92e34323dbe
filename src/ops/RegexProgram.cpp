// RE2 syntax -> syntax tree -> Thompson automaton (RegexProgram.h). The
// parser follows RE2's rules where they differ from Perl's: $ is the end
// of the text (not before a final \n) outside (?m), \s is [\t\n\f\r ],
// classes hold \n unless they exclude it, a repetition of a repetition
// ("a**") and counts above 1000 are errors, and a { that starts no valid
// count is a literal.
#include "RegexProgram.h"
#include "RegexCodePoints.h"

#include "cuvil/kernels/Regex.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace cuvil::ops {
namespace {

constexpr uint32_t kMaxCode = regex::kMaxCodePoint;
constexpr int kMaxRepeat = 1000; // RE2's
constexpr int kMaxNesting = 1000;

using Ranges = regex::CodePointRanges;
using regex::caseFolded;
using regex::complement;
using regex::normalized;

struct Regex {
  enum class Kind { Empty, Ranges, Concat, Alternate, Repeat, Assert };
  Kind kind = Kind::Empty;
  Ranges ranges;            // Ranges: normalized
  std::vector<Regex> parts; // Concat, Alternate; Repeat: the one repeated
  int min = 0, max = -1;    // Repeat: max -1 is unbounded
  int32_t conditions = 0;   // Assert: cuvil_regex_assertion bits
};

Regex rangesOf(Ranges ranges) {
  Regex regex;
  regex.kind = Regex::Kind::Ranges;
  regex.ranges = normalized(std::move(ranges));
  return regex;
}

Regex assertion(int32_t conditions) {
  Regex regex;
  regex.kind = Regex::Kind::Assert;
  regex.conditions = conditions;
  return regex;
}

struct Flags {
  bool caseless = false, multiLine = false, dotNewline = false;
};

class Parser {
public:
  explicit Parser(std::string_view pattern) : text_(pattern) {}

  Expected<Regex> parse() {
    Regex regex = alternation();
    if (!error_ && !atEnd())
      fail("unexpected )", position_);
    if (error_)
      return Status::error(*error_);
    return regex;
  }

private:
  bool atEnd() const { return position_ >= text_.size(); }
  char peek(size_t ahead = 0) const {
    return position_ + ahead < text_.size() ? text_[position_ + ahead] : '\0';
  }
  bool startsWith(std::string_view prefix) const {
    return text_.substr(position_).starts_with(prefix);
  }
  void fail(std::string_view what, size_t at) {
    if (!error_)
      error_ = fmt::format("{} at offset {}", what, at);
  }

  // The UTF-8 code point at the position, consumed.
  uint32_t codePoint() {
    const auto b0 = uint8_t(text_[position_]);
    const size_t length = b0 < 0x80 ? 1 : b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
    uint32_t code = length == 1 ? b0 : b0 & (0x7F >> length);
    bool valid = length > 0 && position_ + length <= text_.size() && b0 <= 0xF4;
    for (size_t k = 1; valid && k < length; ++k) {
      const auto b = uint8_t(text_[position_ + k]);
      valid = (b & 0xC0) == 0x80;
      code = code << 6 | (b & 0x3F);
    }
    constexpr uint32_t kShortest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (!valid || code < kShortest[length] || code > kMaxCode ||
        (code >= 0xD800 && code <= 0xDFFF)) {
      fail("invalid UTF-8", position_);
      position_ = text_.size();
      return 0;
    }
    position_ += length;
    return code;
  }

  Regex literal(uint32_t c) const {
    Ranges ranges = {{c, c}};
    return rangesOf(flags_.caseless ? caseFolded(ranges) : ranges);
  }

  Regex alternation() {
    std::vector<Regex> branches = {concatenation()};
    while (!error_ && peek() == '|' && !atEnd()) {
      ++position_;
      branches.push_back(concatenation());
    }
    if (branches.size() == 1)
      return std::move(branches[0]);
    Regex regex;
    regex.kind = Regex::Kind::Alternate;
    regex.parts = std::move(branches);
    return regex;
  }

  Regex concatenation() {
    Regex regex;
    regex.kind = Regex::Kind::Concat;
    bool lastRepeated = false;
    while (!error_ && !atEnd() && peek() != '|' && peek() != ')') {
      const size_t at = position_;
      int min = 0, max = -1;
      if (repetition(min, max)) {
        const std::string_view op = text_.substr(at, position_ - at);
        if (regex.parts.empty())
          fail(fmt::format("missing argument to repetition operator {}", op), at);
        else if (lastRepeated)
          fail(fmt::format("bad repetition operator {} after a repetition", op), at);
        else if (min > kMaxRepeat || max > kMaxRepeat || (max >= 0 && max < min))
          fail(fmt::format("bad repetition operator {}", op), at);
        if (error_)
          break;
        if (peek() == '?') // lazy: the same set of matches
          ++position_;
        Regex repeat;
        repeat.kind = Regex::Kind::Repeat;
        repeat.min = min;
        repeat.max = max;
        repeat.parts.push_back(std::move(regex.parts.back()));
        regex.parts.back() = std::move(repeat);
        lastRepeated = true;
        continue;
      }
      lastRepeated = false;
      if (startsWith("\\Q")) { // literal text up to \E, each character an item
        position_ += 2;
        while (!error_ && !atEnd() && !startsWith("\\E"))
          regex.parts.push_back(literal(codePoint()));
        if (startsWith("\\E"))
          position_ += 2;
        continue;
      }
      if (std::optional<Regex> item = atom())
        regex.parts.push_back(std::move(*item));
    }
    return regex;
  }

  // *, +, ?, {n}, {n,}, {n,m} at the position: consumed, with its counts.
  bool repetition(int &min, int &max) {
    const char c = peek();
    if (c == '*' || c == '+' || c == '?') {
      ++position_;
      min = c == '+' ? 1 : 0;
      max = c == '?' ? 1 : -1;
      return true;
    }
    if (c != '{')
      return false;
    size_t at = position_ + 1;
    auto number = [&](int &value) {
      const size_t first = at;
      int64_t n = 0;
      while (at < text_.size() && text_[at] >= '0' && text_[at] <= '9') {
        n = std::min<int64_t>(n * 10 + (text_[at] - '0'), kMaxRepeat + 1);
        ++at;
      }
      value = int(n);
      return at > first;
    };
    if (!number(min))
      return false;
    max = min;
    if (at < text_.size() && text_[at] == ',') {
      ++at;
      if (!number(max))
        max = -1;
    }
    if (at >= text_.size() || text_[at] != '}')
      return false; // a literal {
    position_ = at + 1;
    return true;
  }

  // One item of a concatenation, or nullopt for a group that only sets flags.
  std::optional<Regex> atom() {
    switch (peek()) {
    case '(':
      return group();
    case '[':
      return characterClass();
    case '.':
      ++position_;
      return rangesOf(flags_.dotNewline ? Ranges{{0, kMaxCode}}
                                        : Ranges{{0, '\n' - 1}, {'\n' + 1, kMaxCode}});
    case '^':
      ++position_;
      return assertion(flags_.multiLine ? CUVIL_REGEX_BEGIN_LINE : CUVIL_REGEX_BEGIN_TEXT);
    case '$':
      ++position_;
      return assertion(flags_.multiLine ? CUVIL_REGEX_END_LINE : CUVIL_REGEX_END_TEXT);
    case '\\':
      return escape();
    default:
      return literal(codePoint());
    }
  }

  std::optional<Regex> group() {
    const size_t at = position_++;
    if (++nesting_ > kMaxNesting) {
      fail("groups nested too deeply", at);
      return Regex{};
    }
    const Flags outer = flags_;
    if (peek() == '?') {
      ++position_;
      if (startsWith("P<") || (peek() == '<' && peek(1) != '=' && peek(1) != '!')) {
        position_ += peek() == 'P' ? 2 : 1;
        const size_t name = position_;
        while (!atEnd() && (std::isalnum(uint8_t(peek())) || peek() == '_'))
          ++position_;
        if (position_ == name || peek() != '>') {
          fail("invalid named capture group", at);
          return Regex{};
        }
        ++position_;
      } else if (!groupFlags(at)) { // (?flags) alone: they hold to the enclosing group's end
        --nesting_;
        return std::nullopt;
      }
    }
    Regex body = alternation();
    if (!error_ && peek() != ')')
      fail("missing )", at);
    ++position_;
    flags_ = outer;
    --nesting_;
    return body;
  }

  // The flags of "(?flags:" or "(?flags)", after the "(?", set: true when
  // a group body follows (the ':'), false when the group ends there. No
  // flags is a plain group "(?:" but an error "(?)"; so is a '-' with none
  // after it.
  bool groupFlags(size_t at) {
    bool negated = false, any = false;
    for (; !atEnd(); ++position_) {
      const char c = peek();
      if (c == ':' || c == ')') {
        ++position_;
        if ((c == ')' && !any) || (negated && !any))
          fail("invalid or unsupported Perl syntax", at);
        return c == ':';
      }
      if (c == '-' && !negated) {
        negated = true;
        any = false;
        continue;
      }
      bool *flag = c == 'i'   ? &flags_.caseless
                   : c == 'm' ? &flags_.multiLine
                   : c == 's' ? &flags_.dotNewline
                              : nullptr;
      if (!flag && c != 'U') // U swaps greedy and lazy: the same matches
        break;
      if (flag)
        *flag = !negated;
      any = true;
    }
    fail("invalid or unsupported Perl syntax", at);
    return false;
  }

  // A named class's ranges, negated or not. As RE2 does, (?i) folds the
  // class before it is negated: (?i)\w holds the Kelvin sign and long s,
  // so (?i)\W does not.
  Ranges namedClass(const Ranges &ranges, bool negated) const {
    Ranges folded = flags_.caseless ? caseFolded(ranges) : ranges;
    return negated ? complement(folded) : folded;
  }

  // A Perl class (\d \s \w, or negated \D \S \W) at the position, after
  // its backslash: consumed.
  std::optional<Ranges> perlClass() {
    const char c = peek();
    const Ranges *perl = regex::perlClass(char(std::tolower(uint8_t(c))));
    if (!perl)
      return std::nullopt;
    ++position_;
    return namedClass(*perl, std::isupper(uint8_t(c)));
  }

  std::optional<Regex> escape() {
    const size_t at = position_++;
    if (atEnd()) {
      fail("trailing \\", at);
      return Regex{};
    }
    if (std::optional<Ranges> perl = perlClass())
      return rangesOf(std::move(*perl));
    constexpr std::pair<char, int32_t> kAssertions[] = {{'A', CUVIL_REGEX_BEGIN_TEXT},
                                                        {'z', CUVIL_REGEX_END_TEXT},
                                                        {'b', CUVIL_REGEX_WORD_BOUNDARY},
                                                        {'B', CUVIL_REGEX_NOT_WORD_BOUNDARY}};
    for (const auto &[name, conditions] : kAssertions)
      if (peek() == name) {
        ++position_;
        return assertion(conditions);
      }
    return literal(escapedCodePoint(at));
  }

  // The code point an escape stands for, the position after its backslash
  // (`at`: the backslash's offset, for messages).
  uint32_t escapedCodePoint(size_t at) {
    const char c = peek();
    constexpr std::pair<char, uint32_t> kControls[] = {{'a', 7},  {'f', 12}, {'t', 9},
                                                       {'n', 10}, {'r', 13}, {'v', 11}};
    for (const auto &[name, code] : kControls)
      if (c == name) {
        ++position_;
        return code;
      }
    if (c == 'x') {
      ++position_;
      return hexEscape(at);
    }
    // \0, or \1-\7 followed by an octal digit: up to three octal digits.
    // A lone \1-\9 would be a backreference, which RE2 does not have.
    if (c >= '0' && c <= '7' && (c == '0' || (peek(1) >= '0' && peek(1) <= '7'))) {
      uint32_t code = 0;
      for (int digits = 0; digits < 3 && peek() >= '0' && peek() <= '7'; ++digits)
        code = code * 8 + uint32_t(text_[position_++] - '0');
      return code;
    }
    if (c == 'p' || c == 'P')
      fail("Unicode character classes (\\p, \\P) are not supported", at);
    else if (c == 'C')
      fail("\\C (any byte) is not supported", at);
    else if (uint8_t(c) < 0x80 && !std::isalnum(uint8_t(c)) && c != '_') {
      ++position_; // escaped punctuation stands for itself
      return uint8_t(c);
    } else {
      const size_t character = position_;
      codePoint(); // the whole character, for the message
      fail(fmt::format("invalid escape sequence \\{}",
                       text_.substr(character, position_ - character)),
           at);
    }
    return 0;
  }

  // \xhh or \x{h...}, after the x.
  uint32_t hexEscape(size_t at) {
    auto digit = [](char c) -> int {
      return c >= '0' && c <= '9'   ? c - '0'
             : c >= 'a' && c <= 'f' ? c - 'a' + 10
             : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                    : -1;
    };
    uint32_t code = 0;
    if (peek() == '{') {
      ++position_;
      const size_t first = position_;
      while (digit(peek()) >= 0 && code <= kMaxCode)
        code = code * 16 + uint32_t(digit(text_[position_++]));
      if (position_ == first || peek() != '}' || code > kMaxCode) {
        fail("invalid escape sequence \\x{...}", at);
        return 0;
      }
      ++position_;
      return code;
    }
    for (int k = 0; k < 2; ++k) {
      if (digit(peek()) < 0) {
        fail("invalid escape sequence \\x", at);
        return 0;
      }
      code = code * 16 + uint32_t(digit(text_[position_++]));
    }
    return code;
  }

  // One character of a class: an escape or a literal code point.
  uint32_t classCharacter() {
    if (peek() != '\\')
      return codePoint();
    const size_t at = position_++;
    if (atEnd()) {
      fail("missing ]", at);
      return 0;
    }
    return escapedCodePoint(at);
  }

  Regex characterClass() {
    const size_t at = position_++;
    const bool negated = peek() == '^';
    if (negated)
      ++position_;
    Ranges ranges;
    for (bool first = true; !error_; first = false) {
      if (atEnd()) {
        fail("missing ]", at);
        break;
      }
      if (peek() == ']' && !first)
        break;
      if (startsWith("[:")) {
        const size_t close = text_.find(":]", position_ + 2);
        std::string_view name = close == std::string_view::npos
                                    ? std::string_view()
                                    : text_.substr(position_ + 2, close - position_ - 2);
        const bool negatedPosix = name.starts_with('^');
        name.remove_prefix(negatedPosix ? 1 : 0);
        if (const Ranges *posix = regex::posixClass(name)) {
          position_ = close + 2;
          Ranges added = namedClass(*posix, negatedPosix);
          ranges.insert(ranges.end(), added.begin(), added.end());
          continue;
        }
        if (close != std::string_view::npos) {
          fail(fmt::format("invalid character class [:{}:]", name), position_);
          break;
        }
      }
      if (peek() == '\\') {
        ++position_;
        if (std::optional<Ranges> perl = perlClass()) {
          ranges.insert(ranges.end(), perl->begin(), perl->end());
          continue;
        }
        --position_;
      }
      // A '-' is a literal first or last; elsewhere it must make a range.
      if (peek() == '-' && !first && peek(1) != ']') {
        fail("bad character class range", position_);
        break;
      }
      const size_t rangeAt = position_;
      const uint32_t low = classCharacter();
      uint32_t high = low;
      if (!error_ && peek() == '-' && peek(1) != ']' && position_ + 1 < text_.size()) {
        ++position_;
        high = classCharacter();
        if (!error_ && high < low)
          fail(fmt::format("bad character class range {}",
                           text_.substr(rangeAt, position_ - rangeAt)),
               rangeAt);
      }
      ranges.emplace_back(low, high);
    }
    ++position_;
    Ranges normal = normalized(std::move(ranges));
    if (flags_.caseless)
      normal = caseFolded(normal);
    return rangesOf(negated ? complement(normal) : std::move(normal));
  }

  std::string_view text_;
  size_t position_ = 0;
  Flags flags_;
  int nesting_ = 0;
  std::optional<std::string> error_;
};

// Thompson's construction, backwards: each part compiles knowing the state
// it continues to, so a concatenation compiles its parts last to first and
// a repetition copies its part once per count (x{2,4} = x x (x (x)?)?).
class Compiler {
public:
  Expected<RegexProgram> compile(const Regex &regex) {
    const int32_t match = add(CUVIL_REGEX_MATCH, 0, 0, 0);
    program_.start = compile(regex, match);
    if (tooLarge_)
      return Status::error(
          fmt::format("the pattern needs more than {} automaton states", CUVIL_REGEX_MAX_STATES));
    return std::move(program_);
  }

private:
  int32_t add(int32_t op, int32_t a, int32_t b, int32_t next) {
    if (program_.numStates() >= CUVIL_REGEX_MAX_STATES) {
      tooLarge_ = true;
      return 0;
    }
    for (int32_t field : {op, a, b, next})
      program_.states.push_back(field);
    return int32_t(program_.numStates() - 1);
  }

  int32_t rangeIndex(const Ranges &ranges) {
    auto [entry, added] = rangeIndices_.try_emplace(ranges, int32_t(program_.ranges.size() / 2));
    if (added)
      for (const auto &[low, high] : ranges)
        program_.ranges.insert(program_.ranges.end(), {low, high});
    return entry->second;
  }

  int32_t compile(const Regex &regex, int32_t next) {
    if (tooLarge_)
      return 0;
    switch (regex.kind) {
    case Regex::Kind::Empty:
      return next;
    case Regex::Kind::Ranges:
      return add(CUVIL_REGEX_RANGES, rangeIndex(regex.ranges), int32_t(regex.ranges.size()), next);
    case Regex::Kind::Assert:
      return add(CUVIL_REGEX_ASSERT, regex.conditions, 0, next);
    case Regex::Kind::Concat:
      for (auto part = regex.parts.rbegin(); part != regex.parts.rend(); ++part)
        next = compile(*part, next);
      return next;
    case Regex::Kind::Alternate: {
      std::vector<int32_t> starts;
      for (const Regex &part : regex.parts)
        starts.push_back(compile(part, next));
      int32_t state = starts.back();
      for (size_t i = starts.size() - 1; i-- > 0;)
        state = add(CUVIL_REGEX_SPLIT, starts[i], state, 0);
      return state;
    }
    case Regex::Kind::Repeat: {
      const Regex &part = regex.parts[0];
      int32_t tail = next;
      if (regex.max < 0) { // loop = split(part -> loop, next)
        tail = add(CUVIL_REGEX_SPLIT, 0, next, 0);
        const int32_t body = compile(part, tail);
        if (!tooLarge_)
          program_.states[4 * size_t(tail) + 1] = body;
      } else {
        for (int copy = regex.min; copy < regex.max && !tooLarge_; ++copy)
          tail = add(CUVIL_REGEX_SPLIT, compile(part, tail), next, 0);
      }
      for (int copy = 0; copy < regex.min && !tooLarge_; ++copy)
        tail = compile(part, tail);
      return tail;
    }
    }
    return next;
  }

  RegexProgram program_;
  std::map<Ranges, int32_t> rangeIndices_;
  bool tooLarge_ = false;
};

} // namespace

Expected<RegexProgram> compileRegex(std::string_view pattern) {
  Expected<Regex> regex = Parser(pattern).parse();
  CUVIL_TRY(regex.status());
  return Compiler().compile(*regex);
}

} // namespace cuvil::ops
