#include "SymbolBinding.h"

#include "DType.h"

#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cuvil::runtime {
namespace {

// Where a symbol got its value: input `input`'s dim or element `index`.
struct Place {
  int32_t input = -1;
  bool element = false;
  int32_t index = 0;
};

int describe(char *text, size_t size, const cuvil_model_info &model, const Place &place) {
  return std::snprintf(text, size, "input '%s' %s %d", model.inputs[place.input].name,
                       place.element ? "element" : "dim", place.index);
}

// Element k of an int64, int32 or bool input.
int64_t integerElement(int32_t dtype, const void *data, int32_t k) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  if (dtype == CUVIL_DTYPE_BOOL)
    return bytes[k] != 0;
  if (dtype == CUVIL_DTYPE_I32) {
    int32_t value;
    std::memcpy(&value, bytes + size_t(k) * sizeof value, sizeof value);
    return value;
  }
  int64_t value;
  std::memcpy(&value, bytes + size_t(k) * sizeof value, sizeof value);
  return value;
}

class Binder {
public:
  Binder(const cuvil_model_info &model, int64_t *symbols, Place *bound, char *error,
         size_t errorSize)
      : model_(model), symbols_(symbols), bound_(bound), error_(error), errorSize_(errorSize) {}

  // `place` gives symbol s the value `value`.
  bool bind(int32_t s, int64_t value, const Place &place) {
    const cuvil_symbol_info &symbol = model_.symbols[s];
    char where[256], first[256];
    describe(where, sizeof where, model_, place);
    if (value < symbol.min || value > symbol.max) {
      std::snprintf(error_, errorSize_,
                    "%s is %" PRId64 ", outside the range [%" PRId64 ", %" PRId64
                    "] of '%s' the model was compiled for",
                    where, value, symbol.min, symbol.max, symbol.name);
      return false;
    }
    if (bound_[s].input < 0) {
      bound_[s] = place;
      symbols_[s] = value;
      return true;
    }
    if (symbols_[s] == value)
      return true;
    describe(first, sizeof first, model_, bound_[s]);
    std::snprintf(error_, errorSize_, "%s is %" PRId64 ", but %s is %" PRId64 ": both are '%s'",
                  where, value, first, symbols_[s], symbol.name);
    return false;
  }

  // Element k of input i must be the value the compile fixed.
  bool unlikeFixed(const Place &place, const char *value, const char *fixed) {
    char where[256];
    describe(where, sizeof where, model_, place);
    std::snprintf(error_, errorSize_, "%s is %s, but the model was compiled for %s (--value)",
                  where, value, fixed);
    return false;
  }

private:
  const cuvil_model_info &model_;
  int64_t *symbols_;
  Place *bound_;
  char *error_;
  size_t errorSize_;
};

bool bindInput(Binder &binder, const cuvil_tensor_info &info, int32_t input, const int64_t *dims,
               const void *data) {
  for (int32_t d = 0; d < info.rank; ++d)
    if (isSymbolicDim(info, d) && !binder.bind(info.dim_symbols[d], dims[d], {input, false, d}))
      return false;
  for (int32_t k = 0; k < info.num_values; ++k) {
    Place place{input, true, k};
    char value[32], fixed[32];
    if (isFloatingDType(info.dtype)) {
      size_t size = info.dtype == CUVIL_DTYPE_F64 ? 8 : info.dtype == CUVIL_DTYPE_F32 ? 4 : 2;
      double element =
          floatingElement(info.dtype, static_cast<const std::byte *>(data) + size_t(k) * size);
      double expected = std::bit_cast<double>(info.values[k]);
      if (element == expected)
        continue;
      std::snprintf(value, sizeof value, "%.9g", element);
      std::snprintf(fixed, sizeof fixed, "%.9g", expected);
      return binder.unlikeFixed(place, value, fixed);
    }
    int64_t element = integerElement(info.dtype, data, k);
    if (info.value_symbols[k] >= 0) {
      if (!binder.bind(info.value_symbols[k], element, place))
        return false;
    } else if (element != info.values[k]) {
      std::snprintf(value, sizeof value, "%" PRId64, element);
      std::snprintf(fixed, sizeof fixed, "%" PRId64, info.values[k]);
      return binder.unlikeFixed(place, value, fixed);
    }
  }
  return true;
}

} // namespace

bool bindInputSymbols(const cuvil_model_info &model, const int64_t *const *inputDims,
                      const void *const *inputData, int64_t *symbols, char *error,
                      size_t errorSize) {
  for (uint32_t s = 0; s < model.num_symbols; ++s)
    symbols[s] = 0;
  Place *bound = static_cast<Place *>(std::calloc(model.num_symbols + 1, sizeof(Place)));
  if (!bound) {
    std::snprintf(error, errorSize, "out of memory");
    return false;
  }
  for (uint32_t s = 0; s < model.num_symbols; ++s)
    bound[s] = Place();
  Binder binder(model, symbols, bound, error, errorSize);
  bool ok = true;
  for (uint32_t i = 0; ok && i < model.num_inputs; ++i)
    ok = bindInput(binder, model.inputs[i], int32_t(i), inputDims[i], inputData[i]);
  std::free(bound);
  return ok;
}

} // namespace cuvil::runtime
