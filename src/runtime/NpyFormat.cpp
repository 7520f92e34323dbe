#include "NpyFormat.h"

#include "cuvil/runtime/ModelABI.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace cuvil::runtime {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// numpy's ARRAY_ALIGN: where it starts the data of the files it writes.
constexpr size_t kDataAlignment = 64;

[[noreturn]] void fail(const std::string &message) {
  throw std::runtime_error("invalid .npy file: " + message);
}

uint32_t readLittleEndian(std::string_view bytes, size_t offset, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |= uint32_t(uint8_t(bytes[offset + i])) << (8 * i);
  return value;
}

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// Parses the Python dict literal of a .npy header, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  NpyHeader parse() {
    NpyHeader header;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    expect('{');
    while (!consume('}')) {
      std::string key = parseString();
      expect(':');
      if (key == "descr" && !haveDescr) {
        header.descr = parseString();
        haveDescr = true;
      } else if (key == "fortran_order" && !haveOrder) {
        header.fortranOrder = parseBool();
        haveOrder = true;
      } else if (key == "shape" && !haveShape) {
        header.shape = parseShape();
        haveShape = true;
      } else {
        fail("header has an unexpected or repeated key '" + key + "'");
      }
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    skipSpace();
    if (pos_ != text_.size())
      fail("header has trailing characters after the dictionary");
    if (!haveDescr || !haveOrder || !haveShape)
      fail("header lacks one of 'descr', 'fortran_order' and 'shape'");
    return header;
  }

private:
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!consume(c))
      fail(std::string("malformed header: expected '") + c + "' at offset " + std::to_string(pos_));
  }

  std::string parseString() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      fail("malformed header: expected a string at offset " + std::to_string(pos_));
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos)
      fail("malformed header: unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }

  bool parseBool() {
    skipSpace();
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("malformed header: 'fortran_order' must be True or False");
  }

  std::vector<int64_t> parseShape() {
    std::vector<int64_t> shape;
    expect('(');
    while (!consume(')')) {
      skipSpace();
      int64_t dim;
      auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), dim);
      if (ec != std::errc() || dim < 0)
        fail("malformed header: bad dimension in 'shape' at offset " + std::to_string(pos_));
      pos_ = end - text_.data();
      shape.push_back(dim);
      if (!consume(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// The width of a numpy string type ("U8": 8 UTF-32 code units, "S8": 8
// bytes), or nullopt for another type.
std::optional<size_t> stringWidth(std::string_view type, char kind) {
  if (type.size() < 2 || type[0] != kind)
    return std::nullopt;
  size_t width = 0;
  auto [end, ec] = std::from_chars(type.data() + 1, type.data() + type.size(), width);
  if (ec != std::errc() || end != type.data() + type.size())
    return std::nullopt;
  return width;
}

void appendUtf8(std::string &text, uint32_t code) {
  if (code < 0x80) {
    text += char(code);
  } else if (code < 0x800) {
    text += char(0xC0 | (code >> 6));
    text += char(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    text += char(0xE0 | (code >> 12));
    text += char(0x80 | ((code >> 6) & 0x3F));
    text += char(0x80 | (code & 0x3F));
  } else {
    text += char(0xF0 | (code >> 18));
    text += char(0x80 | ((code >> 12) & 0x3F));
    text += char(0x80 | ((code >> 6) & 0x3F));
    text += char(0x80 | (code & 0x3F));
  }
}

// The code points of UTF-8 text; a byte that starts no valid sequence
// reads as U+FFFD.
std::vector<uint32_t> decodeUtf8(std::string_view text) {
  std::vector<uint32_t> codes;
  for (size_t i = 0; i < text.size();) {
    uint8_t b0 = uint8_t(text[i]);
    size_t length = b0 < 0x80         ? 1
                    : (b0 >> 5) == 6  ? 2
                    : (b0 >> 4) == 14 ? 3
                    : (b0 >> 3) == 30 ? 4
                                      : 0;
    uint32_t code = length == 1   ? b0
                    : length == 2 ? b0 & 0x1F
                    : length == 3 ? b0 & 0x0F
                                  : b0 & 0x07;
    bool valid = length != 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) {
      valid = (uint8_t(text[i + k]) & 0xC0) == 0x80;
      code = code << 6 | (uint8_t(text[i + k]) & 0x3F);
    }
    static constexpr uint32_t kShortest[] = {0, 0, 0x80, 0x800, 0x10000};
    valid = valid && code >= kShortest[length] && code <= 0x10FFFF &&
            !(code >= 0xD800 && code <= 0xDFFF);
    codes.push_back(valid ? code : 0xFFFD);
    i += valid ? length : 1;
  }
  return codes;
}

// A string array: elements of `width` UTF-32 code units (wide) or bytes,
// each ending at its first NUL, as numpy reads them.
HostTensor parseStrings(std::string_view data, std::vector<int64_t> shape, size_t width,
                        bool wide) {
  size_t elements = checkedNumElements(shape), unit = wide ? 4 : 1, bytes;
  // Width 0 (numpy's 'U0', which it never writes for data) would let a tiny
  // file claim any number of elements.
  if (width == 0 && elements > 0)
    fail("strings of width 0 are not supported; save them as numpy writes them ('<U1')");
  if (width > (size_t(1) << 40) || __builtin_mul_overflow(elements, width * unit, &bytes) ||
      data.size() != bytes)
    fail("shape " + formatShape(shape) + " of " + std::to_string(width) +
         "-character strings needs " + std::to_string(elements * width * unit) +
         " bytes of data but the file has " + std::to_string(data.size()));
  std::vector<std::string> strings(elements);
  for (size_t e = 0; e < elements; ++e) {
    std::string_view element = data.substr(e * width * unit, width * unit);
    for (size_t c = 0; c < width; ++c) {
      uint32_t code = wide ? readLittleEndian(element, 4 * c, 4) : uint8_t(element[c]);
      if (code == 0)
        break;
      if (!wide) {
        strings[e] += char(code);
        continue;
      }
      if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
        fail("string element " + std::to_string(e) + " holds the invalid code point " +
             std::to_string(code));
      appendUtf8(strings[e], code);
    }
  }
  HostTensor tensor(CUVIL_DTYPE_STRING, std::move(shape));
  tensor.setStrings(std::move(strings));
  return tensor;
}

// A string tensor as numpy's fixed-width UTF-32 ("<U<n>", n the longest
// element's code points, at least 1).
std::string encodeStrings(const HostTensor &tensor, size_t &width) {
  std::vector<std::vector<uint32_t>> codes(tensor.numElements());
  width = 1;
  for (size_t e = 0; e < codes.size(); ++e) {
    codes[e] = decodeUtf8(tensor.stringAt(e));
    width = std::max(width, codes[e].size());
  }
  std::string data(codes.size() * width * 4, '\0');
  for (size_t e = 0; e < codes.size(); ++e)
    for (size_t c = 0; c < codes[e].size(); ++c)
      for (size_t byte = 0; byte < 4; ++byte)
        data[(e * width + c) * 4 + byte] = char(codes[e][c] >> (8 * byte));
  return data;
}

} // namespace

bool isNpy(std::string_view bytes) { return bytes.substr(0, kMagic.size()) == kMagic; }

HostTensor parseNpy(std::string_view bytes) {
  if (!isNpy(bytes))
    fail("missing the \\x93NUMPY magic string");
  if (bytes.size() < 10)
    fail("truncated header");
  uint8_t major = uint8_t(bytes[6]);
  if (major < 1 || major > 3)
    fail("unsupported format version " + std::to_string(major) + "." +
         std::to_string(uint8_t(bytes[7])));
  // Version 1.0 has a 16-bit header length, 2.0 and 3.0 a 32-bit one.
  size_t lengthWidth = major == 1 ? 2 : 4;
  size_t headerStart = 8 + lengthWidth;
  if (bytes.size() < headerStart)
    fail("truncated header");
  uint64_t headerLength = readLittleEndian(bytes, 8, lengthWidth);
  if (headerLength > bytes.size() - headerStart)
    fail("header length " + std::to_string(headerLength) + " runs past the end of the file");

  auto [descr, fortranOrder, shape] = HeaderParser(bytes.substr(headerStart, headerLength)).parse();
  if (fortranOrder)
    fail("fortran_order is True; save a C-contiguous array (np.ascontiguousarray)");
  if (descr.size() < 2)
    fail("unsupported dtype '" + descr + "'");
  char order = descr[0];
  if (order == '>')
    fail("big-endian dtype '" + descr + "' is not supported; convert it to little-endian");
  size_t dataStart = headerStart + headerLength;
  std::string_view type = std::string_view(descr).substr(1);
  for (char kind : {'U', 'S'})
    if (std::optional<size_t> width = stringWidth(type, kind))
      return parseStrings(bytes.substr(dataStart), std::move(shape), *width, kind == 'U');
  if (type == "O") // numpy pickles object arrays: strings as objects
    fail("unsupported dtype '" + descr +
         "' (pickled objects); save strings as a numpy str "
         "array, e.g. np.save(path, values.astype(str))");
  const DTypeInfo *info = findDTypeByNpyType(type);
  if ((order != '<' && order != '|') || !info)
    fail("unsupported dtype '" + descr + "'");

  size_t dataBytes = checkedByteSize(*info, shape);
  if (bytes.size() - dataStart != dataBytes)
    fail("shape " + formatShape(shape) + " of " + std::string(info->name) + " needs " +
         std::to_string(dataBytes) + " bytes of data but the file has " +
         std::to_string(bytes.size() - dataStart));
  HostTensor tensor(info->code, std::move(shape));
  std::memcpy(tensor.data(), bytes.data() + dataStart, dataBytes);
  return tensor;
}

std::string npyDescr(const DTypeInfo &info) {
  // Byte order is meaningless for one-byte types, which numpy marks '|'.
  std::string descr(1, info.size == 1 ? '|' : '<');
  return descr += info.npyType;
}

std::string encodeNpy(const HostTensor &tensor) {
  std::string shape = "(";
  for (int64_t dim : tensor.shape())
    shape += std::to_string(dim) + ", ";
  // Python spells a 1-tuple "(3,)" and the empty tuple "()".
  if (tensor.shape().size() == 1)
    shape.pop_back();
  else if (!tensor.shape().empty())
    shape.resize(shape.size() - 2);
  shape += ')';
  size_t width = 0;
  std::string strings;
  if (tensor.dtype() == CUVIL_DTYPE_STRING)
    strings = encodeStrings(tensor, width);
  std::string descr = width ? "<U" + std::to_string(width) : npyDescr(tensor.dtypeInfo());
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces and a final newline so that the data is aligned.
  size_t prefix = kMagic.size() + 4;
  size_t padded =
      (prefix + header.size() + 1 + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
  header.append(padded - prefix - header.size() - 1, ' ');
  header += '\n';
  if (header.size() > 0xffff)
    throw std::runtime_error("tensor of rank " + std::to_string(tensor.shape().size()) +
                             " is too large for a .npy 1.0 header");

  std::string file(kMagic);
  file += '\x01';
  file += '\x00';
  file += char(header.size() & 0xff);
  file += char(header.size() >> 8);
  file += header;
  if (width)
    file += strings;
  else
    file.append(reinterpret_cast<const char *>(tensor.data()), tensor.byteSize());
  return file;
}

} // namespace cuvil::runtime
