// Writes the model's weights as a relocatable ELF object holding one
// read-only data symbol. Weights never pass through LLVM IR: a model of
// hundreds of megabytes costs a file write, not an optimiser run.
#pragma once

#include "cuvil/support/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cuvil {

enum class ElfMachine : uint16_t { X86_64 = 62, AArch64 = 183 };

// One tensor's bytes at its offset in the weights blob; gaps are zero.
struct WeightsPiece {
  uint64_t offset;
  std::span<const uint8_t> bytes;
};

// The code addresses loaded data within +-2 GiB (the small code model), so
// weights from this size on stay out of the loaded image.
constexpr uint64_t kLoadedWeightsLimit = (uint64_t(1) << 31) - (uint64_t(64) << 20);

// Where the weights go: `symbol`, read-only data loaded with the program, or
// (`mappedSection` not empty) a section of that name that is not loaded:
// the runtime maps it from the file (cuvil_model_info.weights_section).
struct WeightsPlacement {
  std::string symbol;
  std::string mappedSection;
};

// Writes the `totalBytes` of weights, 64-byte aligned (page aligned when
// mapped), placed as `placement` says, as a new ELF object at `path`.
Status writeWeightsObject(const std::string &path, const WeightsPlacement &placement,
                          ElfMachine machine, uint64_t totalBytes,
                          const std::vector<WeightsPiece> &pieces);

} // namespace cuvil
