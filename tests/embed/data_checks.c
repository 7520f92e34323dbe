/* A model library refuses data its model checks, as infer.bin does: the
 * gather_lib library (Gather of 5 floats at 2 indices) must gather valid
 * indices, and refuse an index out of range with CUVIL_BAD_DATA and a
 * message naming the node and the index, then run again. */
#include "gather_lib.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  cuvil_instance *model = NULL;
  if (gather_lib_create(&model) != CUVIL_OK) {
    fprintf(stderr, "create: %s\n", gather_lib_last_error(NULL));
    return 1;
  }
  static float data[5] = {10, 11, 12, 13, 14}, out[2];
  static int64_t good[2] = {4, -5}, bad[2] = {1, 7};
  int failures = 0;
  const void *inputs[] = {data, good};
  void *outputs[] = {out};
  if (gather_lib_run(model, inputs, NULL, outputs, NULL) != CUVIL_OK || out[0] != 14 ||
      out[1] != 10) {
    fprintf(stderr, "FAILED valid indices: %s (%g, %g)\n", gather_lib_last_error(model), out[0],
            out[1]);
    ++failures;
  }
  inputs[1] = bad;
  cuvil_status status = gather_lib_run(model, inputs, NULL, outputs, NULL);
  const char *message = gather_lib_last_error(model);
  if (status != CUVIL_BAD_DATA || !strstr(message, "Gather node 'pick'") ||
      !strstr(message, "index 7 is out of range")) {
    fprintf(stderr, "FAILED index 7: status %d, '%s'\n", (int)status, message);
    ++failures;
  } else {
    printf("index 7 refused: %s\n", message);
  }
  inputs[1] = good;
  if (gather_lib_run(model, inputs, NULL, outputs, NULL) != CUVIL_OK || out[0] != 14) {
    fprintf(stderr, "FAILED a run after the refusal: %s\n", gather_lib_last_error(model));
    ++failures;
  }
  gather_lib_destroy(model);
  return failures ? 1 : 0;
}
