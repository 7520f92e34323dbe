/* The library API's promises, checked from C on two models linked into one
 * program: tiny_dyn (the example model with a batch from 1 to 4) and
 * tiny_cnn (the same model, static). Writes tiny_dyn's probabilities for a
 * batch of 3 to PROBS.f32 for the caller to compare with ONNX Runtime.
 *
 *   api_checks IMAGES.f32 PROBS.f32      (IMAGES.f32: 3x3x32x32 float32) */
#include "tiny_cnn.h"
#include "tiny_dyn.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(condition, ...)                                                                      \
  do {                                                                                             \
    if (!(condition)) {                                                                            \
      fprintf(stderr, "FAILED %s:%d: %s: ", __FILE__, __LINE__, #condition);                       \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

enum { kImage = 3 * 32 * 32, kClasses = 10, kBatch = 3 };

/* A caller's pool that runs the chunks on the calling thread, last first:
 * any order must do. */
static int pool_calls = 0;
static void reverse_pool(void *pool, cuvil_pool_task task, void *context, int64_t num_tasks,
                         int64_t work_ns) {
  (void)work_ns;
  ++*(int *)pool;
  for (int64_t t = num_tasks; t-- > 0;)
    task(context, t, t + 1);
}

static float max_difference(const float *a, const float *b, int n) {
  float worst = 0;
  for (int i = 0; i < n; ++i)
    worst = fmaxf(worst, fabsf(a[i] - b[i]));
  return worst;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  static float images[kBatch * kImage + 16], probs[4 * kClasses], again[4 * kClasses];
  FILE *file = fopen(argv[1], "rb");
  if (!file || fread(images, sizeof(float), kBatch * kImage, file) != kBatch * kImage)
    return 2;
  fclose(file);

  /* The signature. */
  CHECK(tiny_dyn_num_inputs() == 1 && tiny_dyn_num_outputs() == 1, "counts");
  cuvil_tensor_desc in, out;
  CHECK(tiny_dyn_input(0, &in) == CUVIL_OK, "input 0");
  CHECK(in.rank == 4 && in.element_type == CUVIL_FLOAT32, "rank %d type %d", in.rank,
        in.element_type);
  CHECK(in.min_dims[0] == 1 && in.max_dims[0] == 4 && in.dim_names[0] != NULL,
        "batch dim [%lld, %lld]", (long long)in.min_dims[0], (long long)in.max_dims[0]);
  CHECK(in.min_dims[1] == 3 && in.max_dims[1] == 3 && in.dim_names[1] == NULL, "channel dim");
  CHECK(tiny_dyn_output(0, &out) == CUVIL_OK && out.rank == 2 && out.max_dims[1] == kClasses,
        "output");
  CHECK(tiny_dyn_input(1, &in) == CUVIL_INVALID_ARGUMENT, "input 1 does not exist");
  CHECK(tiny_dyn_input(-1, &in) == CUVIL_INVALID_ARGUMENT, "input -1 does not exist");
  CHECK(tiny_dyn_create(NULL) == CUVIL_INVALID_ARGUMENT, "create(NULL)");
  CHECK(strlen(tiny_dyn_last_error(NULL)) > 0, "create(NULL) says why");

  cuvil_instance *model = NULL;
  CHECK(tiny_dyn_create(&model) == CUVIL_OK, "%s", tiny_dyn_last_error(NULL));
  if (!model)
    return 1;

  /* A batch of 3: its output dims come back. */
  int64_t dims[4] = {kBatch, 3, 32, 32}, out_dims[2] = {0, 0};
  const int64_t *input_dims[] = {dims};
  int64_t *output_dims[] = {out_dims};
  const void *inputs[] = {images};
  void *outputs[] = {probs};
  CHECK(tiny_dyn_run(model, inputs, input_dims, outputs, output_dims) == CUVIL_OK, "%s",
        tiny_dyn_last_error(model));
  CHECK(out_dims[0] == kBatch && out_dims[1] == kClasses, "output dims %lldx%lld",
        (long long)out_dims[0], (long long)out_dims[1]);
  CHECK(strcmp(tiny_dyn_last_error(model), "") == 0, "no error after a success");

  /* Buffers 4 bytes off a 64-byte boundary run in place, and buffers off
   * their element's alignment through aligned copies: the same result. */
  float *shifted = images + 1; /* 4 bytes off */
  memmove(shifted, images, sizeof(float) * kBatch * kImage);
  const void *shifted_inputs[] = {shifted};
  void *shifted_outputs[] = {again + 1};
  CHECK(tiny_dyn_run(model, shifted_inputs, input_dims, shifted_outputs, NULL) == CUVIL_OK, "%s",
        tiny_dyn_last_error(model));
  CHECK(memcmp(again + 1, probs, sizeof(float) * kBatch * kClasses) == 0, "unaligned buffers");
  memmove(images, shifted, sizeof(float) * kBatch * kImage);
  char *odd = (char *)images + 1; /* 1 byte off */
  memmove(odd, images, sizeof(float) * kBatch * kImage);
  const void *odd_inputs[] = {odd};
  void *odd_outputs[] = {(char *)again + 1};
  CHECK(tiny_dyn_run(model, odd_inputs, input_dims, odd_outputs, NULL) == CUVIL_OK, "%s",
        tiny_dyn_last_error(model));
  CHECK(memcmp((char *)again + 1, probs, sizeof(float) * kBatch * kClasses) == 0,
        "buffers off their element's alignment");
  memmove(images, odd, sizeof(float) * kBatch * kImage);

  /* The caller's pool, and back to the instance's threads. */
  CHECK(tiny_dyn_set_pool(model, reverse_pool, &pool_calls) == CUVIL_OK, "set_pool");
  memset(again, 0, sizeof again);
  void *again_outputs[] = {again};
  CHECK(tiny_dyn_run(model, inputs, input_dims, again_outputs, NULL) == CUVIL_OK, "%s",
        tiny_dyn_last_error(model));
  CHECK(pool_calls > 0, "the caller's pool ran no call");
  CHECK(max_difference(again, probs, kBatch * kClasses) == 0, "caller's pool: %g",
        max_difference(again, probs, kBatch * kClasses));
  CHECK(tiny_dyn_set_pool(model, NULL, NULL) == CUVIL_OK, "unset pool");
  CHECK(tiny_dyn_set_threads(model, 2) == CUVIL_OK, "%s", tiny_dyn_last_error(model));
  CHECK(tiny_dyn_set_threads(model, -1) == CUVIL_INVALID_ARGUMENT, "-1 threads");

  /* Refusals: a status, a message, no crash. */
  int64_t too_big[4] = {5, 3, 32, 32}, wrong_channels[4] = {1, 4, 32, 32};
  const int64_t *too_big_dims[] = {too_big}, *wrong_dims[] = {wrong_channels};
  CHECK(tiny_dyn_run(model, inputs, too_big_dims, outputs, NULL) == CUVIL_BAD_SHAPE,
        "batch 5 accepted");
  CHECK(strstr(tiny_dyn_last_error(model), "outside the range [1, 4]") != NULL, "%s",
        tiny_dyn_last_error(model));
  CHECK(tiny_dyn_run(model, inputs, wrong_dims, outputs, NULL) == CUVIL_BAD_SHAPE,
        "4 channels accepted");
  CHECK(strstr(tiny_dyn_last_error(model), "dim 1 is 4, but the model was compiled for 3") != NULL,
        "%s", tiny_dyn_last_error(model));
  CHECK(tiny_dyn_run(model, inputs, NULL, outputs, NULL) == CUVIL_INVALID_ARGUMENT,
        "symbolic dims without input_dims");
  const void *null_inputs[] = {NULL};
  CHECK(tiny_dyn_run(model, null_inputs, input_dims, outputs, NULL) == CUVIL_INVALID_ARGUMENT,
        "NULL input");
  CHECK(tiny_dyn_run(NULL, inputs, input_dims, outputs, NULL) == CUVIL_INVALID_ARGUMENT,
        "NULL instance");
  tiny_dyn_destroy(model);
  tiny_dyn_destroy(NULL);

  /* The second model in the same program: the static one agrees on image 0. */
  cuvil_instance *fixed = NULL;
  CHECK(tiny_cnn_create(&fixed) == CUVIL_OK, "%s", tiny_cnn_last_error(NULL));
  float single[kClasses];
  void *single_outputs[] = {single};
  CHECK(fixed && tiny_cnn_run(fixed, inputs, NULL, single_outputs, NULL) == CUVIL_OK, "%s",
        tiny_cnn_last_error(fixed));
  CHECK(max_difference(single, probs, kClasses) < 1e-5f, "static vs dynamic: %g",
        max_difference(single, probs, kClasses));
  tiny_cnn_destroy(fixed);

  file = fopen(argv[2], "wb");
  if (!file || fwrite(probs, sizeof(float), kBatch * kClasses, file) != kBatch * kClasses)
    return 2;
  fclose(file);
  if (failures)
    fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
