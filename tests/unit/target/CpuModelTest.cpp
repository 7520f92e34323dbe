// The CPU model table, the derived figures the cost rules use, and the host
// probe behind --cpu native.
#include "cuvil/target/CpuModel.h"

#include <gtest/gtest.h>

namespace cuvil {
namespace {

TEST(CpuModel, GenericAvx512RowGivesTheTunedFigures) {
  CpuModel cpu = *cpuModelFor("x86-64-v4");
  EXPECT_EQ(cpu.vectorLanes(), 16);
  EXPECT_EQ(cpu.l1Bytes, 48 << 10);
  EXPECT_EQ(cpu.l2Bytes, 1 << 20);
  EXPECT_DOUBLE_EQ(cpu.peakGflops(), 192.0);
  EXPECT_DOUBLE_EQ(cpu.flopsPerMemoryByte(), 12.0);
}

TEST(CpuModel, UnknownNamesListTheKnownOnes) {
  Expected<CpuModel> cpu = cpuModelFor("pentium4");
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.status().message().find("znver3"), std::string::npos);
  CpuModel generic = genericCpuModel("x86_64-unknown-linux-gnu", 256, "tigerlake");
  EXPECT_EQ(generic.name, "tigerlake");
  EXPECT_EQ(generic.vectorBits, 256);
  CpuModel arm = genericCpuModel("aarch64-unknown-linux-gnu", 128, "cortex-x4");
  EXPECT_EQ(arm.name, "cortex-x4");
  EXPECT_EQ(arm.vectorBits, 128);
  EXPECT_EQ(arm.vectorRegisters, 32);
}

TEST(CpuModel, ParallelSlotsRoundTheCoresUpToAPowerOfTwo) {
  CpuModel cpu;
  EXPECT_EQ(cpu.parallelSlots(), 8); // not known
  cpu.cores = 1;
  EXPECT_EQ(cpu.parallelSlots(), 1);
  cpu.cores = 6;
  EXPECT_EQ(cpu.parallelSlots(), 8);
  cpu.cores = 2;
  EXPECT_EQ(cpu.parallelSlots(), 2);
}

TEST(CpuModel, HostProbeReadsCachesAndCores) {
  CpuModel cpu = probeHostCpuModel(*cpuModelFor("x86-64-v3"));
  EXPECT_GT(cpu.cores, 0);
  EXPECT_GT(cpu.l1Bytes, 0);
  EXPECT_GE(cpu.l2Bytes, cpu.l1Bytes);
  EXPECT_NE(cpu.source.find("probed"), std::string::npos) << cpu.source;
  EXPECT_NE(describeCpuModel(cpu).find("cores: "), std::string::npos);
}

} // namespace
} // namespace cuvil
