// The paired byte tile's exactness rule (src/kernels/IntegerNarrowTile.h),
// which the compiler checks before choosing that tile
// (CUVIL_PRODUCTS_BYTES_PAIRED) and assign-precision meets when it
// quantizes weights for it.
//
// vpmaddubsw sums two u8 x i8 products into an i16 lane, saturating; the
// paired tile adds the lanes of two consecutive quads of K (chunks start at
// multiples of 8) in i16 before widening. A lane then holds four products:
// K positions {0, 1, 4, 5} or {2, 3, 6, 7} of an 8-aligned group, of one
// weight line (a convolution's output channel, a GEMM column). With u8
// values up to 255, the sums are exact when each set's |w| add up to at
// most 128 (255 * 128 < 2^15): any weights within [-32, 32], and most 7-bit
// ones.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace cuvil {

constexpr int kPairedByteSetLimit = 128;

// at(k): the weight at K position k of one line of K.
template <typename At> bool pairedBytesExact(int64_t K, At at) {
  for (int64_t group = 0; group < K; group += 8)
    for (int64_t first : {0, 2}) {
      int sum = 0;
      for (int64_t offset : {0, 1, 4, 5})
        if (int64_t k = group + first + offset; k < K)
          sum += std::abs(int(at(k)));
      if (sum > kPairedByteSetLimit)
        return false;
    }
  return true;
}

// How the byte tiles without VNNI multiply constant i8 weights (zero point
// 0) exactly, `lines` lines of K, at(line, k) the weight at K position k of
// one: paired where the CPU adds two vpmaddubsw sums in i16 (`pairsSums`:
// x86-64) and every line meets pairedBytesExact, else one sum at a time
// where every |w| <= 64 (2 * 255 * 64 < 2^15), else not at all.
enum class BytePath { None, Single, Paired };
template <typename At> BytePath bytePathFor(bool pairsSums, int64_t lines, int64_t K, At at) {
  bool paired = pairsSums;
  for (int64_t line = 0; paired && line < lines; ++line)
    paired = pairedBytesExact(K, [&](int64_t k) { return at(line, k); });
  if (paired)
    return BytePath::Paired;
  for (int64_t line = 0; line < lines; ++line)
    for (int64_t k = 0; k < K; ++k)
      if (std::abs(int(at(line, k))) > 64)
        return BytePath::None;
  return BytePath::Single;
}

} // namespace cuvil
