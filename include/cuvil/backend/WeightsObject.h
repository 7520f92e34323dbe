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

// Defines the global, 64-byte aligned, read-only symbol `symbol` of
// `totalBytes` bytes in a new ELF object at `path`.
Status writeWeightsObject(const std::string &path, const std::string &symbol, ElfMachine machine,
                          uint64_t totalBytes, const std::vector<WeightsPiece> &pieces);

} // namespace cuvil
