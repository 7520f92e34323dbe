// libFuzzer target: infer.bin's input readers (.npy and ONNX TensorProto
// .pb). Bad bytes must end in std::runtime_error; a crash or a sanitizer
// report is a finding.
//   build-fuzz/tests/fuzz/fuzz_tensor_files -max_total_time=600 tests/fuzz/corpus/tensors
#include "NpyFormat.h"
#include "TensorProtoReader.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  try {
    cuvil::runtime::HostTensor tensor = cuvil::runtime::isNpy(bytes)
                                            ? cuvil::runtime::parseNpy(bytes)
                                            : cuvil::runtime::parseTensorProto(bytes);
    // Touch every byte the reader says it holds.
    volatile uint8_t sum = 0;
    for (size_t i = 0; i < tensor.byteSize(); ++i)
      sum = uint8_t(sum + uint8_t(tensor.data()[i]));
  } catch (const std::runtime_error &) {
  }
  return 0;
}
