/* The template of the header `cuvil compile --emit lib` or `--emit shared`
 * writes next to a model library (LibraryLinker.cpp): there, this comment
 * says what the model is, and every `cuvil_model_` prefix is the model's name
 * (`resnet_create`), so that several models link into one program; the
 * types, shared by all of them, are defined once whichever header comes
 * first. src/runtime/EmbedApi.cpp implements it. */

/* An instance owns its working memory and threads; several instances of one
 * model run concurrently (the weights are shared, read-only). Calls on one
 * instance must not overlap. Every function that can fail returns a
 * cuvil_status and never aborts; cuvil_model_last_error says why. */
#ifndef CUVIL_MODEL_API_H
#define CUVIL_MODEL_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CUVIL_API_TYPES
#define CUVIL_API_TYPES

typedef enum cuvil_status {
  CUVIL_OK = 0,
  CUVIL_INVALID_ARGUMENT = 1, /* a null pointer, an index or a thread count out of range */
  CUVIL_BAD_SHAPE = 2,        /* input dims unlike the signature or outside its ranges */
  CUVIL_BAD_DATA = 3,         /* the model refused the input data (an index out of range) */
  CUVIL_OUT_OF_MEMORY = 4,
  CUVIL_UNSUPPORTED_CPU = 5, /* the CPU lacks the instruction set of every compiled variant */
  CUVIL_THREAD_ERROR = 6,    /* a worker thread could not start */
  CUVIL_NO_WEIGHTS = 7       /* the weights kept in the library's file could not be mapped */
} cuvil_status;

/* Element types: the codes of ONNX TensorProto.DataType. */
typedef enum cuvil_element_type {
  CUVIL_FLOAT32 = 1,
  CUVIL_UINT8 = 2,
  CUVIL_INT8 = 3,
  CUVIL_UINT16 = 4,
  CUVIL_INT16 = 5,
  CUVIL_INT32 = 6,
  CUVIL_INT64 = 7,
  CUVIL_STRING = 8, /* elements are cuvil_string_element */
  CUVIL_BOOL = 9,
  CUVIL_FLOAT16 = 10,
  CUVIL_FLOAT64 = 11,
  CUVIL_UINT32 = 12,
  CUVIL_UINT64 = 13,
  CUVIL_BFLOAT16 = 16
} cuvil_element_type;

/* An element of a CUVIL_STRING tensor: size bytes of UTF-8 at data. The
 * strings of an output stay valid until the instance's next run. */
typedef struct cuvil_string_element {
  const char *data;
  int64_t size;
} cuvil_string_element;
/* One input or output of the signature. A dim fixed at compile time has
 * min_dims[d] == max_dims[d] and dim_names[d] NULL; a symbolic one ranges
 * over [min_dims[d], max_dims[d]] and is named ("batch", "2*sequence"). */
typedef struct cuvil_tensor_desc {
  const char *name;
  int32_t element_type; /* cuvil_element_type */
  int32_t rank;
  const int64_t *min_dims;
  const int64_t *max_dims;
  const char *const *dim_names;
} cuvil_tensor_desc;

typedef struct cuvil_instance cuvil_instance;

/* A caller's thread pool (cuvil_model_set_pool): `run` must call
 * task(context, begin, end) on disjoint ranges covering [0, num_tasks),
 * possibly on several threads, and return when all have run. work_ns
 * estimates the whole call's time on one thread (negative: unknown): a pool
 * may run calls too short to repay a split on the calling thread. */
typedef void (*cuvil_pool_task)(void *context, int64_t begin, int64_t end);
typedef void (*cuvil_pool_run)(void *pool, cuvil_pool_task task, void *context, int64_t num_tasks,
                               int64_t work_ns);

#endif /* CUVIL_API_TYPES */

/* The signature: how many inputs and outputs, and each one's description
 * (valid for the life of the program). */
int32_t cuvil_model_num_inputs(void);
int32_t cuvil_model_num_outputs(void);
cuvil_status cuvil_model_input(int32_t index, cuvil_tensor_desc *desc);
cuvil_status cuvil_model_output(int32_t index, cuvil_tensor_desc *desc);

/* A new instance, running on as many threads as the process may use. On
 * failure *instance is NULL and cuvil_model_last_error(NULL) says why. */
cuvil_status cuvil_model_create(cuvil_instance **instance);
void cuvil_model_destroy(cuvil_instance *instance);

/* The threads the instance's runs use: 1 runs on the caller alone, 0 on as
 * many as the process may use. */
cuvil_status cuvil_model_set_threads(cuvil_instance *instance, int32_t threads);
/* Runs on the caller's pool instead of threads of the instance's own (NULL
 * `run` goes back to them). */
cuvil_status cuvil_model_set_pool(cuvil_instance *instance, cuvil_pool_run run, void *pool);

/* One inference. inputs[i] is the i-th input's data, dense row-major, with
 * input_dims[i] its rank dims (input_dims may be NULL, or an entry NULL, for
 * an input whose dims are all fixed). outputs[i] receives the i-th output
 * and must hold it at its largest (the product of max_dims); its dims go to
 * output_dims[i] when output_dims and that entry are not NULL. Buffers
 * aligned to their element (any numpy array or malloc'ed buffer) are used
 * in place; others are copied through aligned ones the instance keeps. */
cuvil_status cuvil_model_run(cuvil_instance *instance, const void *const *inputs,
                             const int64_t *const *input_dims, void *const *outputs,
                             int64_t *const *output_dims);

/* Why the instance's last call failed ("" after a success); NULL: why the
 * calling thread's last cuvil_model_create failed. */
const char *cuvil_model_last_error(const cuvil_instance *instance);

#ifdef __cplusplus
}
#endif

#endif /* CUVIL_MODEL_API_H */
