#ifndef CUVIL_RUNTIME_NPYFORMAT_H
#define CUVIL_RUNTIME_NPYFORMAT_H

#include "HostTensor.h"

#include <string>
#include <string_view>

namespace cuvil::runtime {

/// True if bytes starts with the .npy magic string "\x93NUMPY".
bool isNpy(std::string_view bytes);

/// Parses a whole .npy file (format versions 1.0, 2.0 and 3.0, little-endian,
/// C order). Throws std::runtime_error saying what is wrong with it.
HostTensor parseNpy(std::string_view bytes);

/// The numpy type string written for dtype, e.g. "<f4", "|b1"; bf16 is "<u2".
std::string npyDescr(const DTypeInfo &info);

/// Serialises tensor as .npy 1.0 with the data starting at a multiple of 64
/// bytes, as numpy itself does.
std::string encodeNpy(const HostTensor &tensor);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_NPYFORMAT_H
