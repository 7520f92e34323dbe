// A calibration set on disk: one sub-folder per sample, holding one file
// per graph input named after it (NAME.npy or NAME.pb), or the ONNX test
// data layout (test_data_set_N/input_K.pb, K the input's position).
// Samples are taken in the order of their folder names.
#pragma once

#include "HostTensor.h"
#include "cuvil/support/Status.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace cuvil {

struct CalibrationSample {
  std::string name;                        // the sub-folder
  std::vector<runtime::HostTensor> inputs; // in graph input order
};

// The sample's inputs, then `extra` (inputs a compiler-made graph adds).
std::vector<const runtime::HostTensor *>
sampleInputs(const CalibrationSample &sample,
             std::initializer_list<const runtime::HostTensor *> extra = {});

// Every file a sample of the set may read, sorted (what the ranges and a
// compile depend on).
Expected<std::vector<std::string>> calibrationFiles(const std::string &directory);

// The samples, each input read from NAME.npy, NAME.pb or input_K.pb.
Expected<std::vector<CalibrationSample>>
readCalibrationSet(const std::string &directory, const std::vector<std::string> &inputNames);

} // namespace cuvil
