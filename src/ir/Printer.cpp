#include "cuvil/ir/Printer.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

namespace cuvil {
namespace {

// Constants with more elements than this print as a hex blob of their bytes.
constexpr int64_t kMaxInlineElements = 16;

bool isBareNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' ||
         c == '$' || c == '-';
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += fmt::format("\\{}", c);
    else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out + "\"";
}

std::string nameText(const std::string &name) {
  bool bare = !name.empty() && std::all_of(name.begin(), name.end(), isBareNameChar);
  return bare ? name : quoted(name);
}

std::string valueRef(const Value *value) {
  return value ? fmt::format("%{}", nameText(value->name())) : std::string("_");
}

// Shortest text that parses back to the same float; always looks like a float.
std::string floatText(double value, bool isDouble) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  std::string text = isDouble ? fmt::format("{}", value) : fmt::format("{}", float(value));
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

std::string typeText(const Value *value) {
  if (!value->hasType())
    return "?";
  std::string text = value->type().str();
  const Storage &storage = value->storage();
  switch (storage.space) {
  case StorageSpace::None:
    break;
  case StorageSpace::Arena:
    text += fmt::format(" @arena[{}]", storage.offset);
    break;
  case StorageSpace::Input:
    text += fmt::format(" @input{}[{}]", storage.index, storage.offset);
    break;
  case StorageSpace::Output:
    text += fmt::format(" @output{}[{}]", storage.index, storage.offset);
    break;
  case StorageSpace::Capture:
    text += fmt::format(" @capture{}[{}]", storage.index, storage.offset);
    break;
  }
  return text;
}

std::string tensorText(const Tensor &tensor, const PrintOptions &options) {
  std::string text = "dense<" + tensor.type().str() + ", ";
  int64_t count = tensor.numElements();
  if (count > kMaxInlineElements) {
    if (options.elideLargeConstants)
      return text + "...>";
    static const char digits[] = "0123456789abcdef";
    text.reserve(text.size() + tensor.byteSize() * 2 + 8);
    text += "\"0x";
    for (size_t i = 0; i < tensor.byteSize(); ++i) {
      text += digits[tensor.bytes()[i] >> 4];
      text += digits[tensor.bytes()[i] & 15];
    }
    return text + "\">";
  }
  text += "[";
  for (int64_t i = 0; i < count; ++i) {
    if (i)
      text += ", ";
    if (isFloat(tensor.dtype()))
      text += floatText(tensor.getDouble(i), tensor.dtype() == DType::F64);
    else if (tensor.dtype() == DType::U64)
      text += fmt::format("{}", uint64_t(tensor.getInt(i)));
    else
      text += fmt::format("{}", tensor.getInt(i));
  }
  return text + "]>";
}

std::string attributeText(const Attribute &attr) {
  struct Visitor {
    std::string operator()(int64_t v) const { return fmt::format("{}", v); }
    std::string operator()(float v) const { return floatText(v, false); }
    std::string operator()(const std::string &v) const { return quoted(v); }
    std::string operator()(const std::vector<int64_t> &v) const {
      return fmt::format("[{}]", fmt::join(v, ", "));
    }
    std::string operator()(const std::vector<float> &v) const {
      std::vector<std::string> parts;
      for (float f : v)
        parts.push_back(floatText(f, false));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    }
    std::string operator()(const std::vector<std::string> &v) const {
      std::vector<std::string> parts;
      for (const std::string &s : v)
        parts.push_back(quoted(s));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    }
    std::string operator()(const Tensor &t) const { return tensorText(t, {}); }
  };
  return std::visit(Visitor{}, attr);
}

} // namespace

std::string printNode(const Node &node) {
  std::string text;
  for (size_t i = 0; i < node.numOutputs(); ++i)
    text += (i ? ", " : "") + valueRef(node.output(i));
  text += " = " + node.op() + "(";
  for (size_t i = 0; i < node.numInputs(); ++i)
    text += (i ? ", " : "") + valueRef(node.input(i));
  text += ")";
  if (!node.attributes().empty()) {
    text += " {";
    bool first = true;
    for (const auto &[name, attr] : node.attributes()) {
      text += (first ? "" : ", ") + name + " = " + attributeText(attr);
      first = false;
    }
    text += "}";
  }
  text += " :";
  for (size_t i = 0; i < node.numOutputs(); ++i)
    text += (i ? ", " : " ") + typeText(node.output(i));
  if (!node.name().empty())
    text += " loc(" + quoted(node.name()) + ")";
  return text;
}

namespace {

// The graph at `indent`; a node's regions follow its line, each a graph
// one level deeper.
void printGraphAt(const Graph &graph, std::ostream &os, const PrintOptions &options,
                  const std::string &indent) {
  os << "graph @" << nameText(graph.name());
  if (!graph.symbols().empty()) {
    os << " symbols(";
    for (size_t i = 0; i < graph.symbols().size(); ++i) {
      const SymbolInfo &info = SymbolTable::global().info(graph.symbols()[i]);
      os << (i ? ", " : "") << info.name << " in [" << info.min << ", " << info.max << "] opt "
         << info.opt << (info.fromData ? " from data" : "");
    }
    os << ")";
  }
  os << "(";
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const Value *input = graph.inputs()[i];
    os << (i ? ", " : "") << valueRef(input) << ": " << typeText(input);
    if (const std::vector<Dim> *values = input->dimValues())
      os << " values [" << shapeToString(*values) << "]";
    if (const Tensor *data = input->fixedData())
      os << " values " << tensorText(*data, options);
  }
  os << ") {\n";
  for (const Value *constant : graph.constants())
    os << indent << "  " << valueRef(constant) << " = constant "
       << tensorText(constant->constant(), options) << "\n";
  for (const auto &node : graph.nodes()) {
    os << indent << "  " << printNode(*node);
    if (node->numRegions() != 0) {
      os << " {\n";
      for (size_t r = 0; r < node->numRegions(); ++r) {
        os << indent << "    " << nameText(node->regionName(r)) << ": ";
        printGraphAt(node->region(r), os, options, indent + "    ");
      }
      os << indent << "  }";
    }
    os << "\n";
  }
  os << indent << "  return";
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    const Value *output = graph.outputs()[i];
    os << (i ? ", " : " ") << valueRef(output);
    if (graph.outputName(i) != output->name())
      os << " as " << quoted(graph.outputName(i));
  }
  os << "\n" << indent << "}\n";
}

} // namespace

void printGraph(const Graph &graph, std::ostream &os, const PrintOptions &options) {
  printGraphAt(graph, os, options, "");
}

std::string printGraph(const Graph &graph, const PrintOptions &options) {
  std::ostringstream os;
  printGraph(graph, os, options);
  return os.str();
}

} // namespace cuvil
