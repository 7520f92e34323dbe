// A hand-written stand-in for a compiled model, linked with cuvil_runtime into
// fake_infer so that infer.bin's behaviour can be tested without the compiler.
//   symbols: n in [1, 4], opt 2
//   inputs:  x f32[n,3], ids i64[4]
//   outputs: "y:0" f32[n,3] = 2*x + 1 (through cuvil_parallel_for),
//            "ids/sum" i64[1] = sum(ids); a negative id is refused (error 1)
//   paths:   static (n = 2) and generic, the same code
#include "cuvil/runtime/ModelABI.h"

#include <cstdint>
#include <cstdlib>

namespace {

const cuvil_symbol_info kSymbols[] = {{"n", 1, 2, 4, 0}};
const int64_t kMatrixDims[] = {4, 3};
const int32_t kMatrixSymbols[] = {0, CUVIL_DIM_CONSTANT};
const char *const kMatrixExprs[] = {"n", nullptr};
const int64_t kIdsDims[] = {4};
const int64_t kSumDims[] = {1};
const int32_t kConstant[] = {CUVIL_DIM_CONSTANT};
const char *const kNoExpr[] = {nullptr};

const cuvil_tensor_info kInputs[] = {
    {"x", CUVIL_DTYPE_F32, 2, kMatrixDims, kMatrixSymbols, kMatrixExprs, 0, nullptr, nullptr},
    {"ids", CUVIL_DTYPE_I64, 1, kIdsDims, kConstant, kNoExpr, 0, nullptr, nullptr},
};
const cuvil_tensor_info kOutputs[] = {
    {"y:0", CUVIL_DTYPE_F32, 2, kMatrixDims, kMatrixSymbols, kMatrixExprs, 0, nullptr, nullptr},
    {"ids/sum", CUVIL_DTYPE_I64, 1, kSumDims, kConstant, kNoExpr, 0, nullptr, nullptr},
};

// The frame: the runtime's header, then the operands cuvil_run publishes for
// its task, as the compiler's frames hold the I/O table.
struct FakeFrame {
  cuvil_frame_header header;
  const float *x;
  float *y;
};

void affine(void *frame, int64_t begin, int64_t end) {
  auto *self = static_cast<FakeFrame *>(frame);
  for (int64_t i = begin; i < end; ++i)
    self->y[i] = 2 * self->x[i] + 1;
}

void requireAligned(const void *ptr) {
  // The ABI promises 64-byte alignment; generated code may rely on it.
  if (reinterpret_cast<uintptr_t>(ptr) % 64 != 0)
    std::abort();
}

const char *const kCallNames[] = {"Affine node 'y' fake_affine"};
const int64_t kStaticValues[] = {2};
const cuvil_path_info kPaths[] = {{"static", kStaticValues, 2048, 1, kCallNames},
                                  {"generic", nullptr, 4096, 1, kCallNames}};

void outputDims(const int64_t *symbols, int64_t *dims) {
  dims[0] = symbols[0];
  dims[1] = 3;
  dims[2] = 1;
}

const char *const kErrors[] = {"Sum node 'ids/sum': id {} is negative"};
alignas(64) const char kNoWeights[64] = {};

} // namespace

extern "C" {

const cuvil_model_info cuvil_model = {
    CUVIL_ABI_VERSION,
    2,
    2,
    kInputs,
    kOutputs,
    "fake",
    "x86_64-linux",
    "generic",
    "cuvil test fake model",
    4096,
    sizeof(FakeFrame),
    0,
    kNoWeights,
    nullptr,
    "avx2",
    1,
    1,
    kSymbols,
    2,
    kPaths,
    outputDims,
    1,
    kErrors,
    0,
};

int32_t cuvil_run(void *frame, void *const *inputs, void *const *outputs, int64_t *symbols,
                  int64_t *error_value) {
  for (int i = 0; i < 2; ++i) {
    requireAligned(inputs[i]);
    requireAligned(outputs[i]);
  }
  auto *self = static_cast<FakeFrame *>(frame);
  requireAligned(self);
  requireAligned(self->header.arena);
  self->x = static_cast<const float *>(inputs[0]);
  self->y = static_cast<float *>(outputs[0]);
  cuvil_parallel_for(affine, frame, symbols[0] * 3, -1, 0);

  const int64_t *ids = static_cast<const int64_t *>(inputs[1]);
  int64_t sum = 0;
  for (int i = 0; i < 4; ++i) {
    if (ids[i] < 0) {
      *error_value = ids[i];
      return 1;
    }
    sum += ids[i];
  }
  *static_cast<int64_t *>(outputs[1]) = sum;
  return 0;
}
}
