// The tokens of the textual IR (docs/IR.md) and the lexer that makes them,
// for the parser (Parser.cpp) alone.
#pragma once

#include <cctype>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace cuvil::textir {

enum class Tok { Eof, ValueName, AtName, Ident, Integer, Float, String, Punct, Error };

struct Token {
  Tok kind = Tok::Eof;
  std::string text; // decoded name/string, identifier, number spelling or punctuation
  int line = 1, column = 1;
};

inline bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
inline bool isBareNameChar(char c) { return isIdentChar(c) || c == '/' || c == '$' || c == '-'; }

class Lexer {
public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Token next() {
    skipSpaceAndComments();
    Token token;
    token.line = line_;
    token.column = column_;
    if (pos_ >= text_.size())
      return token;
    char c = text_[pos_];
    if (c == '%' || c == '@') {
      advance();
      token.kind = c == '%' ? Tok::ValueName : Tok::AtName;
      if (peek() == '"')
        return readString(token) ? token : errorToken(token, "unterminated string");
      while (pos_ < text_.size() && isBareNameChar(text_[pos_]))
        token.text += advance();
      return token.text.empty() ? errorToken(token, "expected a name") : token;
    }
    if (c == '"') {
      token.kind = Tok::String;
      return readString(token) ? token : errorToken(token, "unterminated string");
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '-' && pos_ + 1 < text_.size() &&
         (std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])) || text_[pos_ + 1] == 'i'))) {
      return readNumber(token);
    }
    if (isIdentStart(c)) {
      token.kind = Tok::Ident;
      while (pos_ < text_.size() && isIdentChar(text_[pos_]))
        token.text += advance();
      return token;
    }
    token.kind = Tok::Punct;
    token.text = std::string(1, advance());
    return token;
  }

private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  char advance() {
    char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    return c;
  }
  void skipSpaceAndComments() {
    while (pos_ < text_.size()) {
      if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
        advance();
      } else if (text_.substr(pos_, 2) == "//") {
        while (pos_ < text_.size() && text_[pos_] != '\n')
          advance();
      } else {
        break;
      }
    }
  }
  static Token errorToken(Token token, std::string message) {
    token.kind = Tok::Error;
    token.text = std::move(message);
    return token;
  }
  bool readString(Token &token) {
    advance(); // opening quote
    while (pos_ < text_.size()) {
      char c = advance();
      if (c == '"')
        return true;
      if (c == '\\' && pos_ < text_.size()) {
        char escaped = advance();
        if (escaped == 'x' && pos_ + 2 <= text_.size()) {
          unsigned value = 0;
          std::from_chars(text_.data() + pos_, text_.data() + pos_ + 2, value, 16);
          advance();
          advance();
          token.text += char(value);
        } else {
          token.text += escaped;
        }
      } else {
        token.text += c;
      }
    }
    return false;
  }
  Token readNumber(Token token) {
    token.kind = Tok::Integer;
    if (peek() == '-')
      token.text += advance();
    if (peek() == 'i') { // -inf
      while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_])))
        token.text += advance();
      token.kind = Tok::Float;
      return token;
    }
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        token.text += advance();
      } else if (c == '.' || c == 'e' || c == 'E' ||
                 ((c == '+' || c == '-') &&
                  (token.text.back() == 'e' || token.text.back() == 'E'))) {
        token.kind = Tok::Float;
        token.text += advance();
      } else {
        break;
      }
    }
    return token;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1, column_ = 1;
};

} // namespace cuvil::textir
