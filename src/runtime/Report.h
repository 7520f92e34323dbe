#ifndef CUVIL_RUNTIME_REPORT_H
#define CUVIL_RUNTIME_REPORT_H

#include "BenchStats.h"
#include "cuvil/runtime/ModelABI.h"

#include <cstdint>
#include <cstdio>

namespace cuvil::runtime {

/// --info: the model's build facts and the name, dtype and shape of every
/// input and output, as text or as one JSON object.
void printModelInfo(std::FILE *out, const cuvil_model_info &model, bool json);

/// --bench results of runs on `path`, as text or as one JSON object.
void printBenchReport(std::FILE *out, const cuvil_model_info &model, const cuvil_path_info &path,
                      const BenchStats &stats, uint64_t warmupRuns, unsigned threads, bool json);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_REPORT_H
