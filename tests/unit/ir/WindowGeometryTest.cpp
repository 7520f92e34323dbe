// insideTaps: the taps of a window axis that read the input, counted in
// closed form, against counting every (output, tap) pair.
#include "cuvil/ir/WindowGeometry.h"

#include <gtest/gtest.h>

namespace cuvil {
namespace {

int64_t countedTaps(int64_t extent, int64_t outputs, int64_t kernel, int64_t stride,
                    int64_t dilation, int64_t padBegin) {
  int64_t inside = 0;
  for (int64_t o = 0; o < outputs; ++o)
    for (int64_t k = 0; k < kernel; ++k) {
      int64_t at = o * stride - padBegin + k * dilation;
      inside += at >= 0 && at < extent ? 1 : 0;
    }
  return inside;
}

TEST(WindowGeometry, InsideTapsMatchesCountingEveryTap) {
  for (int64_t extent : {1, 2, 7, 14, 15})
    for (int64_t kernel : {1, 2, 3, 5})
      for (int64_t stride : {1, 2, 3})
        for (int64_t dilation : {1, 2, 8})
          for (int64_t pad : {-2, 0, 1, 8, 12}) {
            int64_t span = (kernel - 1) * dilation + 1;
            int64_t outputs = (extent + 2 * pad - span) / stride + 1;
            if (outputs < 1)
              continue;
            EXPECT_EQ(insideTaps(extent, outputs, kernel, stride, dilation, pad),
                      countedTaps(extent, outputs, kernel, stride, dilation, pad))
                << extent << " " << kernel << " " << stride << " " << dilation << " " << pad;
          }
}

// An absurd extent (a malformed model) is counted without walking it.
TEST(WindowGeometry, InsideTapsOfAnAbsurdExtent) {
  const int64_t huge = int64_t(1) << 50;
  EXPECT_EQ(insideTaps(huge, huge / 2, 3, 2, 1, 1), 3 * (huge / 2) - 1);
}

} // namespace
} // namespace cuvil
