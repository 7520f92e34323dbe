#include "cuvil/ir/Parser.h"

#include "Lexer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <utility>

namespace cuvil {
namespace {

using textir::Lexer;
using textir::Tok;
using textir::Token;

class Parser {
public:
  explicit Parser(std::string_view text) : lexer_(text) { token_ = lexer_.next(); }

  Expected<std::unique_ptr<Graph>> parse() {
    auto graph = std::make_unique<Graph>();
    CUVIL_TRY(parseGraph(*graph));
    if (token_.kind != Tok::Eof)
      return error("unexpected text after the graph");
    return graph;
  }

private:
  Status error(const std::string &message) const { return errorAt(token_, message); }
  Status errorAt(const Token &at, const std::string &message) const {
    std::string detail = at.kind == Tok::Error ? at.text : message;
    return Status::error(fmt::format("{}:{}: {}", at.line, at.column, detail));
  }
  void consume() { token_ = lexer_.next(); }
  bool isPunct(char c) const { return token_.kind == Tok::Punct && token_.text[0] == c; }
  Status expectPunct(char c) {
    if (!isPunct(c))
      return error(fmt::format("expected '{}'", c));
    consume();
    return Status::success();
  }
  // Between list elements: ',' or the closing bracket.
  Status expectSeparator(char close) {
    if (isPunct(close))
      return Status::success();
    if (!isPunct(','))
      return error(fmt::format("expected ',' or '{}'", close));
    consume();
    return Status::success();
  }
  Status expectIdent(std::string_view word) {
    if (token_.kind != Tok::Ident || token_.text != word)
      return error(fmt::format("expected '{}'", word));
    consume();
    return Status::success();
  }
  Status parseValueName(std::string &name) {
    if (token_.kind != Tok::ValueName)
      return error("expected a value name like %x");
    name = token_.text;
    consume();
    return Status::success();
  }
  Status parseInteger(int64_t &value) {
    if (token_.kind != Tok::Integer)
      return error("expected an integer");
    auto [ptr, ec] =
        std::from_chars(token_.text.data(), token_.text.data() + token_.text.size(), value);
    if (ec != std::errc() || ptr != token_.text.data() + token_.text.size()) {
      // Large u64 constants print as unsigned decimals.
      uint64_t unsignedValue = 0;
      auto [uptr, uec] = std::from_chars(token_.text.data(),
                                         token_.text.data() + token_.text.size(), unsignedValue);
      if (uec != std::errc() || uptr != token_.text.data() + token_.text.size())
        return error(fmt::format("integer '{}' out of range", token_.text));
      value = int64_t(unsignedValue);
    }
    consume();
    return Status::success();
  }
  bool atNumber() const {
    return token_.kind == Tok::Integer || token_.kind == Tok::Float ||
           (token_.kind == Tok::Ident && (token_.text == "nan" || token_.text == "inf"));
  }
  Status parseNumber(double &value) {
    if (!atNumber())
      return error("expected a number");
    const std::string &text = token_.text;
    if (text == "nan")
      value = std::numeric_limits<double>::quiet_NaN();
    else if (text == "inf" || text == "-inf")
      value = text[0] == '-' ? -INFINITY : INFINITY;
    else
      value = std::strtod(text.c_str(), nullptr);
    consume();
    return Status::success();
  }

  // graph ::= 'graph' '@' name [symbols] '(' inputs ')' '{' statements return '}', into
  // `graph` (a model's graph, or a region whose enclosing graphs' values
  // stay out of scope and whose symbols stay in it).
  Status parseGraph(Graph &graph) {
    Graph *enclosing = std::exchange(graph_, &graph);
    CUVIL_TRY(expectIdent("graph"));
    if (token_.kind != Tok::AtName)
      return error("expected '@name' after 'graph'");
    graph.setName(token_.text);
    consume();
    if (token_.kind == Tok::Ident && token_.text == "symbols")
      CUVIL_TRY(parseSymbols());
    CUVIL_TRY(expectPunct('('));
    while (!isPunct(')')) {
      std::string name;
      CUVIL_TRY(parseValueName(name));
      CUVIL_TRY(expectPunct(':'));
      if (graph.findValue(name))
        return error(fmt::format("redefinition of %{}", name));
      // A region's inputs may be untyped ('?') until shape inference.
      std::optional<TensorType> type;
      if (isPunct('?') && enclosing) {
        consume();
      } else {
        type.emplace();
        CUVIL_TRY(parseTensorType(*type));
      }
      Value *input = graph.addInput(name, type);
      CUVIL_TRY(parseStorage(input));
      if (token_.kind == Tok::Ident && token_.text == "values")
        CUVIL_TRY(parseInputValues(*input));
      CUVIL_TRY(expectSeparator(')'));
    }
    consume();
    CUVIL_TRY(expectPunct('{'));
    while (!(token_.kind == Tok::Ident && token_.text == "return")) {
      if (token_.kind == Tok::Eof)
        return error("expected 'return' before the end of the graph");
      CUVIL_TRY(parseStatement());
    }
    consume();
    CUVIL_TRY(parseReturn());
    CUVIL_TRY(expectPunct('}'));
    graph_ = enclosing;
    return Status::success();
  }

  // regions ::= '{' (name ':' graph)+ '}' after a node.
  Status parseRegions(Node &node) {
    consume();
    while (!isPunct('}')) {
      if (token_.kind != Tok::Ident && token_.kind != Tok::String)
        return error("expected a region name");
      std::string name = token_.text;
      consume();
      CUVIL_TRY(expectPunct(':'));
      CUVIL_TRY(parseGraph(node.addRegion(name)));
    }
    consume();
    return Status::success();
  }

  // symbols(NAME in [MIN, MAX] opt OPT [from data], ...)
  Status parseSymbols() {
    consume();
    CUVIL_TRY(expectPunct('('));
    while (!isPunct(')')) {
      if (token_.kind != Tok::Ident)
        return error("expected a symbol name");
      SymbolInfo info;
      info.name = token_.text;
      if (graph_->findSymbol(info.name))
        return error(fmt::format("symbol '{}' is declared twice", info.name));
      consume();
      CUVIL_TRY(expectIdent("in"));
      CUVIL_TRY(expectPunct('['));
      CUVIL_TRY(parseInteger(info.min));
      CUVIL_TRY(expectPunct(','));
      CUVIL_TRY(parseInteger(info.max));
      CUVIL_TRY(expectPunct(']'));
      CUVIL_TRY(expectIdent("opt"));
      CUVIL_TRY(parseInteger(info.opt));
      if (token_.kind == Tok::Ident && token_.text == "from") {
        consume();
        CUVIL_TRY(expectIdent("data"));
        info.fromData = true;
      }
      if (info.min < 0 || info.min > info.opt || info.opt > info.max)
        return error(fmt::format("symbol '{}' needs 0 <= min <= opt <= max", info.name));
      graph_->addSymbol(std::move(info));
      CUVIL_TRY(expectSeparator(')'));
    }
    consume();
    return Status::success();
  }

  // dim ::= term (('+' | '-') term)*; an integer token with a sign is a
  // subtraction here ("s -1").
  Status parseDim(Dim &dim) {
    CUVIL_TRY(parseDimTerm(dim));
    while (isPunct('+') || isPunct('-') || (token_.kind == Tok::Integer && token_.text[0] == '-')) {
      if (token_.kind == Tok::Integer) {
        int64_t value = 0;
        CUVIL_TRY(parseInteger(value));
        dim = dim + value;
        continue;
      }
      bool minus = isPunct('-');
      consume();
      Dim term;
      CUVIL_TRY(parseDimTerm(term));
      dim = minus ? dim - term : dim + term;
    }
    return Status::success();
  }

  // term ::= factor ('*' factor)*
  Status parseDimTerm(Dim &dim) {
    CUVIL_TRY(parseDimFactor(dim));
    while (isPunct('*')) {
      consume();
      Dim factor;
      CUVIL_TRY(parseDimFactor(factor));
      dim = dim * factor;
    }
    return Status::success();
  }

  // factor ::= int | symbol | '-' factor | '(' dim ')'
  //          | (floordiv | ceildiv | mod | min | max) '(' dim ',' dim ')'
  Status parseDimFactor(Dim &dim) {
    if (token_.kind == Tok::Integer) {
      int64_t value = 0;
      CUVIL_TRY(parseInteger(value));
      dim = value;
      return Status::success();
    }
    if (isPunct('-') || isPunct('(')) {
      bool minus = isPunct('-');
      consume();
      if (minus) {
        CUVIL_TRY(parseDimFactor(dim));
        dim = -dim;
        return Status::success();
      }
      CUVIL_TRY(parseDim(dim));
      return expectPunct(')');
    }
    if (token_.kind != Tok::Ident)
      return error("expected a dimension");
    static const std::map<std::string, Dim (*)(const Dim &, const Dim &), std::less<>> kFunctions =
        {{"floordiv", floorDiv},
         {"ceildiv", ceilDiv},
         {"mod", mod},
         {"min", minDim},
         {"max", maxDim}};
    std::string name = token_.text;
    consume();
    if (auto it = kFunctions.find(name); it != kFunctions.end() && isPunct('(')) {
      consume();
      Dim a, b;
      CUVIL_TRY(parseDim(a));
      CUVIL_TRY(expectPunct(','));
      CUVIL_TRY(parseDim(b));
      CUVIL_TRY(expectPunct(')'));
      if (it->second != minDim && it->second != maxDim && b.min() <= 0)
        return error(fmt::format("{} by a divisor that may not be positive", name));
      dim = it->second(a, b);
      return Status::success();
    }
    std::optional<SymbolId> symbol = graph_->findSymbol(name);
    if (!symbol)
      return error(
          fmt::format("unknown symbol '{}' (declare it in the graph's symbols(...))", name));
    dim = Dim::symbol(*symbol);
    return Status::success();
  }

  // values [dim, ...]: what the run's data of an integer input is (fixed
  // elements and symbols, from --value / --value-range); values dense<...>:
  // the data of a floating-point input fixed by --value.
  Status parseInputValues(Value &input) {
    consume();
    if (token_.kind == Tok::Ident && token_.text == "dense") {
      std::optional<Tensor> data;
      CUVIL_TRY(parseDense(data));
      if (data->type() != input.type() || !isFloat(data->dtype()))
        return error(fmt::format("values of type {} for input %{} of type {}", data->type().str(),
                                 input.name(), input.type().str()));
      input.setFixedData(std::move(*data));
      return Status::success();
    }
    CUVIL_TRY(expectPunct('['));
    std::vector<Dim> values;
    while (!isPunct(']')) {
      Dim dim;
      CUVIL_TRY(parseDim(dim));
      values.push_back(dim);
      CUVIL_TRY(expectSeparator(']'));
    }
    consume();
    const TensorType &type = input.type();
    if ((type.dtype != DType::I64 && type.dtype != DType::I32) || !type.isStatic() ||
        type.numElements().constant() != int64_t(values.size()))
      return error(fmt::format("{} values for input %{} of type {}", values.size(), input.name(),
                               type.str()));
    input.setDimValues(std::move(values));
    return Status::success();
  }

  Status parseShape(Shape &shape) {
    CUVIL_TRY(expectPunct('['));
    while (!isPunct(']')) {
      Dim dim;
      CUVIL_TRY(parseDim(dim));
      if (dim.min() < 0)
        return error("dimensions must not be negative");
      shape.push_back(dim);
      CUVIL_TRY(expectSeparator(']'));
    }
    consume();
    return Status::success();
  }

  Status parseTensorType(TensorType &type) {
    if (token_.kind != Tok::Ident)
      return error("expected a tensor type like f32[1,3]");
    auto dtype = dtypeFromName(token_.text);
    if (!dtype)
      return error(fmt::format("unknown element type '{}'", token_.text));
    type.dtype = *dtype;
    consume();
    return parseShape(type.shape);
  }

  // `?` | type [storage]
  Status parseResultType(Value *value) {
    if (isPunct('?')) {
      consume();
      return Status::success();
    }
    TensorType type;
    CUVIL_TRY(parseTensorType(type));
    value->setType(type);
    return parseStorage(value);
  }

  // [`@arena[N]` | `@inputI[N]` | `@outputI[N]` | `@captureI[N]`]
  Status parseStorage(Value *value) {
    if (token_.kind != Tok::AtName)
      return Status::success();
    Storage storage;
    const std::string space = token_.text;
    auto indexAfter = [&](std::string_view prefix) -> std::optional<uint32_t> {
      if (space.rfind(prefix, 0) != 0 || space.size() == prefix.size() ||
          !std::all_of(space.begin() + long(prefix.size()), space.end(), ::isdigit))
        return std::nullopt;
      return uint32_t(std::stoul(space.substr(prefix.size())));
    };
    if (space == "arena") {
      storage.space = StorageSpace::Arena;
    } else if (auto index = indexAfter("input")) {
      storage = {StorageSpace::Input, *index, 0};
    } else if (auto index = indexAfter("output")) {
      storage = {StorageSpace::Output, *index, 0};
    } else if (auto index = indexAfter("capture")) {
      storage = {StorageSpace::Capture, *index, 0};
    } else {
      return error(fmt::format("unknown storage '@{}'", space));
    }
    consume();
    CUVIL_TRY(expectPunct('['));
    int64_t offset = 0;
    CUVIL_TRY(parseInteger(offset));
    storage.offset = uint64_t(offset);
    CUVIL_TRY(expectPunct(']'));
    value->setStorage(storage);
    return Status::success();
  }

  // dense<TYPE, [numbers]> | dense<TYPE, "0xHEX">
  Status parseDense(std::optional<Tensor> &result) {
    CUVIL_TRY(expectIdent("dense"));
    CUVIL_TRY(expectPunct('<'));
    TensorType type;
    CUVIL_TRY(parseTensorType(type));
    if (!type.isStatic())
      return error(fmt::format("a constant's shape must be static, not {}", type.str()));
    CUVIL_TRY(expectPunct(','));
    Tensor tensor(type);
    if (token_.kind == Tok::String) {
      const std::string &hex = token_.text;
      if (hex.rfind("0x", 0) != 0 || hex.size() != 2 + 2 * tensor.byteSize())
        return error(
            fmt::format("expected {} bytes of hex data for {}", tensor.byteSize(), type.str()));
      uint8_t *bytes = tensor.mutableBytes();
      for (size_t i = 0; i < tensor.byteSize(); ++i) {
        auto [ptr, ec] =
            std::from_chars(hex.data() + 2 + 2 * i, hex.data() + 4 + 2 * i, bytes[i], 16);
        if (ec != std::errc() || ptr != hex.data() + 4 + 2 * i)
          return error("malformed hex data");
      }
      consume();
    } else {
      if (isPunct('.'))
        return error("elided constant data cannot be parsed");
      Token dataStart = token_;
      CUVIL_TRY(expectPunct('['));
      int64_t count = 0;
      while (!isPunct(']')) {
        if (count >= tensor.numElements())
          return error(fmt::format("too many elements for {}", type.str()));
        if (!isFloat(type.dtype) && token_.kind == Tok::Integer) {
          int64_t value = 0;
          CUVIL_TRY(parseInteger(value));
          tensor.setInt(count++, value);
        } else {
          double value = 0;
          CUVIL_TRY(parseNumber(value));
          tensor.setDouble(count++, value);
        }
        CUVIL_TRY(expectSeparator(']'));
      }
      consume();
      if (count != tensor.numElements())
        return errorAt(dataStart, fmt::format("{} has {} elements, got {}", type.str(),
                                              tensor.numElements(), count));
    }
    CUVIL_TRY(expectPunct('>'));
    result = std::move(tensor);
    return Status::success();
  }

  Status parseAttribute(Attribute &attr) {
    if (token_.kind == Tok::String) {
      attr = token_.text;
      consume();
      return Status::success();
    }
    if (token_.kind == Tok::Ident && token_.text == "dense") {
      std::optional<Tensor> tensor;
      CUVIL_TRY(parseDense(tensor));
      attr = std::move(*tensor);
      return Status::success();
    }
    if (token_.kind == Tok::Integer) {
      int64_t value = 0;
      CUVIL_TRY(parseInteger(value));
      attr = value;
      return Status::success();
    }
    if (atNumber()) {
      double value = 0;
      CUVIL_TRY(parseNumber(value));
      attr = float(value);
      return Status::success();
    }
    if (!isPunct('['))
      return error("expected an attribute value");
    consume();
    // The first element decides the list kind; an empty list reads as ints.
    std::vector<int64_t> ints;
    std::vector<float> floats;
    std::vector<std::string> strings;
    enum { Ints, Floats, Strings } kind = Ints;
    bool first = true;
    while (!isPunct(']')) {
      if (first && token_.kind == Tok::String)
        kind = Strings;
      else if (first && token_.kind != Tok::Integer)
        kind = Floats;
      first = false;
      if (kind == Strings) {
        if (token_.kind != Tok::String)
          return error("expected a string");
        strings.push_back(token_.text);
        consume();
      } else if (kind == Ints) {
        int64_t value = 0;
        CUVIL_TRY(parseInteger(value));
        ints.push_back(value);
      } else {
        double value = 0;
        CUVIL_TRY(parseNumber(value));
        floats.push_back(float(value));
      }
      CUVIL_TRY(expectSeparator(']'));
    }
    consume();
    if (kind == Strings)
      attr = std::move(strings);
    else if (kind == Floats)
      attr = std::move(floats);
    else
      attr = std::move(ints);
    return Status::success();
  }

  Status parseStatement() {
    std::vector<std::string> results;
    do {
      if (!results.empty())
        consume(); // ','
      std::string name;
      CUVIL_TRY(parseValueName(name));
      if (graph_->findValue(name))
        return error(fmt::format("redefinition of %{}", name));
      results.push_back(name);
    } while (isPunct(','));
    CUVIL_TRY(expectPunct('='));
    if (token_.kind != Tok::Ident)
      return error("expected an op name or 'constant'");
    std::string op = token_.text;
    consume();
    if (op == "constant") {
      if (results.size() != 1)
        return error("a constant defines exactly one value");
      std::optional<Tensor> tensor;
      CUVIL_TRY(parseDense(tensor));
      graph_->addConstant(results[0], std::move(*tensor));
      return Status::success();
    }
    CUVIL_TRY(expectPunct('('));
    std::vector<Value *> operands;
    while (!isPunct(')')) {
      if (token_.kind == Tok::Ident && token_.text == "_") {
        operands.push_back(nullptr);
        consume();
      } else {
        Token at = token_;
        std::string name;
        CUVIL_TRY(parseValueName(name));
        Value *value = graph_->findValue(name);
        if (!value)
          return errorAt(at, fmt::format("use of undefined value %{}", name));
        operands.push_back(value);
      }
      CUVIL_TRY(expectSeparator(')'));
    }
    consume();
    std::map<std::string, Attribute> attributes;
    if (isPunct('{')) {
      consume();
      while (!isPunct('}')) {
        if (token_.kind != Tok::Ident)
          return error("expected an attribute name");
        std::string name = token_.text;
        consume();
        CUVIL_TRY(expectPunct('='));
        Attribute attr;
        CUVIL_TRY(parseAttribute(attr));
        attributes[name] = std::move(attr);
        CUVIL_TRY(expectSeparator('}'));
      }
      consume();
    }
    CUVIL_TRY(expectPunct(':'));
    Node *node = graph_->addNode(op, operands, results);
    for (auto &[name, attr] : attributes)
      node->setAttr(name, std::move(attr));
    for (size_t i = 0; i < results.size(); ++i) {
      if (i)
        CUVIL_TRY(expectPunct(','));
      CUVIL_TRY(parseResultType(node->output(i)));
    }
    if (token_.kind == Tok::Ident && token_.text == "loc") {
      consume();
      CUVIL_TRY(expectPunct('('));
      if (token_.kind != Tok::String)
        return error("expected a quoted node name");
      node->setName(token_.text);
      consume();
      CUVIL_TRY(expectPunct(')'));
    }
    if (isPunct('{'))
      CUVIL_TRY(parseRegions(*node));
    return Status::success();
  }

  Status parseReturn() {
    while (!isPunct('}')) {
      Token at = token_;
      std::string name;
      CUVIL_TRY(parseValueName(name));
      Value *value = graph_->findValue(name);
      if (!value)
        return errorAt(at, fmt::format("use of undefined value %{}", name));
      std::string outputName = name;
      if (token_.kind == Tok::Ident && token_.text == "as") {
        consume();
        if (token_.kind != Tok::String)
          return error("expected a quoted output name after 'as'");
        outputName = token_.text;
        consume();
      }
      graph_->addOutput(value, outputName);
      CUVIL_TRY(expectSeparator('}'));
    }
    return Status::success();
  }

  Lexer lexer_;
  Token token_;
  Graph *graph_ = nullptr;
};

} // namespace

Expected<std::unique_ptr<Graph>> parseGraph(std::string_view text) { return Parser(text).parse(); }

} // namespace cuvil
