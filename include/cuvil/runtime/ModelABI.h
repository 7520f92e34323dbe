/* The contract between a compiled model object and the runtime it is linked
 * with. The compiler's backend emits `cuvil_model` and `cuvil_run`; the runtime
 * (infer.bin's main or a library's C API, the thread pool) provides
 * `cuvil_parallel_for` and `cuvil_isa_level`.
 *
 * The model keeps no mutable state of its own: each run works in a frame the
 * runtime allocates (cuvil_model_info.frame_bytes, with the arena beside it),
 * so several instances of one model, each with its own frame, run at once.
 *
 * Plain C so that both the generated LLVM module and the C++ runtime can agree
 * on the layout; bump CUVIL_ABI_VERSION on any change. */
#ifndef CUVIL_RUNTIME_MODELABI_H
#define CUVIL_RUNTIME_MODELABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUVIL_ABI_VERSION 13u

/* Element types use the codes of ONNX TensorProto.DataType. */
enum cuvil_dtype {
  CUVIL_DTYPE_F32 = 1,
  CUVIL_DTYPE_U8 = 2,
  CUVIL_DTYPE_I8 = 3,
  CUVIL_DTYPE_U16 = 4,
  CUVIL_DTYPE_I16 = 5,
  CUVIL_DTYPE_I32 = 6,
  CUVIL_DTYPE_I64 = 7,
  CUVIL_DTYPE_STRING = 8, /* elements are cuvil_string */
  CUVIL_DTYPE_BOOL = 9,
  CUVIL_DTYPE_F16 = 10,
  CUVIL_DTYPE_F64 = 11,
  CUVIL_DTYPE_U32 = 12,
  CUVIL_DTYPE_U64 = 13,
  CUVIL_DTYPE_BF16 = 16
};

/* An element of a string tensor: size bytes of UTF-8 at data, not
 * terminated. Strings are never written in place: a kernel that makes
 * strings (Cast to string, StringNormalizer) takes storage for their bytes
 * from the frame's cuvil_string_services; one that only moves them copies
 * the pointers. */
typedef struct cuvil_string {
  const char *data;
  int64_t size;
} cuvil_string;

/* The longest text format_number writes: a double's 17 significant digits,
 * sign, point and exponent, or a 64-bit integer's 20 digits and sign. */
#define CUVIL_NUMBER_TEXT_MAX 32

/* What string kernels need from the runtime, which sets one per frame
 * (cuvil_frame_header.strings). The text forms are Cast's: numbers in
 * printf's %g form with the fewest digits that read back as the same
 * value, and parsing that accepts plain and scientific forms, "INF",
 * "+INF", "-INF" and "NaN" in any case (src/runtime/StringServices.h). */
typedef struct cuvil_string_services {
  void *context;
  /* bytes of storage for strings the run makes, valid until the frame's
   * next run starts; NULL when memory is exhausted */
  char *(*allocate)(void *context, int64_t bytes);
  /* Writes the element of type dtype (enum cuvil_dtype) at value as text
   * into text[CUVIL_NUMBER_TEXT_MAX]; returns its length. */
  int32_t (*format_number)(int32_t dtype, const void *value, char *text);
  /* Parses size bytes at text as a value of type dtype into *value;
   * returns 0, or 1 when the text is not a number. */
  int32_t (*parse_number)(int32_t dtype, const char *text, int64_t size, void *value);
} cuvil_string_services;

/* A dimension known only at run time: an input's (a batch or sequence
 * length, in [min, max]), an element of an integer input's data
 * (cuvil_tensor_info.value_symbols) or an extent the run computes from data
 * (NonZero's count, bounded by max). */
typedef struct cuvil_symbol_info {
  const char *name; /* "batch", "sequence" */
  int64_t min, opt, max;
  int32_t from_data; /* 1: computed by cuvil_run, not given by an input */
} cuvil_symbol_info;

#define CUVIL_DIM_CONSTANT (-1)
#define CUVIL_DIM_EXPRESSION (-2)

typedef struct cuvil_tensor_info {
  const char *name; /* graph input/output name, as in the ONNX model */
  int32_t dtype;    /* enum cuvil_dtype */
  int32_t rank;
  /* rank entries: the dim, or for a symbolic one the most it can be */
  const int64_t *dims;
  /* rank entries: CUVIL_DIM_CONSTANT, the index of the symbol the dim is,
   * or CUVIL_DIM_EXPRESSION (outputs only: "2*sequence") */
  const int32_t *dim_symbols;
  /* rank entries: the dim's expression, NULL for a constant */
  const char *const *dim_exprs;
  /* Inputs whose values the compile fixed or ranged (a shape tensor:
   * --value, --value-range): its element count (int64 or int32 elements),
   * else 0. Element k must equal values[k] when value_symbols[k] is
   * CUVIL_DIM_CONSTANT; otherwise it gives the symbol of that index (in its
   * range), and values[k] is the symbol's max. A floating-point input's
   * values are fixed, each the bit pattern of the f64 it must equal. */
  int32_t num_values;
  const int32_t *value_symbols;
  const int64_t *values;
} cuvil_tensor_info;

/* A code path of the model: a static one serves inputs whose symbols have
 * exactly its values (the OPT shape); the generic one, last, serves any. */
typedef struct cuvil_path_info {
  const char *name;             /* "static", "generic" */
  const int64_t *symbol_values; /* num_symbols values (from_data ones not compared); NULL for
                                   the generic path */
  uint64_t arena_bytes;         /* the part of the arena it uses */
  /* One name per cuvil_parallel_for call of the path, by its `call` index
   * ("<op> '<node>' <kernel>"), for the runtime's --profile. */
  uint32_t num_kernel_calls;
  const char *const *kernel_call_names;
} cuvil_path_info;

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
  uint64_t arena_bytes;         /* scratch arena each frame points to */
  uint64_t frame_bytes;         /* the frame: cuvil_frame_header, then the model's own */
  uint64_t weights_bytes;       /* read-only weights embedded in the binary */
  /* Where the weights are: in the loaded image at `weights`, or (weights
   * too large for the image, which the code addresses within +-2 GiB, or a
   * compile with --map-weights) in the ELF section `weights_section` of the
   * file holding this model, which is not loaded with the program: the
   * runtime maps it read-only before the first run, and `weights` is NULL. */
  const void *weights;
  const char *weights_section;
  /* The instruction-set variants compiled in, best first ("avx512,avx2"),
   * and the cuvil_isa_level the CPU needs for the last (fallback) one. */
  const char *isa_variants;
  int32_t min_isa_level;
  uint32_t num_symbols;
  const cuvil_symbol_info *symbols;
  uint32_t num_paths; /* in the order cuvil_run tries them */
  const cuvil_path_info *paths;
  /* Writes every output's dims for the given symbol values, the outputs
   * one after another (sum of their ranks entries). */
  void (*output_dims)(const int64_t *symbols, int64_t *dims);
  /* What a run can refuse at run time, from data (an index out of range):
   * one message per check, naming the node ("Gather node 'y': index {}
   * is out of range [-5, 5)"); the runtime puts the offending value where
   * the message has "{}". cuvil_run returns 1 + the index of the check that
   * failed. */
  uint32_t num_errors;
  const char *const *errors;
  /* 1: the model draws random numbers (RandomNormal, Bernoulli, ...), so its
   * outputs differ from run to run. */
  int32_t draws_random;
} cuvil_model_info;

/* Emitted by the compiler. */
extern const cuvil_model_info cuvil_model;

/* The start of every frame; the rest (frame_bytes in all) is the model's. The
 * runtime allocates a frame 64-byte aligned and zeroed, and sets every field
 * before the first run. */
typedef struct cuvil_frame_header {
  void *runtime;       /* the runtime's own (which pool runs this frame's tasks) */
  void *arena;         /* arena_bytes of scratch, 64-byte aligned */
  const void *weights; /* weights_bytes of weights, 64-byte aligned (see weights) */
  /* Random ops without a seed draw from random_seed, which the runtime sets
   * from the system's entropy; cuvil_run counts its runs in runs, so that
   * each draws anew (include/cuvil/kernels/Random.h). */
  uint64_t random_seed;
  uint64_t runs;
  /* Storage and text conversions for string tensors (see cuvil_string). */
  const cuvil_string_services *strings;
} cuvil_frame_header;

/* Runs one inference in `frame`. inputs[i] / outputs[i] point to dense
 * row-major buffers of the i-th input/output, 64-byte aligned; outputs[i]
 * holds the output at its largest (cuvil_tensor_info.dims). symbols[s] holds
 * the value of each symbol an input gives, checked by the caller against the
 * inputs' shapes and the symbol's range; cuvil_run writes the from_data ones.
 * Runs in one frame must not overlap in time; runs in different frames may.
 * Returns 0, or when the data fails a check (cuvil_model_info.errors) 1 + the
 * check's index, with the offending value in *error_value; the outputs are
 * then undefined. */
int32_t cuvil_run(void *frame, void *const *inputs, void *const *outputs, int64_t *symbols,
                  int64_t *error_value);

/* Provided by the runtime: runs task(frame, begin, end) over disjoint chunks
 * covering [0, num_tasks), possibly on several threads, and returns when all
 * are done. The calling thread takes part. work_ns is the compiler's estimate
 * of the whole call's time on one thread: a call too short to repay handing
 * chunks to other threads runs on the caller alone. `call` is the call's index
 * in the path's kernel_call_names: calls in a branch not taken or a loop body
 * make the order of the run differ from that list. */
typedef void (*cuvil_task_fn)(void *frame, int64_t begin, int64_t end);
void cuvil_parallel_for(cuvil_task_fn task, void *frame, int64_t num_tasks, int64_t work_ns,
                        int64_t call);

/* Provided by the runtime: the instruction sets the CPU supports, as
 * cuvil_run picks its variant by: 4 = AVX-512 with VNNI and BF16
 * (vdpbf16ps), 3 = AVX-512 with VNNI (vpdpbusd),
 * 2 = AVX-512 (F, BW, CD, DQ, VL), 1 = AVX2 + FMA, 0 = neither; on aarch64
 * 1 = SVE, 0 = NEON. The environment variable CUVIL_ISA=avx2 (or avx512,
 * neon) caps it, to run a fallback path on a newer CPU. */
int32_t cuvil_isa_level(void);

#ifdef __cplusplus
}
#endif

#endif /* CUVIL_RUNTIME_MODELABI_H */
