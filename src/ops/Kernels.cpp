#include "Kernels.h"

#include "cuvil/kernels/Attention.h"
#include "cuvil/kernels/Conv.h"
#include "cuvil/kernels/DataMovement.h"
#include "cuvil/kernels/Elementwise.h"
#include "cuvil/kernels/Gemm.h"
#include "cuvil/kernels/Indexing.h"
#include "cuvil/kernels/IntegerConv.h"
#include "cuvil/kernels/LinearAlgebra.h"
#include "cuvil/kernels/Normalization.h"
#include "cuvil/kernels/Pool.h"
#include "cuvil/kernels/Quantize.h"
#include "cuvil/kernels/Random.h"
#include "cuvil/kernels/Recurrence.h"
#include "cuvil/kernels/Reduce.h"
#include "cuvil/kernels/Regex.h"
#include "cuvil/kernels/Resize.h"
#include "cuvil/kernels/Sampling.h"
#include "cuvil/kernels/Select.h"
#include "cuvil/kernels/Signal.h"
#include "cuvil/kernels/Strings.h"
#include "cuvil/kernels/TfIdf.h"

#include <fmt/format.h>

namespace cuvil::ops {
namespace {

using Problems = std::vector<std::string>;

template <int B> void checkConvTile(const char *stage, const cuvil_tile &tile, Problems &problems) {
  if (!CUVIL_CONV_TILE_INSTANTIATED(B, tile.pixels, tile.blocks))
    problems.push_back(fmt::format("{}register tile {} x {} is not instantiated for {}-channel "
                                   "blocks (at most 14 pixels, 4 blocks and {} accumulators)",
                                   stage, tile.pixels, tile.blocks, B, B == 16 ? 28 : 12));
}

void checkDepthwiseTile(const char *stage, int64_t pixels, bool reuse, const cuvil_window2d &w,
                        Problems &problems) {
  if (!CUVIL_DWCONV_TILE_INSTANTIATED(pixels))
    problems.push_back(
        fmt::format("{}depthwise tile of {} pixels is not instantiated (1 to 8)", stage, pixels));
  if (reuse && !CUVIL_DWCONV_REUSE_INSTANTIATED(w.KW, w.SW, w.DW))
    problems.push_back(fmt::format("{}the 3-tap depthwise tile does not fit a {}-wide window at "
                                   "stride {}, dilation {}",
                                   stage, w.KW, w.SW, w.DW));
}

template <int B> void checkConvNCHWc(const cuvil_conv_nchwc_params &p, Problems &problems) {
  checkConvTile<B>("", p.tile, problems);
  if (p.groups_per_step < 1 || p.rows_per_run < 1)
    problems.push_back("groups_per_step and rows_per_run must be positive");
  if (p.groups < 1 || p.groups > p.input_blocks)
    problems.push_back(fmt::format("a window of {} input groups in {}", p.groups, p.input_blocks));
  if ((p.group_out_channels > 0) != (p.group_in_channels > 0) ||
      (p.group_out_channels > 0 && (p.tile.blocks != 1 || p.plain_input)))
    problems.push_back("a grouped convolution takes a blocked input, one output block per tile "
                       "and channels per group in and out");
}

void checkDepthwise(const cuvil_dwconv_nchwc_params &p, Problems &problems) {
  checkDepthwiseTile("", p.tile_pixels, p.reuse_inputs != 0, p.window, problems);
}

template <int B> void checkWinograd(const cuvil_winograd_params &p, Problems &problems) {
  if (!CUVIL_WINOGRAD_TILE_INSTANTIATED(B, p.tile.pixels, p.tile.blocks))
    problems.push_back(fmt::format("register tile {} x {} is not instantiated for {}-channel "
                                   "blocks (at most 8 tiles, 4 blocks and {} accumulators)",
                                   p.tile.pixels, p.tile.blocks, B,
                                   CUVIL_WINOGRAD_MAX_ACCUMULATORS(B)));
}

template <int B>
void checkInvertedResidual(const cuvil_inverted_residual_params &p, Problems &problems) {
  if (p.expand)
    checkConvTile<B>("expansion ", p.expand_tile, problems);
  checkDepthwiseTile("", p.depthwise_tile_pixels, p.depthwise_reuse != 0, p.depthwise_window,
                     problems);
  checkConvTile<B>("projection ", p.project_tile, problems);
}

void checkGemm(const cuvil_gemm_params &p, Problems &problems) {
  if (!CUVIL_GEMM_TILE_INSTANTIATED(p.tile.pixels, p.tile.blocks))
    problems.push_back(fmt::format("register tile {} rows x {} vectors is not instantiated (at "
                                   "most 6 rows, 1, 2 or 4 vectors, 24 accumulators)",
                                   p.tile.pixels, p.tile.blocks));
  if (p.chunk_k < 1 || p.chunk_k > CUVIL_GEMM_MAX_CHUNK_K)
    problems.push_back(
        fmt::format("K chunk of {} rows is outside 1 to {}", p.chunk_k, CUVIL_GEMM_MAX_CHUNK_K));
  if (p.block_rows < 1)
    problems.push_back(fmt::format("block of {} rows of A", p.block_rows));
  if (p.group_panels < 1)
    problems.push_back(fmt::format("group of {} panels", p.group_panels));
}

void checkHalfWeightsGemm(const cuvil_gemm_params &p, Problems &problems) {
  checkGemm(p, problems);
  if (p.packed_b != 1)
    problems.push_back("f16 weights must be packed into panels");
}

void checkBf16WeightsGemm(const cuvil_gemm_params &p, Problems &problems) {
  checkGemm(p, problems);
  if (p.packed_b != 1)
    problems.push_back("bf16 weights must be packed into panels");
  if (p.chunk_k % 2 != 0)
    problems.push_back(fmt::format("K chunk of {} rows splits a bf16 pair", p.chunk_k));
}

void checkAttention(const cuvil_attention_params &p, Problems &problems) {
  if (!CUVIL_GEMM_TILE_INSTANTIATED(p.tile.pixels, p.tile.blocks))
    problems.push_back(fmt::format("register tile {} rows x {} vectors is not instantiated (at "
                                   "most 6 rows, 1, 2 or 4 vectors, 24 accumulators)",
                                   p.tile.pixels, p.tile.blocks));
  if (p.block_rows < 1)
    problems.push_back(fmt::format("block of {} query rows", p.block_rows));
  if (p.chunk_k < 1)
    problems.push_back(fmt::format("K chunk of {} rows", p.chunk_k));
}

void checkRecurrence(const cuvil_recurrence_params &p, Problems &problems) {
  if (!CUVIL_GEMM_TILE_INSTANTIATED(p.tile.pixels, p.tile.blocks))
    problems.push_back(fmt::format("register tile {} rows x {} vectors is not instantiated (at "
                                   "most 6 rows, 1, 2 or 4 vectors, 24 accumulators)",
                                   p.tile.pixels, p.tile.blocks));
  if (p.directions < 1 || p.directions > 2)
    problems.push_back(fmt::format("{} directions, the kernel runs 1 or 2", p.directions));
}

void checkIntegerBlocking(const cuvil_igemm_blocking &b, int64_t products, Problems &problems) {
  if (products == CUVIL_PRODUCTS_DOT
          ? !CUVIL_IGEMM_DOT_TILE_INSTANTIATED(b.tile.pixels, b.tile.blocks)
          : !CUVIL_IGEMM_TILE_INSTANTIATED(b.tile.pixels, b.tile.blocks))
    problems.push_back(fmt::format("register tile {} rows x {} vectors is not instantiated (at "
                                   "most 6 rows, 2, 4 or 8 vectors, 24 accumulators)",
                                   b.tile.pixels, b.tile.blocks));
  if (b.row_block < 1 || b.row_block > CUVIL_IGEMM_MAX_ROW_BLOCK)
    problems.push_back(
        fmt::format("row block of {} is outside 1 to {}", b.row_block, CUVIL_IGEMM_MAX_ROW_BLOCK));
  if (b.chunk_k < 1 || b.chunk_k > CUVIL_IGEMM_MAX_CHUNK_K)
    problems.push_back(
        fmt::format("K chunk of {} rows is outside 1 to {}", b.chunk_k, CUVIL_IGEMM_MAX_CHUNK_K));
}

void checkIntegerProducts(int64_t products, Problems &problems) {
  if (products != CUVIL_PRODUCTS_WORDS && products != CUVIL_PRODUCTS_BYTES &&
      products != CUVIL_PRODUCTS_DOT && products != CUVIL_PRODUCTS_BYTES_PAIRED)
    problems.push_back(
        fmt::format("integer products {} are none of words, bytes, dot, paired bytes", products));
}

void checkIntegerGemm(const cuvil_igemm_params &p, Problems &problems) {
  checkIntegerBlocking(p.blocking, p.products, problems);
  checkIntegerProducts(p.products, problems);
}

void checkDequantizedGemm(const cuvil_dqgemm_params &p, Problems &problems) {
  checkIntegerGemm(p.gemm, problems);
}

void checkIntegerConv(const cuvil_iconv_params &p, Problems &problems) {
  checkIntegerBlocking(p.blocking, p.products, problems);
  checkIntegerProducts(p.products, problems);
}

void checkDequantizedConv(const cuvil_qconv_dq_params &p, Problems &problems) {
  checkIntegerConv(p.conv, problems);
}

void checkConv3d(const cuvil_conv3d_params &p, Problems &problems) {
  if (!CUVIL_GEMM_TILE_INSTANTIATED(p.tile.pixels, p.tile.blocks))
    problems.push_back(fmt::format("register tile {} channels x {} vectors is not instantiated "
                                   "(at most 6 channels, 1, 2 or 4 vectors, 24 accumulators)",
                                   p.tile.pixels, p.tile.blocks));
  if (p.chunk_k < 1 || p.chunk_k > CUVIL_GEMM_MAX_CHUNK_K)
    problems.push_back(
        fmt::format("chunk of {} taps is outside 1 to {}", p.chunk_k, CUVIL_GEMM_MAX_CHUNK_K));
}

void checkChain(const cuvil_chain_params &p, Problems &problems) {
  if (p.steps < 1 || p.steps > CUVIL_CHAIN_MAX_STEPS)
    return problems.push_back(
        fmt::format("{} steps, the chain kernel takes 1 to {}", p.steps, CUVIL_CHAIN_MAX_STEPS));
  for (int64_t s = 0; s < p.steps; ++s) {
    const cuvil_chain_step &step = p.step[s];
    bool binary = step.kind == CUVIL_CHAIN_VALUE_FIRST || step.kind == CUVIL_CHAIN_OPERAND_FIRST;
    if (binary && (step.operand < 0 || step.operand >= CUVIL_CHAIN_MAX_OPERANDS))
      problems.push_back(fmt::format("step {} reads operand {}", s, step.operand));
    else if (!binary && step.kind != CUVIL_CHAIN_UNARY)
      problems.push_back(fmt::format("step {} has kind {}", s, step.kind));
  }
}

// One instance of a family, found by its key.
template <typename Key> struct Instance {
  Key key;
  KernelRef kernel;
};

template <typename Key>
Expected<const KernelRef *> find(const std::vector<Instance<Key>> &instances, const Key &key,
                                 std::string_view family, std::string_view what) {
  for (const Instance<Key> &instance : instances)
    if (instance.key == key)
      return &instance.kernel;
  return Status::error(fmt::format("no {} kernel for {}", family, what));
}

#define CUVIL_SIZE_INSTANCE(stem)                                                                  \
  [] {                                                                                             \
    std::vector<Instance<size_t>> list;                                                            \
    CUVIL_ELEMENT_SIZES(CUVIL_##stem##_ENTRY)                                                      \
    return list;                                                                                   \
  }()
#define CUVIL_COPY_ENTRY(size, T) list.push_back({size, CUVIL_KERNEL_REF(cuvil_copy_##size)});
#define CUVIL_FILL_ENTRY(size, T) list.push_back({size, CUVIL_KERNEL_REF(cuvil_fill_##size)});
#define CUVIL_PAD_ENTRY(size, T) list.push_back({size, CUVIL_KERNEL_REF(cuvil_pad_##size)});
#define CUVIL_EYE_ENTRY(size, T) list.push_back({size, CUVIL_KERNEL_REF(cuvil_eye_##size)});
#define CUVIL_TRILU_ENTRY(size, T) list.push_back({size, CUVIL_KERNEL_REF(cuvil_trilu_##size)});
#define CUVIL_WHERE_ENTRY(size, T) list.push_back({size, CUVIL_KERNEL_REF(cuvil_where_##size)});
#define CUVIL_REVERSE_SEQUENCE_ENTRY(size, T)                                                      \
  list.push_back({size, CUVIL_KERNEL_REF(cuvil_reverse_sequence_##size)});
#define CUVIL_COMPRESS_ENTRY(size, T)                                                              \
  list.push_back({size, CUVIL_KERNEL_REF(cuvil_compress_##size)});
#define CUVIL_RESIZE_NEAREST_ENTRY(size, T)                                                        \
  list.push_back({size, CUVIL_KERNEL_REF(cuvil_resize_nearest_##size)});

const std::vector<Instance<size_t>> kCopy = CUVIL_SIZE_INSTANCE(COPY);
const std::vector<Instance<size_t>> kFill = CUVIL_SIZE_INSTANCE(FILL);
const std::vector<Instance<size_t>> kPad = CUVIL_SIZE_INSTANCE(PAD);
const std::vector<Instance<size_t>> kWhere = CUVIL_SIZE_INSTANCE(WHERE);
const std::vector<Instance<size_t>> kTrilu = CUVIL_SIZE_INSTANCE(TRILU);
const std::vector<Instance<size_t>> kEye = CUVIL_SIZE_INSTANCE(EYE);
const std::vector<Instance<size_t>> kCompress = CUVIL_SIZE_INSTANCE(COMPRESS);
const std::vector<Instance<size_t>> kResizeNearest = CUVIL_SIZE_INSTANCE(RESIZE_NEAREST);
const std::vector<Instance<size_t>> kReverseSequence = CUVIL_SIZE_INSTANCE(REVERSE_SEQUENCE);

using GatherKey = std::pair<size_t, std::string_view>;
const std::vector<Instance<GatherKey>> kGather = [] {
  std::vector<Instance<GatherKey>> list;
#define CUVIL_GATHER_ENTRY(size, T, index, I)                                                      \
  list.push_back({{size, #index}, CUVIL_KERNEL_REF(cuvil_gather_##size##_##index)});
#define CUVIL_GATHER_ENTRIES(size, T) CUVIL_GATHER_INDEX_TYPES(CUVIL_GATHER_ENTRY, size, T)
  CUVIL_ELEMENT_SIZES(CUVIL_GATHER_ENTRIES)
  return list;
}();

const std::vector<Instance<GatherKey>> kGatherElements = [] {
  std::vector<Instance<GatherKey>> list;
#define CUVIL_GATHER_ELEMENTS_ENTRY(size, T, index, I)                                             \
  list.push_back({{size, #index}, CUVIL_KERNEL_REF(cuvil_gather_elements_##size##_##index)});
#define CUVIL_GATHER_ELEMENTS_ENTRIES(size, T)                                                     \
  CUVIL_GATHER_INDEX_TYPES(CUVIL_GATHER_ELEMENTS_ENTRY, size, T)
  CUVIL_ELEMENT_SIZES(CUVIL_GATHER_ELEMENTS_ENTRIES)
  return list;
}();

// By element type and index type.
using TypedIndexKey = std::pair<std::string_view, std::string_view>;
const std::vector<Instance<TypedIndexKey>> kScatterElements = [] {
  std::vector<Instance<TypedIndexKey>> list;
#define CUVIL_SCATTER_ELEMENTS_ENTRY(name, T, codec, index, I)                                     \
  list.push_back({{#name, #index}, CUVIL_KERNEL_REF(cuvil_scatter_elements_##name##_##index)});
#define CUVIL_SCATTER_ELEMENTS_ENTRIES(name, T, codec)                                             \
  CUVIL_SCATTER_INDEX_TYPES(CUVIL_SCATTER_ELEMENTS_ENTRY, name, T, codec)
  CUVIL_SCATTER_TYPES(CUVIL_SCATTER_ELEMENTS_ENTRIES)
  return list;
}();

const std::vector<Instance<std::string_view>> kScatterND = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_SCATTER_ND_ENTRY(name, T, codec)                                                     \
  list.push_back({#name, CUVIL_KERNEL_REF(cuvil_scatter_nd_##name)});
  CUVIL_SCATTER_TYPES(CUVIL_SCATTER_ND_ENTRY)
  return list;
}();

#define CUVIL_GATHER_ND_ENTRY(size, T)                                                             \
  list.push_back({size, CUVIL_KERNEL_REF(cuvil_gather_nd_##size)});
const std::vector<Instance<size_t>> kGatherND = CUVIL_SIZE_INSTANCE(GATHER_ND);
#define CUVIL_TENSOR_SCATTER_ENTRY(size, T)                                                        \
  list.push_back({size, CUVIL_KERNEL_REF(cuvil_tensor_scatter_##size)});
const std::vector<Instance<size_t>> kTensorScatter = CUVIL_SIZE_INSTANCE(TENSOR_SCATTER);

// By index type and value element size.
using OneHotKey = std::pair<std::string_view, size_t>;
const std::vector<Instance<OneHotKey>> kOneHot = [] {
  std::vector<Instance<OneHotKey>> list;
#define CUVIL_ONEHOT_ENTRY(index, I, codec, size, T)                                               \
  list.push_back({{#index, size}, CUVIL_KERNEL_REF(cuvil_onehot_##index##_##size)});
#define CUVIL_ONEHOT_ENTRIES(index, I, codec)                                                      \
  CUVIL_ONEHOT_VALUE_SIZES(CUVIL_ONEHOT_ENTRY, index, I, codec)
  CUVIL_ONEHOT_INDEX_TYPES(CUVIL_ONEHOT_ENTRIES)
  return list;
}();

const std::vector<Instance<std::string_view>> kArgReduce = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_ARG_REDUCE_ENTRY(name, T)                                                            \
  list.push_back({#name, CUVIL_KERNEL_REF(cuvil_arg_reduce_##name)});
  CUVIL_ARG_REDUCE_TYPES(CUVIL_ARG_REDUCE_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kTopK = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_TOPK_ENTRY(name, T) list.push_back({#name, CUVIL_KERNEL_REF(cuvil_topk_##name)});
  CUVIL_TOPK_TYPES(CUVIL_TOPK_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kHardmax = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_HARDMAX_ENTRY(name, T)                                                               \
  list.push_back({#name, CUVIL_KERNEL_REF(cuvil_hardmax_##name)});
  CUVIL_HARDMAX_TYPES(CUVIL_HARDMAX_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kTfIdf = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_TFIDF_ENTRY(name, T) list.push_back({#name, CUVIL_KERNEL_REF(cuvil_tfidf_##name)});
  CUVIL_TFIDF_TYPES(CUVIL_TFIDF_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kFft = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_FFT_ENTRY(name, T) list.push_back({#name, CUVIL_KERNEL_REF(cuvil_fft_##name)});
  CUVIL_FFT_TYPES(CUVIL_FFT_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kWindow = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_WINDOW_ENTRY(name, T) list.push_back({#name, CUVIL_KERNEL_REF(cuvil_window_##name)});
  CUVIL_WINDOW_TYPES(CUVIL_WINDOW_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kMelWeights = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_MEL_ENTRY(name, R, F, T)                                                             \
  list.push_back({#name, CUVIL_KERNEL_REF(cuvil_mel_weights_##name)});
  CUVIL_MEL_TYPES(CUVIL_MEL_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kCumSum = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_CUMSUM_ENTRY(name, T) list.push_back({#name, CUVIL_KERNEL_REF(cuvil_cumsum_##name)});
  CUVIL_CUMSUM_TYPES(CUVIL_CUMSUM_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kUnique = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_UNIQUE_ENTRY(name, T) list.push_back({#name, CUVIL_KERNEL_REF(cuvil_unique_##name)});
  CUVIL_UNIQUE_TYPES(CUVIL_UNIQUE_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kEinsum = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_EINSUM_ENTRY(name, T) list.push_back({#name, CUVIL_KERNEL_REF(cuvil_einsum_##name)});
  CUVIL_EINSUM_TYPES(CUVIL_EINSUM_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kRange = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_RANGE_ENTRY(name, T) list.push_back({#name, CUVIL_KERNEL_REF(cuvil_range_##name)});
  CUVIL_RANGE_TYPES(CUVIL_RANGE_ENTRY)
  return list;
}();

using CastKey = std::pair<std::string_view, std::string_view>;
const std::vector<Instance<CastKey>> kCast = [] {
  std::vector<Instance<CastKey>> list;
#define CUVIL_CAST_ENTRY(from, From, fromCodec, to, To, toCodec)                                   \
  list.push_back({{#from, #to}, CUVIL_KERNEL_REF(cuvil_cast_##from##_##to)});
#define CUVIL_CAST_ENTRIES(from, From, fromCodec)                                                  \
  CUVIL_CAST_TARGET_TYPES(CUVIL_CAST_ENTRY, from, From, fromCodec)
  CUVIL_CAST_SOURCE_TYPES(CUVIL_CAST_ENTRIES)
  return list;
}();

const std::vector<Instance<CastKey>> kStringCast = [] {
  std::vector<Instance<CastKey>> list;
#define CUVIL_STRING_CAST_ENTRIES(name, T, dtype)                                                  \
  list.push_back({{#name, "string"}, CUVIL_KERNEL_REF(cuvil_cast_##name##_to_string)});            \
  list.push_back({{"string", #name}, CUVIL_KERNEL_REF(cuvil_cast_string_to_##name)});
  CUVIL_STRING_CAST_TYPES(CUVIL_STRING_CAST_ENTRIES)
  return list;
}();

const std::vector<Instance<std::string_view>> kBinary = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_BINARY_ENTRY(name, T) list.push_back({#name, CUVIL_KERNEL_REF(cuvil_binary_##name)});
  CUVIL_BINARY_TYPES(CUVIL_BINARY_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kCompare = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_COMPARE_ENTRY(name, T)                                                               \
  list.push_back({#name, CUVIL_KERNEL_REF(cuvil_compare_##name)});
  CUVIL_COMPARE_TYPES(CUVIL_COMPARE_ENTRY)
  list.push_back({"string", CUVIL_KERNEL_REF(cuvil_compare_string)}); // Equal only
  return list;
}();

const std::vector<Instance<std::string_view>> kNonZero = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_NONZERO_ENTRY(name, T, mask)                                                         \
  list.push_back({#name, CUVIL_KERNEL_REF(cuvil_nonzero_##name)});
  CUVIL_NONZERO_TYPES(CUVIL_NONZERO_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kQuantize = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_QUANTIZE_ENTRY(name, Q, low, high)                                                   \
  list.push_back({#name, CUVIL_KERNEL_REF(cuvil_quantize_f32_##name)});
  CUVIL_QUANTIZED_TYPES(CUVIL_QUANTIZE_ENTRY)
  return list;
}();

const std::vector<Instance<std::string_view>> kDequantize = [] {
  std::vector<Instance<std::string_view>> list;
#define CUVIL_DEQUANTIZE_ENTRY(name, Q, low, high)                                                 \
  list.push_back({#name, CUVIL_KERNEL_REF(cuvil_dequantize_##name##_f32)});
  CUVIL_DEQUANTIZED_TYPES(CUVIL_DEQUANTIZE_ENTRY)
  return list;
}();

// Integer products by operand (and output) type names.
using IntegerKey = std::vector<std::string_view>;
const std::vector<Instance<IntegerKey>> kIntegerGemm = [] {
  std::vector<Instance<IntegerKey>> list;
#define CUVIL_IGEMM_ENTRY(an, A, bn, B)                                                            \
  list.push_back(                                                                                  \
      {{#an, #bn}, CUVIL_KERNEL_REF(cuvil_igemm_##an##_##bn).checkedBy(checkIntegerGemm)});
  CUVIL_IGEMM_TYPES(CUVIL_IGEMM_ENTRY)
  return list;
}();

const std::vector<Instance<IntegerKey>> kRequantizedGemm = [] {
  std::vector<Instance<IntegerKey>> list;
#define CUVIL_QGEMM_ENTRY(an, A, bn, B, yn, Y)                                                     \
  list.push_back({{#an, #bn, #yn},                                                                 \
                  CUVIL_KERNEL_REF(cuvil_qgemm_##an##_##bn##_##yn).checkedBy(checkIntegerGemm)});
  CUVIL_QGEMM_TYPES(CUVIL_QGEMM_ENTRY)
  return list;
}();

const std::vector<Instance<IntegerKey>> kDequantizedGemm = [] {
  std::vector<Instance<IntegerKey>> list;
#define CUVIL_DQGEMM_ENTRY(an, A, bn, B)                                                           \
  list.push_back(                                                                                  \
      {{#an, #bn}, CUVIL_KERNEL_REF(cuvil_dqgemm_##an##_##bn).checkedBy(checkDequantizedGemm)});
  CUVIL_IGEMM_TYPES(CUVIL_DQGEMM_ENTRY)
  return list;
}();

const std::vector<Instance<IntegerKey>> kIntegerConv = [] {
  std::vector<Instance<IntegerKey>> list;
#define CUVIL_ICONV_ENTRY(xn, X, wn, W)                                                            \
  list.push_back(                                                                                  \
      {{#xn, #wn}, CUVIL_KERNEL_REF(cuvil_iconv_##xn##_##wn).checkedBy(checkIntegerConv)});
  CUVIL_IGEMM_TYPES(CUVIL_ICONV_ENTRY)
  return list;
}();

const std::vector<Instance<IntegerKey>> kRequantizedConv = [] {
  std::vector<Instance<IntegerKey>> list;
#define CUVIL_QCONV_ENTRY(xn, X, wn, W, yn, Y)                                                     \
  list.push_back({{#xn, #wn, #yn},                                                                 \
                  CUVIL_KERNEL_REF(cuvil_qconv_##xn##_##wn##_##yn).checkedBy(checkIntegerConv)});
  CUVIL_QGEMM_TYPES(CUVIL_QCONV_ENTRY)
  return list;
}();

const std::vector<Instance<IntegerKey>> kDequantizedConv = [] {
  std::vector<Instance<IntegerKey>> list;
#define CUVIL_QCONV_DQ_ENTRY(xn, X, wn, W, yn, Y)                                                  \
  list.push_back(                                                                                  \
      {{#xn, #wn, #yn},                                                                            \
       CUVIL_KERNEL_REF(cuvil_qconv_dq_##xn##_##wn##_##yn).checkedBy(checkDequantizedConv)});
  CUVIL_QGEMM_TYPES(CUVIL_QCONV_DQ_ENTRY)
  return list;
}();

const std::vector<Instance<IntegerKey>> kQuantizedEpilogueConv = [] {
  std::vector<Instance<IntegerKey>> list;
#define CUVIL_QCONV_Q_ENTRY(xn, X, wn, W, yn, Y)                                                   \
  list.push_back(                                                                                  \
      {{#xn, #wn, #yn},                                                                            \
       CUVIL_KERNEL_REF(cuvil_qconv_q_##xn##_##wn##_##yn).checkedBy(checkDequantizedConv)});
  CUVIL_QGEMM_TYPES(CUVIL_QCONV_Q_ENTRY)
  return list;
}();

std::string typeNames(const IntegerKey &key) { return fmt::format("{}", fmt::join(key, " x ")); }

// Kernels store bool as u8.
std::string_view storedName(DType dtype) {
  return dtypeName(dtype == DType::Bool ? DType::U8 : dtype);
}

} // namespace

const KernelRef kConv2dKernel = CUVIL_KERNEL_REF(cuvil_conv2d_nchw_f32);
const KernelRef kConv3dKernel = CUVIL_KERNEL_REF(cuvil_conv3d_nchw_f32).checkedBy(checkConv3d);
const BlockedKernels kConvNCHWcKernels = {
    CUVIL_KERNEL_REF(cuvil_conv_nchw16c_f32).checkedBy(checkConvNCHWc<16>),
    CUVIL_KERNEL_REF(cuvil_conv_nchw8c_f32).checkedBy(checkConvNCHWc<8>)};
const BlockedKernels kDepthwiseNCHWcKernels = {
    CUVIL_KERNEL_REF(cuvil_dwconv_nchw16c_f32).checkedBy(checkDepthwise),
    CUVIL_KERNEL_REF(cuvil_dwconv_nchw8c_f32).checkedBy(checkDepthwise)};
const BlockedKernels kWinogradKernels = {
    CUVIL_KERNEL_REF(cuvil_winograd_nchw16c_f32).checkedBy(checkWinograd<16>),
    CUVIL_KERNEL_REF(cuvil_winograd_nchw8c_f32).checkedBy(checkWinograd<8>)};
const BlockedKernels kWinogradInputKernels = {CUVIL_KERNEL_REF(cuvil_winograd_input_nchw16c_f32),
                                              CUVIL_KERNEL_REF(cuvil_winograd_input_nchw8c_f32)};
const BlockedKernels kInvertedResidualKernels = {
    CUVIL_KERNEL_REF(cuvil_inverted_residual_nchw16c_f32).checkedBy(checkInvertedResidual<16>),
    CUVIL_KERNEL_REF(cuvil_inverted_residual_nchw8c_f32).checkedBy(checkInvertedResidual<8>)};
const KernelRef kGemmKernel = CUVIL_KERNEL_REF(cuvil_gemm_f32).checkedBy(checkGemm);
const KernelRef kGemmHalfWeightsKernel =
    CUVIL_KERNEL_REF(cuvil_gemm_f16_weights_f32).checkedBy(checkHalfWeightsGemm);
const KernelRef kGemmBf16WeightsKernel =
    CUVIL_KERNEL_REF(cuvil_gemm_bf16_weights_f32).checkedBy(checkBf16WeightsGemm);
const KernelRef kAttentionKernel = CUVIL_KERNEL_REF(cuvil_attention_f32).checkedBy(checkAttention);
const KernelRef kPool2dKernel = CUVIL_KERNEL_REF(cuvil_pool2d_f32);
const KernelRef kMaxPoolIndicesKernel = CUVIL_KERNEL_REF(cuvil_maxpool2d_indices_f32);
const KernelRef kMaxUnpoolKernel = CUVIL_KERNEL_REF(cuvil_max_unpool_f32);
const KernelRef kPool3dKernel = CUVIL_KERNEL_REF(cuvil_pool3d_f32);
const KernelRef kMaxPool3dU8Kernel = CUVIL_KERNEL_REF(cuvil_maxpool3d_u8);
const KernelRef kMaxPool3dI8Kernel = CUVIL_KERNEL_REF(cuvil_maxpool3d_i8);
const BlockedKernels kPoolNCHWcKernels = {CUVIL_KERNEL_REF(cuvil_pool_nchw16c_f32),
                                          CUVIL_KERNEL_REF(cuvil_pool_nchw8c_f32)};
const KernelRef kDetKernel = CUVIL_KERNEL_REF(cuvil_det_f32);
const KernelRef kGridSampleKernel = CUVIL_KERNEL_REF(cuvil_grid_sample_f32);
const KernelRef kRoiAlignKernel = CUVIL_KERNEL_REF(cuvil_roi_align_f32);
const KernelRef kReduceKernel = CUVIL_KERNEL_REF(cuvil_reduce_f32);
const KernelRef kReduceF64Kernel = CUVIL_KERNEL_REF(cuvil_reduce_f64);
const KernelRef kReduceI32Kernel = CUVIL_KERNEL_REF(cuvil_reduce_i32);
const KernelRef kReduceI64Kernel = CUVIL_KERNEL_REF(cuvil_reduce_i64);
const KernelRef kUnaryF64Kernel = CUVIL_KERNEL_REF(cuvil_unary_f64);
const KernelRef kUnaryKernel = CUVIL_KERNEL_REF(cuvil_unary_f32);
const KernelRef kElementwiseChainKernel =
    CUVIL_KERNEL_REF(cuvil_elementwise_chain_f32).checkedBy(checkChain);
const KernelRef kSoftmaxKernel = CUVIL_KERNEL_REF(cuvil_softmax_f32);
const KernelRef kLayerNormKernel = CUVIL_KERNEL_REF(cuvil_layernorm_f32);
const KernelRef kPackRecurrentKernel = CUVIL_KERNEL_REF(cuvil_pack_recurrent_f32);
const KernelRef kRecurrenceKernel =
    CUVIL_KERNEL_REF(cuvil_recurrence_f32).checkedBy(checkRecurrence);
const KernelRef kResizeKernel = CUVIL_KERNEL_REF(cuvil_resize_f32);
const KernelRef kLrnKernel = CUVIL_KERNEL_REF(cuvil_lrn_f32);
const BlockedKernels kReorderKernels = {CUVIL_KERNEL_REF(cuvil_reorder_nchw16c_f32),
                                        CUVIL_KERNEL_REF(cuvil_reorder_nchw8c_f32)};

Expected<const KernelRef *> copyKernel(size_t bytes) {
  return find(kCopy, bytes, "copy", fmt::format("{}-byte elements", bytes));
}
Expected<const KernelRef *> fillKernel(size_t bytes) {
  return find(kFill, bytes, "fill", fmt::format("{}-byte elements", bytes));
}
Expected<const KernelRef *> padKernel(size_t bytes) {
  return find(kPad, bytes, "pad", fmt::format("{}-byte elements", bytes));
}
Expected<const KernelRef *> whereKernel(size_t bytes) {
  return find(kWhere, bytes, "where", fmt::format("{}-byte elements", bytes));
}
Expected<const KernelRef *> eyeKernel(size_t bytes) {
  return find(kEye, bytes, "eye", fmt::format("{}-byte elements", bytes));
}
Expected<const KernelRef *> triluKernel(size_t bytes) {
  return find(kTrilu, bytes, "trilu", fmt::format("{}-byte elements", bytes));
}
Expected<const KernelRef *> gatherKernel(size_t bytes, DType indices) {
  return find(kGather, GatherKey{bytes, dtypeName(indices)}, "gather",
              fmt::format("{}-byte elements and {} indices", bytes, dtypeName(indices)));
}
Expected<const KernelRef *> gatherElementsKernel(size_t bytes, DType indices) {
  return find(kGatherElements, GatherKey{bytes, dtypeName(indices)}, "gather-elements",
              fmt::format("{}-byte elements and {} indices", bytes, dtypeName(indices)));
}
Expected<const KernelRef *> scatterElementsKernel(DType dtype, DType indices) {
  return find(kScatterElements, TypedIndexKey{dtypeName(dtype), dtypeName(indices)},
              "ScatterElements",
              fmt::format("element type {} and {} indices", dtypeName(dtype), dtypeName(indices)));
}
Expected<const KernelRef *> randomKernel(DType dtype) {
  static const std::vector<Instance<DType>> kinds = {
      {DType::F32, CUVIL_KERNEL_REF(cuvil_random_f32)},
      {DType::F64, CUVIL_KERNEL_REF(cuvil_random_f64)},
      {DType::F16, CUVIL_KERNEL_REF(cuvil_random_f16)}};
  return find(kinds, dtype, "random", fmt::format("element type {}", dtypeName(dtype)));
}
Expected<const KernelRef *> multinomialKernel(DType indices) {
  static const std::vector<Instance<DType>> kinds = {
      {DType::I32, CUVIL_KERNEL_REF(cuvil_multinomial_i32)},
      {DType::I64, CUVIL_KERNEL_REF(cuvil_multinomial_i64)}};
  return find(kinds, indices, "Multinomial", fmt::format("{} samples", dtypeName(indices)));
}
Expected<const KernelRef *> scatterNDKernel(DType dtype) {
  return find(kScatterND, dtypeName(dtype), "ScatterND",
              fmt::format("element type {}", dtypeName(dtype)));
}
Expected<const KernelRef *> gatherNDKernel(size_t bytes) {
  return find(kGatherND, bytes, "GatherND", fmt::format("{}-byte elements", bytes));
}
Expected<const KernelRef *> tensorScatterKernel(size_t bytes) {
  return find(kTensorScatter, bytes, "TensorScatter", fmt::format("{}-byte elements", bytes));
}
Expected<const KernelRef *> oneHotKernel(DType indices, size_t valueBytes) {
  return find(kOneHot, OneHotKey{dtypeName(indices), valueBytes}, "OneHot",
              fmt::format("{} indices and {}-byte values", dtypeName(indices), valueBytes));
}
Expected<const KernelRef *> argReduceKernel(DType dtype) {
  return find(kArgReduce, dtypeName(dtype), "arg-reduce",
              fmt::format("element type {}", dtypeName(dtype)));
}
Expected<const KernelRef *> einsumKernel(DType dtype) {
  return find(kEinsum, dtypeName(dtype), "Einsum",
              fmt::format("element type {}", dtypeName(dtype)));
}
Expected<const KernelRef *> rangeKernel(DType dtype) {
  return find(kRange, dtypeName(dtype), "Range", fmt::format("element type {}", dtypeName(dtype)));
}
Expected<const KernelRef *> topKKernel(DType dtype) {
  return find(kTopK, dtypeName(dtype), "TopK", fmt::format("element type {}", dtypeName(dtype)));
}
Expected<const KernelRef *> castKernel(DType from, DType to) {
  return find(kCast, CastKey{storedName(from), dtypeName(to)}, "cast",
              fmt::format("{} to {}", dtypeName(from), dtypeName(to)));
}
Expected<const KernelRef *> stringCastKernel(DType from, DType to) {
  return find(kStringCast, CastKey{dtypeName(from), dtypeName(to)}, "string cast",
              fmt::format("{} to {}", dtypeName(from), dtypeName(to)));
}
const KernelRef kStringNormalizerKernel = CUVIL_KERNEL_REF(cuvil_string_normalize);
const KernelRef kStringIndexKernel = CUVIL_KERNEL_REF(cuvil_string_index);
const KernelRef kStringConcatKernel = CUVIL_KERNEL_REF(cuvil_string_concat);
const KernelRef kRegexFullMatchKernel = CUVIL_KERNEL_REF(cuvil_regex_full_match);
const KernelRef kStringConstantKernel = CUVIL_KERNEL_REF(cuvil_string_constant);
Expected<const KernelRef *> binaryKernel(DType dtype) {
  return find(kBinary, dtypeName(dtype), "binary",
              fmt::format("element type {}", dtypeName(dtype)));
}
Expected<const KernelRef *> compareKernel(DType dtype) {
  return find(kCompare, storedName(dtype), "comparison",
              fmt::format("element type {}", dtypeName(dtype)));
}

Expected<const KernelRef *> hardmaxKernel(DType dtype) {
  return find(kHardmax, dtypeName(dtype), "Hardmax",
              fmt::format("element type {}", dtypeName(dtype)));
}

Expected<const KernelRef *> tfIdfKernel(DType dtype) {
  return find(kTfIdf, dtypeName(dtype), "TfIdfVectorizer",
              fmt::format("token type {}", dtypeName(dtype)));
}

Expected<const KernelRef *> cumSumKernel(DType dtype) {
  return find(kCumSum, dtypeName(dtype), "CumSum",
              fmt::format("element type {}", dtypeName(dtype)));
}

Expected<const KernelRef *> fftKernel(DType dtype) {
  return find(kFft, dtypeName(dtype), "FFT", fmt::format("element type {}", dtypeName(dtype)));
}

Expected<const KernelRef *> windowKernel(DType dtype) {
  return find(kWindow, dtypeName(dtype), "window",
              fmt::format("element type {}", dtypeName(dtype)));
}

Expected<const KernelRef *> melWeightsKernel(DType sampleRate, DType hertz, DType dtype) {
  std::string key =
      fmt::format("{}_{}_{}", dtypeName(sampleRate), dtypeName(hertz), dtypeName(dtype));
  for (const Instance<std::string_view> &instance : kMelWeights)
    if (instance.key == key)
      return &instance.kernel;
  return Status::error(fmt::format("no mel weights kernel for {}", key));
}

Expected<const KernelRef *> uniqueKernel(DType dtype) {
  // bool is stored as u8 and compares as one.
  std::string_view name = dtype == DType::Bool ? "u8" : dtypeName(dtype);
  return find(kUnique, name, "Unique", fmt::format("element type {}", dtypeName(dtype)));
}

Expected<const KernelRef *> reverseSequenceKernel(size_t bytes) {
  return find(kReverseSequence, bytes, "ReverseSequence", fmt::format("{}-byte elements", bytes));
}

Expected<const KernelRef *> compressKernel(size_t bytes) {
  return find(kCompress, bytes, "compress", fmt::format("{}-byte elements", bytes));
}

Expected<const KernelRef *> resizeNearestKernel(size_t bytes) {
  return find(kResizeNearest, bytes, "nearest resize", fmt::format("{}-byte elements", bytes));
}

Expected<const KernelRef *> nonZeroKernel(DType dtype) {
  // Floats compare by value; integers and bool by their bits.
  std::string_view name = dtype == DType::F32                           ? "f32"
                          : dtype == DType::F64                         ? "f64"
                          : dtype == DType::F16 || dtype == DType::BF16 ? "f16"
                          : dtypeSize(dtype) == 1                       ? "b8"
                          : dtypeSize(dtype) == 2                       ? "b16"
                          : dtypeSize(dtype) == 4                       ? "b32"
                                                                        : "b64";
  return find(kNonZero, name, "nonzero", dtypeName(dtype));
}

const KernelRef kDynamicQuantParamsKernel = CUVIL_KERNEL_REF(cuvil_dynamic_quant_params_u8);
const KernelRef kDynamicQuantizeRowsKernel = CUVIL_KERNEL_REF(cuvil_dynamic_quantize_rows_u8);

Expected<const KernelRef *> quantizeKernel(DType quantized) {
  return find(kQuantize, dtypeName(quantized), "quantize",
              fmt::format("f32 to {}", dtypeName(quantized)));
}

Expected<const KernelRef *> dequantizeKernel(DType quantized) {
  return find(kDequantize, dtypeName(quantized), "dequantize",
              fmt::format("{} to f32", dtypeName(quantized)));
}

Expected<const KernelRef *> integerGemmKernel(DType a, DType b) {
  IntegerKey key = {dtypeName(a), dtypeName(b)};
  return find(kIntegerGemm, key, "integer GEMM", typeNames(key));
}

Expected<const KernelRef *> requantizedGemmKernel(DType a, DType b, DType y) {
  IntegerKey key = {dtypeName(a), dtypeName(b), dtypeName(y)};
  return find(kRequantizedGemm, key, "requantized GEMM", typeNames(key));
}

Expected<const KernelRef *> dequantizedGemmKernel(DType a, DType b) {
  IntegerKey key = {dtypeName(a), dtypeName(b)};
  return find(kDequantizedGemm, key, "dequantizing GEMM", typeNames(key));
}

Expected<const KernelRef *> integerConvKernel(DType x, DType w) {
  IntegerKey key = {dtypeName(x), dtypeName(w)};
  return find(kIntegerConv, key, "integer convolution", typeNames(key));
}

Expected<const KernelRef *> requantizedConvKernel(DType x, DType w, DType y) {
  IntegerKey key = {dtypeName(x), dtypeName(w), dtypeName(y)};
  return find(kRequantizedConv, key, "requantized convolution", typeNames(key));
}

Expected<const KernelRef *> dequantizedConvKernel(DType x, DType w, DType y) {
  IntegerKey key = {dtypeName(x), dtypeName(w), dtypeName(y)};
  return find(kDequantizedConv, key, "dequantized convolution", typeNames(key));
}

Expected<const KernelRef *> quantizedEpilogueConvKernel(DType x, DType w, DType y) {
  IntegerKey key = {dtypeName(x), dtypeName(w), dtypeName(y)};
  return find(kQuantizedEpilogueConv, key, "quantized-epilogue convolution", typeNames(key));
}

} // namespace cuvil::ops
