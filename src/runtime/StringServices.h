#ifndef CUVIL_RUNTIME_STRINGSERVICES_H
#define CUVIL_RUNTIME_STRINGSERVICES_H

#include "cuvil/runtime/ModelABI.h"

#include <cstdint>

namespace cuvil::runtime {

/// A frame's string services (cuvil_string_services): storage for the
/// strings a run makes, in chunks from malloc that live until the frame's
/// next run, and Cast's number text. Needs nothing but libc.
struct StringStorage;

/// A new storage, or nullptr when memory ran out.
StringStorage *createStringStorage();
void destroyStringStorage(StringStorage *storage);
/// The services the model's kernels call, pointing at `storage`.
const cuvil_string_services *stringServices(const StringStorage *storage);
/// Frees what the last run took (keeping one chunk as large as all it
/// used, so that a steady run allocates nothing).
void resetStringStorage(StringStorage *storage);

/// Cast's text of a number of type dtype (cuvil_dtype), in ONNX Runtime's
/// forms: integers in decimal, bool as 1 or 0, floating point as printf's
/// %g ("0.33333334", "1e+20", "NaN", "INF", "-INF") with the fewest
/// significant digits that read back as the same value (ONNX Runtime
/// always writes 8, one too few for some f32 values and lossy for f64; the
/// ONNX test data has the shortest). Writes text[CUVIL_NUMBER_TEXT_MAX];
/// returns the length.
int32_t formatNumber(int32_t dtype, const void *value, char *text);
/// Reads text (size bytes, not terminated) as ONNX Runtime's Cast does: the
/// longest prefix that is a number after leading white space (strtod's
/// forms, "INF" and "NaN" in any case; integers in decimal, truncated to
/// the type's width); 1 when no prefix is a number or an integer
/// overflows 64 bits, else 0 with *value set.
int32_t parseNumber(int32_t dtype, const char *text, int64_t size, void *value);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_STRINGSERVICES_H
