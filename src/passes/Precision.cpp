#include "cuvil/passes/Precision.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <sstream>

namespace cuvil {
namespace {

constexpr std::array<std::pair<std::string_view, PrecisionPolicy>, 5> kPolicies = {{
    {"fp32", PrecisionPolicy::FP32},
    {"int8", PrecisionPolicy::Int8},
    {"auto", PrecisionPolicy::Auto},
    {"fp16-weights", PrecisionPolicy::FP16Weights},
    {"bf16", PrecisionPolicy::BF16},
}};

constexpr std::string_view kRangesMagic = "cuvil-ranges 1";

// Value names may hold anything ONNX allows: spaces, '%' and control
// characters are written as %XX.
std::string escapeName(std::string_view name) {
  std::string text;
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (byte <= ' ' || byte == '%' || byte >= 0x7f)
      text += fmt::format("%{:02X}", byte);
    else
      text += c;
  }
  return text;
}

Expected<std::string> unescapeName(std::string_view text) {
  std::string name;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      name += text[i];
      continue;
    }
    std::string hex(text.substr(i + 1, 2));
    char *end = nullptr;
    long byte = std::strtol(hex.c_str(), &end, 16);
    if (hex.size() != 2 || *end)
      return Status::error(fmt::format("'{}' has a bad escape", text));
    name += char(byte);
    i += 2;
  }
  return name;
}

} // namespace

Expected<PrecisionPolicy> parsePrecisionPolicy(std::string_view text) {
  for (const auto &[name, policy] : kPolicies)
    if (name == text)
      return policy;
  std::vector<std::string_view> names;
  for (const auto &entry : kPolicies)
    names.push_back(entry.first);
  return Status::error(
      fmt::format("--precision {} is not one of {}", text, fmt::join(names, ", ")));
}

std::string formatRanges(const RangesFile &file) {
  std::string text = fmt::format("{} {}\n", kRangesMagic, file.key);
  for (const auto &[name, range] : file.ranges)
    text += fmt::format("{} {:a} {:a}\n", escapeName(name), range.min, range.max);
  return text;
}

Expected<RangesFile> parseRanges(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string line;
  RangesFile file;
  if (!std::getline(in, line) || !line.starts_with(kRangesMagic))
    return Status::error(fmt::format("not a ranges file (it must start with '{}')", kRangesMagic));
  file.key = line.size() > kRangesMagic.size() ? line.substr(kRangesMagic.size() + 1) : "";
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty() || line.starts_with("//"))
      continue;
    std::istringstream fields(line);
    std::string name, low, high, rest;
    fields >> name >> low >> high;
    char *lowEnd = nullptr, *highEnd = nullptr;
    float min = low.empty() ? 0 : std::strtof(low.c_str(), &lowEnd);
    float max = high.empty() ? 0 : std::strtof(high.c_str(), &highEnd);
    bool parsed = !high.empty() && !*lowEnd && !*highEnd && !(fields >> rest);
    if (!parsed || !std::isfinite(min) || !std::isfinite(max) || min > max)
      return Status::error(
          fmt::format("line {}: '{}' is not NAME MIN MAX with finite MIN <= MAX", number, line));
    Expected<std::string> unescaped = unescapeName(name);
    CUVIL_TRY(unescaped.status().withContext(fmt::format("line {}", number)));
    file.ranges[*unescaped] = {min, max};
  }
  return file;
}

} // namespace cuvil
