/* The contract between a compiled model object and the runtime it is linked
 * with. The compiler's backend emits `cuvil_model` and `cuvil_run`; the runtime
 * (infer.bin's main, the thread pool) provides `cuvil_parallel_for`.
 *
 * Plain C so that both the generated LLVM module and the C++ runtime can agree
 * on the layout; bump CUVIL_ABI_VERSION on any change. */
#ifndef CUVIL_RUNTIME_MODELABI_H
#define CUVIL_RUNTIME_MODELABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUVIL_ABI_VERSION 3u

/* Element types use the codes of ONNX TensorProto.DataType. */
enum cuvil_dtype {
  CUVIL_DTYPE_F32 = 1,
  CUVIL_DTYPE_U8 = 2,
  CUVIL_DTYPE_I8 = 3,
  CUVIL_DTYPE_U16 = 4,
  CUVIL_DTYPE_I16 = 5,
  CUVIL_DTYPE_I32 = 6,
  CUVIL_DTYPE_I64 = 7,
  CUVIL_DTYPE_BOOL = 9,
  CUVIL_DTYPE_F16 = 10,
  CUVIL_DTYPE_F64 = 11,
  CUVIL_DTYPE_U32 = 12,
  CUVIL_DTYPE_U64 = 13,
  CUVIL_DTYPE_BF16 = 16
};

typedef struct cuvil_tensor_info {
  const char *name; /* graph input/output name, as in the ONNX model */
  int32_t dtype;    /* enum cuvil_dtype */
  int32_t rank;
  const int64_t *dims; /* rank entries, all static */
} cuvil_tensor_info;

typedef struct cuvil_model_info {
  uint32_t abi_version; /* CUVIL_ABI_VERSION */
  uint32_t num_inputs;
  uint32_t num_outputs;
  const cuvil_tensor_info *inputs;
  const cuvil_tensor_info *outputs;
  const char *model_name;
  const char *target;           /* e.g. "x86_64-linux" */
  const char *cpu;              /* e.g. "x86-64-v4" */
  const char *compiler_version; /* e.g. "cuvil 0.1.0 (LLVM 19.1.7)" */
  uint64_t arena_bytes;         /* static scratch arena owned by the model */
  uint64_t weights_bytes;       /* read-only weights embedded in the binary */
  /* One name per cuvil_parallel_for call of cuvil_run, in call order
   * ("<op> '<node>' <kernel>"), for the runtime's --profile. */
  uint32_t num_kernel_calls;
  const char *const *kernel_call_names;
  /* The instruction-set variants compiled in, best first ("avx512,avx2"),
   * and the cuvil_isa_level the CPU needs for the last (fallback) one. */
  const char *isa_variants;
  int32_t min_isa_level;
} cuvil_model_info;

/* Emitted by the compiler. */
extern const cuvil_model_info cuvil_model;

/* Runs one inference. inputs[i] / outputs[i] point to dense row-major buffers
 * of the i-th input/output, 64-byte aligned. The model uses a static arena:
 * calls must not overlap in time. */
void cuvil_run(void *const *inputs, void *const *outputs);

/* Provided by the runtime: runs task(begin, end) over disjoint chunks covering
 * [0, num_tasks), possibly on several threads, and returns when all are done.
 * The calling thread takes part. */
typedef void (*cuvil_task_fn)(int64_t begin, int64_t end);
void cuvil_parallel_for(cuvil_task_fn task, int64_t num_tasks);

/* Provided by the runtime: the instruction sets the CPU supports, as
 * cuvil_run picks its variant by: 2 = AVX-512 (F, BW, CD, DQ, VL),
 * 1 = AVX2 + FMA, 0 = neither. The environment variable CUVIL_ISA=avx2 (or
 * avx512) caps it, to run a fallback path on a newer CPU. */
int32_t cuvil_isa_level(void);

#ifdef __cplusplus
}
#endif

#endif /* CUVIL_RUNTIME_MODELABI_H */
