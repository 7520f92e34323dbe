#include "cuvil/ir/Einsum.h"

#include <algorithm>
#include <fmt/format.h>

namespace cuvil {
namespace {

int letterLabel(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return 26 + (c - 'a');
  return -1;
}

char labelLetter(int label) { return char(label < 26 ? 'A' + label : 'a' + (label - 26)); }

// One term: its letters' labels, and where its ellipsis is (-1: none).
struct Term {
  std::vector<int> letters;
  int ellipsisAt = -1;
};

Expected<Term> parseTerm(std::string_view text) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i, 3) == "...") {
      if (term.ellipsisAt >= 0)
        return Status::error(fmt::format("term '{}' has two ellipses", text));
      term.ellipsisAt = int(term.letters.size());
      i += 2;
      continue;
    }
    int label = letterLabel(text[i]);
    if (label < 0)
      return Status::error(
          fmt::format("'{}' in term '{}' is not a letter or an ellipsis", text[i], text));
    term.letters.push_back(label);
  }
  return term;
}

std::vector<std::string_view> split(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> parts;
  for (size_t at = text.find(separator);; at = text.find(separator)) {
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos)
      return parts;
    text.remove_prefix(at + separator.size());
  }
}

std::vector<int> ellipsisLabels(int from, int count) {
  std::vector<int> labels;
  for (int k = from; k < from + count; ++k)
    labels.push_back(EinsumEquation::kEllipsisLabel + k);
  return labels;
}

} // namespace

std::vector<int> EinsumEquation::summedLabels() const {
  std::vector<int> summed;
  for (const std::vector<int> &labels : operands)
    for (int label : labels)
      if (std::find(output.begin(), output.end(), label) == output.end())
        summed.push_back(label);
  std::sort(summed.begin(), summed.end());
  summed.erase(std::unique(summed.begin(), summed.end()), summed.end());
  return summed;
}

Expected<EinsumEquation> parseEinsum(std::string_view equation, const std::vector<size_t> &ranks) {
  std::string compact;
  for (char c : equation)
    if (c != ' ')
      compact += c;
  std::vector<std::string_view> sides = split(compact, "->");
  if (sides.size() > 2)
    return Status::error(fmt::format("equation '{}' has more than one '->'", equation));
  std::vector<std::string_view> inputs = split(sides[0], ",");
  if (inputs.size() != ranks.size())
    return Status::error(fmt::format("equation '{}' has {} input terms for {} inputs", equation,
                                     inputs.size(), ranks.size()));
  EinsumEquation result;
  std::vector<Term> terms;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Expected<Term> term = parseTerm(inputs[i]);
    CUVIL_TRY(term.status());
    int64_t spare = int64_t(ranks[i]) - int64_t(term->letters.size());
    if (spare < 0 || (term->ellipsisAt < 0 && spare != 0))
      return Status::error(
          fmt::format("term '{}' does not fit input {} of rank {}", inputs[i], i, ranks[i]));
    result.ellipsisRank = std::max(result.ellipsisRank, term->ellipsisAt < 0 ? 0 : int(spare));
    terms.push_back(term.take());
  }
  std::vector<int> uses(EinsumEquation::kLetters, 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term &term = terms[i];
    std::vector<int> labels = term.letters;
    if (term.ellipsisAt >= 0) {
      int width = int(ranks[i] - term.letters.size());
      std::vector<int> dims = ellipsisLabels(result.ellipsisRank - width, width);
      labels.insert(labels.begin() + term.ellipsisAt, dims.begin(), dims.end());
    }
    for (int letter : term.letters)
      ++uses[size_t(letter)];
    result.operands.push_back(std::move(labels));
  }
  if (sides.size() == 1) {
    // Implicit: the ellipsis, then the letters used once, in order.
    result.output = ellipsisLabels(0, result.ellipsisRank);
    for (int label = 0; label < EinsumEquation::kLetters; ++label)
      if (uses[size_t(label)] == 1)
        result.output.push_back(label);
    return result;
  }
  Expected<Term> output = parseTerm(sides[1]);
  CUVIL_TRY(output.status());
  for (size_t k = 0; k < output->letters.size(); ++k) {
    int label = output->letters[k];
    if (uses[size_t(label)] == 0)
      return Status::error(
          fmt::format("output label '{}' is in no input term", labelLetter(label)));
    if (std::count(output->letters.begin(), output->letters.begin() + int64_t(k), label))
      return Status::error(fmt::format("output label '{}' is repeated", labelLetter(label)));
  }
  result.output = output->letters;
  if (output->ellipsisAt >= 0) {
    std::vector<int> dims = ellipsisLabels(0, result.ellipsisRank);
    result.output.insert(result.output.begin() + output->ellipsisAt, dims.begin(), dims.end());
  }
  return result;
}

Expected<std::vector<Dim>> einsumLabelDims(const EinsumEquation &equation,
                                           const std::vector<Shape> &shapes) {
  size_t labels = size_t(EinsumEquation::kLetters + equation.ellipsisRank);
  std::vector<Dim> dims(labels, Dim(0));
  std::vector<bool> seen(labels, false);
  auto name = [](int label) {
    return label < EinsumEquation::kLetters
               ? fmt::format("'{}'", labelLetter(label))
               : fmt::format("ellipsis dim {}", label - EinsumEquation::kEllipsisLabel);
  };
  for (size_t i = 0; i < equation.operands.size(); ++i) {
    const std::vector<int> &operand = equation.operands[i];
    for (size_t axis = 0; axis < operand.size(); ++axis) {
      int label = operand[axis];
      const Dim &dim = shapes[i][axis];
      auto first = std::find(operand.begin(), operand.end(), label);
      if (size_t(first - operand.begin()) < axis &&
          !(shapes[i][size_t(first - operand.begin())] == dim))
        return Status::error(
            fmt::format("label {} repeats in input {} over dims {} and {}", name(label), i,
                        shapes[i][size_t(first - operand.begin())].str(), dim.str()));
      Dim &known = dims[size_t(label)];
      if (!seen[size_t(label)] || known.is(1))
        known = dim;
      else if (!(known == dim) && !dim.is(1))
        return Status::error(fmt::format("label {} is {} in one input and {} in input {}",
                                         name(label), known.str(), dim.str(), i));
      seen[size_t(label)] = true;
    }
  }
  return dims;
}

Expected<std::string> einsumText(const EinsumEquation &equation,
                                 const std::vector<std::vector<int>> &operands,
                                 const std::vector<int> &output) {
  std::vector<bool> used(EinsumEquation::kLetters, false);
  for (const std::vector<int> &labels : equation.operands)
    for (int label : labels)
      if (label < EinsumEquation::kLetters)
        used[size_t(label)] = true;
  std::vector<char> letters;
  for (int label = 0; label < EinsumEquation::kLetters; ++label)
    letters.push_back(labelLetter(label));
  int next = 0;
  for (int k = 0; k < equation.ellipsisRank; ++k) {
    while (next < EinsumEquation::kLetters && used[size_t(next)])
      ++next;
    if (next == EinsumEquation::kLetters)
      return Status::error("the equation uses too many labels to split into steps");
    letters.push_back(labelLetter(next++));
  }
  auto term = [&](const std::vector<int> &labels) {
    std::string text;
    for (int label : labels)
      text += letters[size_t(label)];
    return text;
  };
  std::vector<std::string> inputs;
  for (const std::vector<int> &labels : operands)
    inputs.push_back(term(labels));
  return fmt::format("{}->{}", fmt::join(inputs, ","), term(output));
}

} // namespace cuvil
