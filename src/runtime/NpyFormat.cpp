#include "NpyFormat.h"

#include <charconv>
#include <cstring>
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
  const DTypeInfo *info = findDTypeByNpyType(std::string_view(descr).substr(1));
  if ((order != '<' && order != '|') || !info)
    fail("unsupported dtype '" + descr + "'");

  size_t dataBytes = checkedByteSize(*info, shape);
  size_t dataStart = headerStart + headerLength;
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
  std::string header = "{'descr': '" + npyDescr(tensor.dtypeInfo()) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
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
  file.append(reinterpret_cast<const char *>(tensor.data()), tensor.byteSize());
  return file;
}

} // namespace cuvil::runtime
