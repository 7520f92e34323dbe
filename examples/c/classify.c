/* Classifies an image with the bundled example model compiled into a
 * library:
 *
 *   cuvil compile --input models/example/tiny_cnn.onnx --emit lib --output out/tiny_cnn
 *   cc examples/c/classify.c -Iout out/libtiny_cnn.a -lpthread -lm -o classify
 *   ./classify image.f32 probs.f32
 *
 * image.f32 holds the input as raw little-endian float32 (1x3x32x32); the
 * probabilities go to probs.f32 the same way, and the best class to stdout. */
#include "tiny_cnn.h"

#include <stdio.h>
#include <stdlib.h>

/* Elements of a tensor at its largest. */
static int64_t max_elements(const cuvil_tensor_desc *desc) {
  int64_t count = 1;
  for (int32_t d = 0; d < desc->rank; ++d)
    count *= desc->max_dims[d];
  return count;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s IMAGE.f32 PROBS.f32\n", argv[0]);
    return 2;
  }
  cuvil_tensor_desc in, out;
  if (tiny_cnn_input(0, &in) != CUVIL_OK || tiny_cnn_output(0, &out) != CUVIL_OK)
    return 1;
  int64_t in_count = max_elements(&in), out_count = max_elements(&out);
  float *image = malloc(sizeof(float) * (size_t)in_count);
  float *probs = malloc(sizeof(float) * (size_t)out_count);
  FILE *file = fopen(argv[1], "rb");
  if (!image || !probs || !file ||
      fread(image, sizeof(float), (size_t)in_count, file) != (size_t)in_count) {
    fprintf(stderr, "cannot read %lld floats of '%s' from %s\n", (long long)in_count, in.name,
            argv[1]);
    return 1;
  }
  fclose(file);

  cuvil_instance *model;
  if (tiny_cnn_create(&model) != CUVIL_OK) {
    fprintf(stderr, "error: %s\n", tiny_cnn_last_error(NULL));
    return 1;
  }
  const void *inputs[] = {image};
  void *outputs[] = {probs};
  if (tiny_cnn_run(model, inputs, NULL, outputs, NULL) != CUVIL_OK) {
    fprintf(stderr, "error: %s\n", tiny_cnn_last_error(model));
    tiny_cnn_destroy(model);
    return 1;
  }
  tiny_cnn_destroy(model);

  int64_t best = 0;
  for (int64_t k = 1; k < out_count; ++k)
    if (probs[k] > probs[best])
      best = k;
  printf("class %lld (p = %.4f)\n", (long long)best, probs[best]);
  file = fopen(argv[2], "wb");
  if (!file || fwrite(probs, sizeof(float), (size_t)out_count, file) != (size_t)out_count ||
      fclose(file) != 0) {
    fprintf(stderr, "cannot write %s\n", argv[2]);
    return 1;
  }
  free(image);
  free(probs);
  return 0;
}
