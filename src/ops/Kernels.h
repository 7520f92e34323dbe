// The microkernels op lowerings call, by their declarations in
// include/cuvil/kernels/, with the checks of their parameter blocks (the
// register tiles and variants each kernel instantiates). Families with an
// instance per element type or size are looked up by it.
#pragma once

#include "cuvil/ir/DType.h"
#include "cuvil/lowering/KernelCall.h"

namespace cuvil::ops {

// The two instances of a blocked NCHWc kernel.
struct BlockedKernels {
  KernelRef block16, block8;
  // The instance for a block of 16 or 8 channels.
  const KernelRef &forBlock(int64_t block) const { return block == 16 ? block16 : block8; }
};

extern const KernelRef kConv2dKernel;
extern const KernelRef kConv3dKernel;
extern const BlockedKernels kConvNCHWcKernels;
extern const BlockedKernels kDepthwiseNCHWcKernels;
extern const BlockedKernels kWinogradKernels;
extern const BlockedKernels kWinogradInputKernels;
extern const BlockedKernels kInvertedResidualKernels;
extern const KernelRef kGemmKernel;
extern const KernelRef kGemmHalfWeightsKernel;
extern const KernelRef kGemmBf16WeightsKernel;
extern const KernelRef kAttentionKernel;
extern const KernelRef kPool2dKernel;
extern const KernelRef kMaxPoolIndicesKernel;
extern const KernelRef kMaxUnpoolKernel;
extern const KernelRef kPool3dKernel;
extern const KernelRef kMaxPool3dU8Kernel;
extern const KernelRef kMaxPool3dI8Kernel;
extern const BlockedKernels kPoolNCHWcKernels;
extern const KernelRef kDetKernel;
extern const KernelRef kGridSampleKernel;
extern const KernelRef kRoiAlignKernel;
extern const KernelRef kReduceKernel;
extern const KernelRef kReduceF64Kernel;
extern const KernelRef kReduceI32Kernel; // Max, Min, Sum, Prod
extern const KernelRef kReduceI64Kernel;
extern const KernelRef kUnaryKernel;
extern const KernelRef kUnaryF64Kernel; // f64 data, f32 math
extern const KernelRef kElementwiseChainKernel;
extern const KernelRef kSoftmaxKernel;
extern const KernelRef kLayerNormKernel;
extern const KernelRef kPackRecurrentKernel;
extern const KernelRef kRecurrenceKernel;
extern const KernelRef kResizeKernel; // linear and cubic, f32
extern const KernelRef kLrnKernel;
extern const BlockedKernels kReorderKernels;

// By element size in bytes (1, 2, 4, 8).
Expected<const KernelRef *> copyKernel(size_t elementBytes);
Expected<const KernelRef *> fillKernel(size_t elementBytes);
Expected<const KernelRef *> padKernel(size_t elementBytes);
Expected<const KernelRef *> whereKernel(size_t elementBytes);
Expected<const KernelRef *> compressKernel(size_t elementBytes);
Expected<const KernelRef *> resizeNearestKernel(size_t elementBytes);
Expected<const KernelRef *> reverseSequenceKernel(size_t elementBytes);
Expected<const KernelRef *> triluKernel(size_t elementBytes);
Expected<const KernelRef *> eyeKernel(size_t elementBytes);
// By element size and index type (i32, i64).
Expected<const KernelRef *> gatherKernel(size_t elementBytes, DType indices);
Expected<const KernelRef *> gatherElementsKernel(size_t elementBytes, DType indices);
Expected<const KernelRef *> gatherNDKernel(size_t elementBytes);
Expected<const KernelRef *> tensorScatterKernel(size_t elementBytes);
// Scatters by element type (and index type: i32, i64).
Expected<const KernelRef *> scatterElementsKernel(DType dtype, DType indices);
Expected<const KernelRef *> scatterNDKernel(DType dtype);
// RandomUniform/RandomNormal results of f32, f64 or f16; Multinomial's of
// i32 or i64 samples.
Expected<const KernelRef *> randomKernel(DType dtype);
Expected<const KernelRef *> multinomialKernel(DType indices);
// OneHot by index type (any number type but bf16) and value element size.
Expected<const KernelRef *> oneHotKernel(DType indices, size_t valueBytes);
// By source and target type (bool is stored as u8).
Expected<const KernelRef *> castKernel(DType from, DType to);
// Casts to and from string, by source and target type.
Expected<const KernelRef *> stringCastKernel(DType from, DType to);
extern const KernelRef kStringNormalizerKernel;
extern const KernelRef kStringIndexKernel;
extern const KernelRef kStringConcatKernel;
extern const KernelRef kRegexFullMatchKernel;
extern const KernelRef kStringConstantKernel;
// Arithmetic ops by element type; comparisons and logical ops (writing
// bool) by operand type.
Expected<const KernelRef *> binaryKernel(DType dtype);
Expected<const KernelRef *> compareKernel(DType dtype);
// ArgMax / ArgMin by element type.
Expected<const KernelRef *> argReduceKernel(DType dtype);
Expected<const KernelRef *> topKKernel(DType dtype);
Expected<const KernelRef *> uniqueKernel(DType dtype);
Expected<const KernelRef *> cumSumKernel(DType dtype);
Expected<const KernelRef *> hardmaxKernel(DType dtype);
// By token type (i32, i64).
Expected<const KernelRef *> tfIdfKernel(DType dtype);
Expected<const KernelRef *> rangeKernel(DType dtype);
Expected<const KernelRef *> einsumKernel(DType dtype);
// Signal kernels by element type; the mel weights by sample rate,
// frequency and result type.
Expected<const KernelRef *> fftKernel(DType dtype);
Expected<const KernelRef *> windowKernel(DType dtype);
Expected<const KernelRef *> melWeightsKernel(DType sampleRate, DType hertz, DType dtype);
// By element type: how its elements compare with zero.
Expected<const KernelRef *> nonZeroKernel(DType dtype);
// f32 to a quantized type and back, by the quantized type.
Expected<const KernelRef *> quantizeKernel(DType quantized);
Expected<const KernelRef *> dequantizeKernel(DType quantized);
extern const KernelRef kDynamicQuantParamsKernel;
extern const KernelRef kDynamicQuantizeRowsKernel;
// Integer products by operand types (A and B; image and weights), and for
// the requantized ones the output type.
Expected<const KernelRef *> integerGemmKernel(DType a, DType b);
Expected<const KernelRef *> requantizedGemmKernel(DType a, DType b, DType y);
Expected<const KernelRef *> dequantizedGemmKernel(DType a, DType b);
Expected<const KernelRef *> integerConvKernel(DType x, DType w);
Expected<const KernelRef *> requantizedConvKernel(DType x, DType w, DType y);
// The same, dequantized into f32 (by the requantized type y).
Expected<const KernelRef *> dequantizedConvKernel(DType x, DType w, DType y);
// The same with an 8-bit residual and result of the requantized type y.
Expected<const KernelRef *> quantizedEpilogueConvKernel(DType x, DType w, DType y);

} // namespace cuvil::ops
