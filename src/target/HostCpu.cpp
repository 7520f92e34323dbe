// probeHostCpuModel: the host's caches from sysfs and its cores from the
// affinity mask (Linux). Figures the host does not report stay the base
// model's.
#include "cuvil/target/CpuModel.h"

#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <sched.h>
#include <string>

namespace cuvil {
namespace {

std::string readLine(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "48K", "1024K", "32M" -> bytes; 0 when unreadable.
int64_t parseCacheSize(const std::string &text) {
  char *end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || value <= 0)
    return 0;
  switch (*end) {
  case 'K':
    return value << 10;
  case 'M':
    return value << 20;
  case 'G':
    return value << 30;
  default:
    return value;
  }
}

} // namespace

CpuModel probeHostCpuModel(CpuModel base) {
  CpuModel cpu = std::move(base);
  std::vector<std::string> probed;
  for (int index = 0; index < 8; ++index) {
    std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
    std::string level = readLine(dir + "level"), type = readLine(dir + "type");
    int64_t bytes = parseCacheSize(readLine(dir + "size"));
    if (level.empty() || bytes == 0 || type == "Instruction")
      continue;
    if (level == "1") {
      cpu.l1Bytes = bytes;
      probed.push_back("L1");
    } else if (level == "2") {
      cpu.l2Bytes = bytes;
      probed.push_back("L2");
    } else if (level == "3") {
      cpu.l3Bytes = bytes;
      probed.push_back("L3");
    }
  }
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0 && CPU_COUNT(&mask) > 0) {
    cpu.cores = CPU_COUNT(&mask);
    probed.push_back("cores");
  }
  cpu.source = probed.empty() ? cpu.source
                              : fmt::format("{}; {} probed from this host", cpu.source,
                                            fmt::join(probed, ", "));
  return cpu;
}

} // namespace cuvil
