// The matrices of Winograd F(4x4, 3x3), Y = A^T [(G g G^T) . (B^T d B)] A,
// at the interpolation points 0, 1, -1, 1/2, -2 and infinity: Barabasz et
// al. ("Error analysis and improving the accuracy of Winograd convolution",
// 2020) found these the most accurate for F(4, 3) in floating point. The
// weights are transformed with G at compile time (cuvil.WinogradWeights),
// the reference semantics of cuvil.ConvWinograd use B^T and A^T, and the
// kernel (src/kernels/WinogradNCHWc.cpp) spells the same B^T and A^T out as
// vector arithmetic: change them together.
#pragma once

#include <array>

namespace cuvil::ops::winograd {

constexpr std::array<std::array<double, 3>, 6> kG = {{{1, 0, 0},
                                                      {1.0 / 3, 1.0 / 3, 1.0 / 3},
                                                      {-1.0 / 3, 1.0 / 3, -1.0 / 3},
                                                      {-16.0 / 15, -8.0 / 15, -4.0 / 15},
                                                      {1.0 / 15, -2.0 / 15, 4.0 / 15},
                                                      {0, 0, 1}}};

constexpr std::array<std::array<double, 6>, 6> kBt = {{{1, -1.5, -2, 1.5, 1, 0},
                                                       {0, -1, 0.5, 2.5, 1, 0},
                                                       {0, 1, -2.5, 0.5, 1, 0},
                                                       {0, -2, -1, 2, 1, 0},
                                                       {0, 0.5, -1, -0.5, 1, 0},
                                                       {0, 1, -1.5, -2, 1.5, 1}}};

constexpr std::array<std::array<double, 6>, 4> kAt = {
    {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 0.5, -2, 0}, {0, 1, 1, 0.25, 4, 0}, {0, 1, -1, 0.125, -8, 1}}};

} // namespace cuvil::ops::winograd
