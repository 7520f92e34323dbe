// A tensor dimension: a constant, or an integer expression over named
// symbols (the dims a model leaves open, `batch` or `sequence`, and extents
// computed from data) with known bounds. Static shapes are the special case
// where every dim is a constant.
//
// Expressions are kept in one canonical form, a polynomial over atoms (a
// symbol, or floordiv / min / max of two expressions), so that equal
// expressions compare equal: (s * 64) floordiv 64 is s, s + s - 2 * s is 0.
// ceildiv and mod are written with floordiv. Bounds come from the symbols'
// ranges by interval arithmetic, and simplify min, max and floordiv where
// they decide them.
#pragma once

#include <cstdint>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cuvil {

using SymbolId = uint32_t;

// A symbol's range [min, max] and the value the static path is compiled
// for (opt). Data-dependent symbols (an extent a kernel computes) have
// opt = max.
struct SymbolInfo {
  std::string name;
  int64_t min = 1, opt = 1, max = 1;
  bool fromData = false;
  // fromData: the value whose extent it is (empty when read from text).
  std::string owner = {};
};

// `text` as a symbol name the textual IR can spell: characters outside
// [A-Za-z0-9_] become '_', and a leading digit gets a '_' before it.
std::string symbolNameFrom(std::string_view text);

// Every symbol of the process, by id (ids are never reused, so expressions
// of different graphs cannot mix up their symbols).
class SymbolTable {
public:
  static SymbolTable &global();
  SymbolId add(SymbolInfo info);
  const SymbolInfo &info(SymbolId id) const { return symbols_[id]; }
  size_t size() const { return symbols_.size(); }

private:
  std::vector<SymbolInfo> symbols_;
};

// Dim arithmetic saturates at +-kDimLimit (bounds, coefficients and
// constants alike), far beyond any tensor: a value there means "overflowed".
constexpr int64_t kDimLimit = int64_t(1) << 62;

struct Interval {
  int64_t lo, hi;
};

class Dim {
public:
  Dim(int64_t value = 0) : constant_(value) {} // NOLINT: constants are dims
  static Dim symbol(SymbolId id);

  bool isConstant() const { return !terms_; }
  // The value of a constant dim (asserts isConstant()).
  int64_t constant() const;
  // Bounds over every value of the symbols in their ranges.
  Interval bounds() const;
  int64_t min() const { return bounds().lo; }
  int64_t max() const { return bounds().hi; }
  // The value with every symbol at its opt value.
  int64_t opt() const;
  // The value for the given symbol values (indexed by SymbolId; missing
  // ones at their opt value).
  int64_t evaluate(std::span<const int64_t> values) const;
  // The symbols it depends on.
  std::vector<SymbolId> symbols() const;
  // Every symbol replaced by its opt value.
  Dim atOpt() const;

  friend Dim operator+(const Dim &a, const Dim &b);
  friend Dim operator-(const Dim &a, const Dim &b);
  friend Dim operator*(const Dim &a, const Dim &b);
  friend Dim operator-(const Dim &a) { return Dim(0) - a; }
  Dim &operator+=(const Dim &b) { return *this = *this + b; }
  Dim &operator-=(const Dim &b) { return *this = *this - b; }
  Dim &operator*=(const Dim &b) { return *this = *this * b; }
  // Structural equality of the canonical forms: true means equal for every
  // symbol value; false for two symbolic dims means "not known equal".
  bool operator==(const Dim &other) const;
  // True when the dim equals `value` for every symbol value.
  bool is(int64_t value) const { return isConstant() && constant_ == value; }
  // The symbol when the dim is exactly one symbol.
  std::optional<SymbolId> asSymbol() const;

  std::string str() const;

  // The canonical form, for code generators: constantTerm() plus the sum
  // of terms(), each a coefficient times a product of atoms.
  struct Atom;
  struct Term;
  int64_t constantTerm() const { return constant_; }
  std::span<const Term> terms() const;

private:
  using Terms = std::vector<Term>;
  Dim(int64_t constant, std::shared_ptr<const Terms> terms);
  static Dim make(int64_t constant, Terms terms);
  friend struct DimOps;

  int64_t constant_ = 0;
  std::shared_ptr<const Terms> terms_; // null for a constant
};

struct Dim::Atom {
  enum class Kind : uint8_t { Symbol, FloorDiv, Min, Max };
  Kind kind;
  SymbolId symbol = 0;
  Dim a, b; // FloorDiv: a floordiv b; Min, Max: the operands, ordered
};

struct Dim::Term {
  std::vector<Atom> factors; // ordered; a power repeats its factor
  int64_t coeff;
};

inline std::span<const Dim::Term> Dim::terms() const {
  return terms_ ? std::span<const Term>(*terms_) : std::span<const Term>();
}

// floor(a / b), ceil(a / b) and a - b floor(a / b) for b > 0.
Dim floorDiv(const Dim &a, const Dim &b);
Dim ceilDiv(const Dim &a, const Dim &b);
Dim mod(const Dim &a, const Dim &b);
Dim minDim(const Dim &a, const Dim &b);
Dim maxDim(const Dim &a, const Dim &b);

} // namespace cuvil

// Dims print as their expressions in messages.
template <> struct fmt::formatter<cuvil::Dim> : fmt::formatter<std::string> {
  auto format(const cuvil::Dim &dim, format_context &ctx) const {
    return fmt::formatter<std::string>::format(dim.str(), ctx);
  }
};
