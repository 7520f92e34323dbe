/* RegexFullMatch (src/kernels/Regex.cpp): whether each string matches a
 * regular expression as a whole, by an automaton the compiler builds from
 * the pattern (src/ops/RegexProgram.cpp, RE2's syntax) and the kernel runs
 * over the string's code points, a set of states at a time: time linear in
 * the text, no backtracking, no allocation.
 *
 * The program: state s is the four int32 program[4s .. 4s + 3] =
 * (op, a, b, next):
 *   MATCH:  the whole string matched, if the text ends here;
 *   RANGES: consume one code point in one of the b inclusive ranges
 *           ranges[2a .. 2a + 2b) (pairs low, high, ascending), go to next;
 *   SPLIT:  go to a and to b;
 *   ASSERT: go to next where every condition in the mask a holds between
 *           the code points around the position. */
#ifndef CUVIL_KERNELS_REGEX_H
#define CUVIL_KERNELS_REGEX_H

#include "cuvil/kernels/Common.h"
#include "cuvil/runtime/ModelABI.h"

/* The most states a program may have: the kernel keeps its state sets on
 * the stack. */
#define CUVIL_REGEX_MAX_STATES 2048

enum cuvil_regex_op {
  CUVIL_REGEX_MATCH = 0,
  CUVIL_REGEX_RANGES = 1,
  CUVIL_REGEX_SPLIT = 2,
  CUVIL_REGEX_ASSERT = 3
};

/* ASSERT conditions. A word character is [0-9A-Za-z_], as in RE2. */
enum cuvil_regex_assertion {
  CUVIL_REGEX_BEGIN_TEXT = 1, /* \A, or ^ outside multi-line mode */
  CUVIL_REGEX_END_TEXT = 2,   /* \z, or $ outside multi-line mode */
  CUVIL_REGEX_BEGIN_LINE = 4, /* ^ in (?m): at the start or after \n */
  CUVIL_REGEX_END_LINE = 8,   /* $ in (?m): at the end or before \n */
  CUVIL_REGEX_WORD_BOUNDARY = 16,
  CUVIL_REGEX_NOT_WORD_BOUNDARY = 32
};

struct cuvil_regex_params {
  int64_t states; /* in the program, at most CUVIL_REGEX_MAX_STATES */
  int64_t start;  /* the state the automaton starts in */
};

/* y[i] = x[i] matches the program as a whole, for i in [begin, end) (a task
 * per element). A byte that starts no valid UTF-8 sequence is one code
 * point, U+FFFD (the replacement character): it matches what U+FFFD
 * matches (., a negated class, \x{fffd}). */
CUVIL_KERNEL_DECL void cuvil_regex_full_match(const struct cuvil_string *x, const int32_t *program,
                                              const uint32_t *ranges, uint8_t *y,
                                              const struct cuvil_regex_params *p, int64_t begin,
                                              int64_t end);

#endif /* CUVIL_KERNELS_REGEX_H */
