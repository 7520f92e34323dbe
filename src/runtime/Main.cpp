// infer.bin's entry point: the only runtime file that refers to the compiled
// model's symbols, so the rest of the runtime can be tested without one.
#include "Driver.h"

int main(int argc, char **argv) {
  return cuvil::runtime::runInfer(argc, argv, cuvil_model, cuvil_run);
}
