#include "cuvil/ir/Dim.h"

#include <cctype>

#include <algorithm>
#include <cassert>
#include <fmt/format.h>

namespace cuvil {

namespace {

int64_t saturate(__int128 value) {
  return int64_t(std::clamp<__int128>(value, -kDimLimit, kDimLimit));
}

// Coefficients and constants saturate too: a model may ask for dims whose
// products overflow 64 bits (a Reshape to [2^40, 2^40]); the result is then
// absurdly large, and inferNodeTypes refuses it, instead of wrapping into a
// plausible size.
int64_t saturatingAdd(int64_t a, int64_t b) { return saturate(__int128(a) + b); }
int64_t saturatingMultiply(int64_t a, int64_t b) { return saturate(__int128(a) * b); }

// In 128 bits: INT64_MIN / -1 is the one quotient that does not fit.
int64_t floorDivide(int64_t a, int64_t b) {
  __int128 q = __int128(a) / b, r = __int128(a) % b;
  return saturate((r != 0 && ((a < 0) != (b < 0))) ? q - 1 : q);
}

Interval multiply(Interval x, Interval y) {
  __int128 c[4] = {__int128(x.lo) * y.lo, __int128(x.lo) * y.hi, __int128(x.hi) * y.lo,
                   __int128(x.hi) * y.hi};
  return {saturate(*std::min_element(c, c + 4)), saturate(*std::max_element(c, c + 4))};
}

} // namespace

// The operations on canonical forms.
struct DimOps {
  using Atom = Dim::Atom;
  using Term = Dim::Term;
  using Terms = Dim::Terms;

  static const Terms &terms(const Dim &d) {
    static const Terms none;
    return d.terms_ ? *d.terms_ : none;
  }

  static int compare(const Dim &a, const Dim &b) {
    const Terms &ta = terms(a), &tb = terms(b);
    for (size_t i = 0; i < std::min(ta.size(), tb.size()); ++i)
      if (int c = compare(ta[i], tb[i]))
        return c;
    if (ta.size() != tb.size())
      return ta.size() < tb.size() ? -1 : 1;
    return a.constant_ < b.constant_ ? -1 : (a.constant_ > b.constant_ ? 1 : 0);
  }

  static int compareFactors(const std::vector<Atom> &a, const std::vector<Atom> &b) {
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
      if (int c = compare(a[i], b[i]))
        return c;
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
  }

  static int compare(const Term &a, const Term &b) {
    if (int c = compareFactors(a.factors, b.factors))
      return c;
    return a.coeff < b.coeff ? -1 : (a.coeff > b.coeff ? 1 : 0);
  }

  static int compare(const Atom &a, const Atom &b) {
    if (a.kind != b.kind)
      return a.kind < b.kind ? -1 : 1;
    if (a.kind == Atom::Kind::Symbol)
      return a.symbol < b.symbol ? -1 : (a.symbol > b.symbol ? 1 : 0);
    if (int c = compare(a.a, b.a))
      return c;
    return compare(a.b, b.b);
  }

  // Sorts, merges terms with the same factors and drops zero ones.
  static Dim normalize(int64_t constant, Terms terms) {
    std::sort(terms.begin(), terms.end(), [](const Term &x, const Term &y) {
      return compareFactors(x.factors, y.factors) < 0;
    });
    Terms merged;
    for (Term &term : terms) {
      if (!merged.empty() && compareFactors(merged.back().factors, term.factors) == 0)
        merged.back().coeff = saturatingAdd(merged.back().coeff, term.coeff);
      else
        merged.push_back(std::move(term));
      if (merged.back().coeff == 0)
        merged.pop_back();
    }
    return Dim::make(constant, std::move(merged));
  }

  static Dim atom(Atom atom) { return Dim::make(0, Terms{Term{{std::move(atom)}, 1}}); }

  static Dim add(const Dim &a, const Dim &b, int64_t sign) {
    Terms all = terms(a);
    for (Term term : terms(b)) {
      term.coeff = saturatingMultiply(term.coeff, sign);
      all.push_back(std::move(term));
    }
    return normalize(saturatingAdd(a.constant_, saturatingMultiply(sign, b.constant_)),
                     std::move(all));
  }

  static Dim multiply(const Dim &a, const Dim &b) {
    Terms all;
    for (const Term &t : terms(a))
      all.push_back({t.factors, saturatingMultiply(t.coeff, b.constant_)});
    for (const Term &t : terms(b))
      all.push_back({t.factors, saturatingMultiply(t.coeff, a.constant_)});
    for (const Term &x : terms(a))
      for (const Term &y : terms(b)) {
        std::vector<Atom> factors = x.factors;
        factors.insert(factors.end(), y.factors.begin(), y.factors.end());
        std::sort(factors.begin(), factors.end(),
                  [](const Atom &p, const Atom &q) { return compare(p, q) < 0; });
        all.push_back({std::move(factors), saturatingMultiply(x.coeff, y.coeff)});
      }
    return normalize(saturatingMultiply(a.constant_, b.constant_), std::move(all));
  }

  // a = c q + r, each coefficient split into its multiple of c and the
  // rest, so floor(a / c) = q + floor(r / c) for c > 0 (q is integral).
  static Dim floorDivByConstant(const Dim &a, int64_t c) {
    Terms quotient, remainder;
    for (const Term &t : terms(a)) {
      int64_t q = floorDivide(t.coeff, c);
      if (q != 0)
        quotient.push_back({t.factors, q});
      if (t.coeff - q * c != 0)
        remainder.push_back({t.factors, t.coeff - q * c});
    }
    int64_t q = floorDivide(a.constant_, c);
    Dim rest = normalize(a.constant_ - q * c, std::move(remainder));
    Dim whole = normalize(q, std::move(quotient));
    Interval r = rest.bounds();
    if (r.lo >= 0 && r.hi < c)
      return whole;
    return whole + atom({Atom::Kind::FloorDiv, 0, rest, Dim(c)});
  }

  // a / (c F) as (a / F) / c when every term of a has the factors F of
  // the monomial b = c F (positive) among its own: nullopt otherwise.
  static std::optional<Dim> divideByMonomial(const Dim &a, const Dim &b) {
    const Terms &tb = terms(b);
    if (b.constant_ != 0 || tb.size() != 1 || tb[0].coeff <= 0 || a.constant_ != 0)
      return std::nullopt;
    Terms quotient;
    for (const Term &t : terms(a)) {
      std::vector<Atom> rest = t.factors;
      for (const Atom &f : tb[0].factors) {
        auto it = std::find_if(rest.begin(), rest.end(),
                               [&](const Atom &x) { return compare(x, f) == 0; });
        if (it == rest.end())
          return std::nullopt;
        rest.erase(it);
      }
      quotient.push_back({std::move(rest), t.coeff});
    }
    for (const Atom &f : tb[0].factors)
      if (bounds(f).lo <= 0)
        return std::nullopt;
    // A term whose factors were all F is now a constant.
    int64_t constant = 0;
    Terms symbolic;
    for (Term &t : quotient) {
      if (t.factors.empty())
        constant = saturatingAdd(constant, t.coeff);
      else
        symbolic.push_back(std::move(t));
    }
    return floorDiv(normalize(constant, std::move(symbolic)), Dim(tb[0].coeff));
  }

  static Interval bounds(const Atom &atom) {
    switch (atom.kind) {
    case Atom::Kind::Symbol: {
      const SymbolInfo &info = SymbolTable::global().info(atom.symbol);
      return {info.min, info.max};
    }
    case Atom::Kind::FloorDiv: {
      Interval x = atom.a.bounds(), y = atom.b.bounds();
      if (y.lo <= 0 && y.hi >= 0)
        return {-kDimLimit, kDimLimit};
      int64_t c[4] = {floorDivide(x.lo, y.lo), floorDivide(x.lo, y.hi), floorDivide(x.hi, y.lo),
                      floorDivide(x.hi, y.hi)};
      return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    case Atom::Kind::Min: {
      Interval x = atom.a.bounds(), y = atom.b.bounds();
      return {std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
    }
    case Atom::Kind::Max: {
      Interval x = atom.a.bounds(), y = atom.b.bounds();
      return {std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
    }
    }
    return {-kDimLimit, kDimLimit};
  }

  static int64_t evaluate(const Atom &atom, std::span<const int64_t> values) {
    switch (atom.kind) {
    case Atom::Kind::Symbol:
      return atom.symbol < values.size() ? values[atom.symbol]
                                         : SymbolTable::global().info(atom.symbol).opt;
    case Atom::Kind::FloorDiv: {
      int64_t divisor = atom.b.evaluate(values);
      return divisor == 0 ? 0 : floorDivide(atom.a.evaluate(values), divisor);
    }
    case Atom::Kind::Min:
      return std::min(atom.a.evaluate(values), atom.b.evaluate(values));
    case Atom::Kind::Max:
      return std::max(atom.a.evaluate(values), atom.b.evaluate(values));
    }
    return 0;
  }

  static void collect(const Dim &d, std::vector<SymbolId> &out) {
    for (const Term &t : terms(d))
      for (const Atom &a : t.factors) {
        if (a.kind == Atom::Kind::Symbol) {
          if (std::find(out.begin(), out.end(), a.symbol) == out.end())
            out.push_back(a.symbol);
        } else {
          collect(a.a, out);
          collect(a.b, out);
        }
      }
  }

  static std::string str(const Atom &atom) {
    switch (atom.kind) {
    case Atom::Kind::Symbol:
      return SymbolTable::global().info(atom.symbol).name;
    case Atom::Kind::FloorDiv:
      return fmt::format("floordiv({}, {})", atom.a.str(), atom.b.str());
    case Atom::Kind::Min:
      return fmt::format("min({}, {})", atom.a.str(), atom.b.str());
    case Atom::Kind::Max:
      return fmt::format("max({}, {})", atom.a.str(), atom.b.str());
    }
    return "?";
  }

  // min or max: decided by the bounds where they can, else an atom of the
  // ordered operands.
  static Dim extremum(const Dim &a, const Dim &b, bool isMin) {
    if (a == b)
      return a;
    // The sign of a - b decides where its bounds do: min(s - 1, s) is s - 1.
    Interval difference = (a - b).bounds();
    if (difference.hi <= 0)
      return isMin ? a : b;
    if (difference.lo >= 0)
      return isMin ? b : a;
    bool ordered = compare(a, b) < 0;
    return atom({isMin ? Atom::Kind::Min : Atom::Kind::Max, 0, ordered ? a : b, ordered ? b : a});
  }
};

std::optional<SymbolId> Dim::asSymbol() const {
  std::span<const Term> all = terms();
  if (constant_ != 0 || all.size() != 1 || all[0].coeff != 1 || all[0].factors.size() != 1 ||
      all[0].factors[0].kind != Atom::Kind::Symbol)
    return std::nullopt;
  return all[0].factors[0].symbol;
}

std::string symbolNameFrom(std::string_view text) {
  std::string name(text.empty() ? "_" : text);
  for (char &c : name)
    if (!std::isalnum(uint8_t(c)) && c != '_')
      c = '_';
  return std::isdigit(uint8_t(name[0])) ? "_" + name : name;
}

SymbolTable &SymbolTable::global() {
  static SymbolTable table;
  return table;
}

SymbolId SymbolTable::add(SymbolInfo info) {
  assert(info.min <= info.opt && info.opt <= info.max);
  symbols_.push_back(std::move(info));
  return SymbolId(symbols_.size() - 1);
}

Dim::Dim(int64_t constant, std::shared_ptr<const Terms> terms)
    : constant_(constant), terms_(std::move(terms)) {}

Dim Dim::make(int64_t constant, Terms terms) {
  if (terms.empty())
    return Dim(constant);
  return Dim(constant, std::make_shared<const Terms>(std::move(terms)));
}

Dim Dim::symbol(SymbolId id) { return DimOps::atom({Atom::Kind::Symbol, id, {}, {}}); }

int64_t Dim::constant() const {
  assert(isConstant() && "the dim is symbolic");
  return constant_;
}

Interval Dim::bounds() const {
  __int128 lo = constant_, hi = constant_;
  for (const Term &t : DimOps::terms(*this)) {
    Interval product{t.coeff, t.coeff};
    for (const Atom &a : t.factors)
      product = multiply(product, DimOps::bounds(a));
    lo += product.lo;
    hi += product.hi;
  }
  return {saturate(lo), saturate(hi)};
}

int64_t Dim::evaluate(std::span<const int64_t> values) const {
  int64_t sum = constant_;
  for (const Term &t : DimOps::terms(*this)) {
    int64_t product = t.coeff;
    for (const Atom &a : t.factors)
      product = saturatingMultiply(product, DimOps::evaluate(a, values));
    sum = saturatingAdd(sum, product);
  }
  return sum;
}

int64_t Dim::opt() const { return evaluate({}); }
Dim Dim::atOpt() const { return Dim(opt()); }

std::vector<SymbolId> Dim::symbols() const {
  std::vector<SymbolId> ids;
  DimOps::collect(*this, ids);
  return ids;
}

Dim operator+(const Dim &a, const Dim &b) { return DimOps::add(a, b, 1); }
Dim operator-(const Dim &a, const Dim &b) { return DimOps::add(a, b, -1); }
Dim operator*(const Dim &a, const Dim &b) { return DimOps::multiply(a, b); }

bool Dim::operator==(const Dim &other) const { return DimOps::compare(*this, other) == 0; }

std::string Dim::str() const {
  if (isConstant())
    return std::to_string(constant_);
  std::string text;
  for (const Term &t : DimOps::terms(*this)) {
    std::string factors;
    for (const Atom &a : t.factors) {
      if (!factors.empty())
        factors += '*';
      factors += DimOps::str(a);
    }
    __int128 magnitude = t.coeff < 0 ? -__int128(t.coeff) : t.coeff;
    std::string term =
        magnitude == 1 ? factors : fmt::format("{}*{}", uint64_t(magnitude), factors);
    if (text.empty())
      text = t.coeff < 0 ? "-" + term : term;
    else
      text += (t.coeff < 0 ? " - " : " + ") + term;
  }
  if (constant_ != 0)
    text += fmt::format(" {} {}", constant_ < 0 ? '-' : '+',
                        uint64_t(constant_ < 0 ? -__int128(constant_) : constant_));
  return text;
}

Dim floorDiv(const Dim &a, const Dim &b) {
  if (b.isConstant()) {
    int64_t c = b.constant();
    assert(c != 0 && "division of a dim by zero");
    if (c < 0)
      return floorDiv(-a, -b);
    if (c == 1)
      return a;
    return DimOps::floorDivByConstant(a, c);
  }
  if (a == b)
    return Dim(1);
  if (a.is(0))
    return Dim(0);
  if (std::optional<Dim> quotient = DimOps::divideByMonomial(a, b))
    return *quotient;
  return DimOps::atom({Dim::Atom::Kind::FloorDiv, 0, a, b});
}

Dim ceilDiv(const Dim &a, const Dim &b) { return floorDiv(a + b - 1, b); }
Dim mod(const Dim &a, const Dim &b) { return a - b * floorDiv(a, b); }
Dim minDim(const Dim &a, const Dim &b) { return DimOps::extremum(a, b, true); }
Dim maxDim(const Dim &a, const Dim &b) { return DimOps::extremum(a, b, false); }

} // namespace cuvil
