/* String tensors (elements are ModelABI.h's cuvil_string): Cast to and from
 * text, StringNormalizer, StringConcat (src/kernels/Strings.cpp).
 *
 * A kernel that makes strings takes storage for their bytes from the
 * frame's string services, valid until the frame's next run, and number
 * text from the services' format_number and parse_number (the runtime's C
 * library), so that the text is exact and the kernels stay freestanding.
 * Each is one task: its strings share one allocation. */
#ifndef CUVIL_KERNELS_STRINGS_H
#define CUVIL_KERNELS_STRINGS_H

#include "cuvil/kernels/Common.h"
#include "cuvil/kernels/Elementwise.h"
#include "cuvil/runtime/ModelABI.h"

/* The element types Cast takes to and from string: (name, C type it is
 * stored as, its cuvil_dtype). */
#define CUVIL_STRING_CAST_TYPES(X)                                                                 \
  X(f32, float, CUVIL_DTYPE_F32)                                                                   \
  X(f64, double, CUVIL_DTYPE_F64)                                                                  \
  X(f16, uint16_t, CUVIL_DTYPE_F16)                                                                \
  X(bf16, uint16_t, CUVIL_DTYPE_BF16)                                                              \
  X(i8, int8_t, CUVIL_DTYPE_I8)                                                                    \
  X(u8, uint8_t, CUVIL_DTYPE_U8)                                                                   \
  X(i16, int16_t, CUVIL_DTYPE_I16)                                                                 \
  X(u16, uint16_t, CUVIL_DTYPE_U16)                                                                \
  X(i32, int32_t, CUVIL_DTYPE_I32)                                                                 \
  X(u32, uint32_t, CUVIL_DTYPE_U32)                                                                \
  X(i64, int64_t, CUVIL_DTYPE_I64)                                                                 \
  X(u64, uint64_t, CUVIL_DTYPE_U64)                                                                \
  X(bool, uint8_t, CUVIL_DTYPE_BOOL)

/* y[i] = the text of x[i], for i in [0, elements) (one task: [0, 1)).
 * Check 1: the storage ran out (the value: the bytes asked for). */
#define CUVIL_DECLARE_CAST_TO_STRING(name, T, dtype)                                               \
  CUVIL_KERNEL_DECL void cuvil_cast_##name##_to_string(                                            \
      const struct cuvil_string_services *strings, const T *x, struct cuvil_string *y,             \
      int64_t elements, int64_t *error, int64_t begin, int64_t end);
CUVIL_STRING_CAST_TYPES(CUVIL_DECLARE_CAST_TO_STRING)

/* y[i] = x[i] read as a number, for i in [0, elements) (one task).
 * Check 1: element {} is not a number. */
#define CUVIL_DECLARE_CAST_FROM_STRING(name, T, dtype)                                             \
  CUVIL_KERNEL_DECL void cuvil_cast_string_to_##name(                                              \
      const struct cuvil_string_services *strings, const struct cuvil_string *x, T *y,             \
      int64_t elements, int64_t *error, int64_t begin, int64_t end);
CUVIL_STRING_CAST_TYPES(CUVIL_DECLARE_CAST_FROM_STRING)

enum cuvil_case_change { CUVIL_CASE_NONE = 0, CUVIL_CASE_LOWER = 1, CUVIL_CASE_UPPER = 2 };

struct cuvil_string_normalizer_params {
  int64_t elements;       /* strings in x */
  int64_t case_change;    /* enum cuvil_case_change */
  int64_t case_sensitive; /* 0: stopwords match whatever the case */
  int64_t num_stopwords;
  int64_t ascii_only; /* 1: only ASCII letters change case (the "C" locale) */
};

/* StringNormalizer: y = the strings of x that are not stopwords, in order,
 * with their case changed; with stopwords, *count = how many (one empty
 * string when none is left), count being null without. Stopword k is the bytes [stopword_starts[k],
 * stopword_starts[k + 1]) of stopword_bytes. Case maps (and matching
 * ignores case) for the letters whose two cases have UTF-8 encodings of
 * one length: ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic (ASCII
 * alone with ascii_only); other characters stay as they are. One task. Check 1: the storage ran
 * out. */
CUVIL_KERNEL_DECL void
cuvil_string_normalize(const struct cuvil_string_services *strings, const struct cuvil_string *x,
                       const uint8_t *stopword_bytes, const int64_t *stopword_starts,
                       struct cuvil_string *y, int64_t *count, int64_t *error,
                       const struct cuvil_string_normalizer_params *p, int64_t begin, int64_t end);

/* StringIndex: y[i] = the index of x[i] in a table of `count` strings,
 * or -1 when it is none of them. String k of the table is the bytes
 * [starts[k], starts[k + 1]) of bytes; the table is sorted (bytewise,
 * unsigned, a prefix first), so a lookup is a binary search. A task per
 * element. */
struct cuvil_string_index_params {
  int64_t count;
};
CUVIL_KERNEL_DECL void cuvil_string_index(const struct cuvil_string *x, const uint8_t *bytes,
                                          const int64_t *starts, int64_t *y,
                                          const struct cuvil_string_index_params *p, int64_t begin,
                                          int64_t end);

/* StringConcat: y = a's text then b's, a and b broadcast over the strided
 * space of p (its op unused), `rows` rows of it. One task. Check 1: the
 * storage ran out. */
CUVIL_KERNEL_DECL void cuvil_string_concat(const struct cuvil_string_services *strings,
                                           const struct cuvil_string *a,
                                           const struct cuvil_string *b, struct cuvil_string *y,
                                           int64_t rows, int64_t *error,
                                           const struct cuvil_binary_params *p, int64_t begin,
                                           int64_t end);

/* StringConstant: y[i] = string i of a table (bytes, starts as above),
 * pointing into the constant bytes themselves. A task per element. */
CUVIL_KERNEL_DECL void cuvil_string_constant(const uint8_t *bytes, const int64_t *starts,
                                             struct cuvil_string *y, int64_t begin, int64_t end);

#endif /* CUVIL_KERNELS_STRINGS_H */
