#include "CalibrationSet.h"

#include "Inputs.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

namespace cuvil {
namespace {

namespace fs = std::filesystem;

Expected<std::vector<fs::path>> sampleFolders(const std::string &directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error))
    return Status::error(fmt::format("calibration set {}: not a directory", directory));
  std::vector<fs::path> folders;
  for (const auto &entry : fs::directory_iterator(directory, error))
    if (entry.is_directory(error))
      folders.push_back(entry.path());
  if (error)
    return Status::error(
        fmt::format("calibration set {}: cannot list it: {}", directory, error.message()));
  if (folders.empty())
    return Status::error(fmt::format(
        "calibration set {} has no sample folders (one per sample, holding NAME.npy or NAME.pb "
        "per input, or test_data_set_N/input_K.pb)",
        directory));
  std::sort(folders.begin(), folders.end());
  return folders;
}

} // namespace

Expected<std::vector<std::string>> calibrationFiles(const std::string &directory) {
  Expected<std::vector<fs::path>> folders = sampleFolders(directory);
  CUVIL_TRY(folders.status());
  std::vector<std::string> files;
  std::error_code error;
  for (const fs::path &folder : *folders)
    for (const auto &entry : fs::directory_iterator(folder, error))
      if (entry.is_regular_file(error))
        files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

Expected<std::vector<CalibrationSample>>
readCalibrationSet(const std::string &directory, const std::vector<std::string> &inputNames) {
  Expected<std::vector<fs::path>> folders = sampleFolders(directory);
  CUVIL_TRY(folders.status());
  std::vector<CalibrationSample> samples;
  for (const fs::path &folder : *folders) {
    CalibrationSample sample{folder.filename().string(), {}};
    for (size_t i = 0; i < inputNames.size(); ++i) {
      std::vector<fs::path> choices = {folder / (inputNames[i] + ".npy"),
                                       folder / (inputNames[i] + ".pb"),
                                       folder / fmt::format("input_{}.pb", i)};
      std::error_code error;
      auto found = std::find_if(choices.begin(), choices.end(), [&](const fs::path &path) {
        return fs::is_regular_file(path, error);
      });
      if (found == choices.end())
        return Status::error(
            fmt::format("calibration sample {} has no file for input '{}' ({}.npy, "
                        "{}.pb or input_{}.pb)",
                        folder.string(), inputNames[i], inputNames[i], inputNames[i], i));
      try {
        sample.inputs.push_back(runtime::loadTensorFile(found->string()));
      } catch (const std::exception &problem) {
        return Status::error(
            fmt::format("calibration sample {}: {}", folder.string(), problem.what()));
      }
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

std::vector<const runtime::HostTensor *>
sampleInputs(const CalibrationSample &sample,
             std::initializer_list<const runtime::HostTensor *> extra) {
  std::vector<const runtime::HostTensor *> inputs;
  for (const runtime::HostTensor &tensor : sample.inputs)
    inputs.push_back(&tensor);
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  return inputs;
}

} // namespace cuvil
