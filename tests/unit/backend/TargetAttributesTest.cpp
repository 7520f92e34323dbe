// Each ISA variant's code runs with that variant's CPU and features, down to
// the kernel helpers the inliner left out-of-line: a <16 x float> argument
// travels in one zmm register under AVX-512 and in two ymm under AVX2, so a
// helper shared by both variants reads garbage in one of them.
#include "ObjectEmitter.h"

#include <gtest/gtest.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/SourceMgr.h>

namespace cuvil {
namespace {

// Two variants' specialisations (tagged as ModuleBuilder tags them) share
// `activate`, which calls `clip`.
constexpr const char *kModule = R"(
define internal <16 x float> @clip(<16 x float> %x) {
  ret <16 x float> %x
}
define internal <16 x float> @activate(<16 x float> %x) {
  %y = call <16 x float> @clip(<16 x float> %x)
  ret <16 x float> %y
}
define internal <16 x float> @spec.avx512(<16 x float> %x) "cuvil-isa"="avx512" {
  %y = call <16 x float> @activate(<16 x float> %x)
  ret <16 x float> %y
}
define internal <16 x float> @spec.avx2(<16 x float> %x) "cuvil-isa"="avx2" {
  %y = call <16 x float> @activate(<16 x float> %x)
  ret <16 x float> %y
}
)";

// The target-cpu of every function `caller` reaches through direct calls.
void expectReachedFunctionsTargetCpu(llvm::Function &caller, const std::string &cpu) {
  EXPECT_EQ(caller.getFnAttribute("target-cpu").getValueAsString(), cpu) << caller.getName().str();
  for (llvm::Instruction &instruction : llvm::instructions(caller))
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(&instruction))
      if (llvm::Function *callee = call->getCalledFunction(); callee && !callee->isDeclaration())
        expectReachedFunctionsTargetCpu(*callee, cpu);
}

TEST(TargetAttributes, EachVariantGetsItsOwnCopyOfTheHelpersItCalls) {
  Expected<TargetConfig> resolved = resolveTarget("x86_64-linux", "");
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  TargetConfig target = variantsFor(*resolved, DotProducts{});
  ASSERT_EQ(target.variants.size(), 2u);
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(kModule, error, context);
  ASSERT_TRUE(module) << error.getMessage().str();

  applyTargetAttributes(*module, target);

  expectReachedFunctionsTargetCpu(*module->getFunction("spec.avx512"), target.variants[0].cpu);
  expectReachedFunctionsTargetCpu(*module->getFunction("spec.avx2"), target.variants[1].cpu);
  // The fallback keeps the originals; the AVX-512 variant calls its copies.
  EXPECT_NE(module->getFunction("activate.avx512"), nullptr);
  EXPECT_NE(module->getFunction("clip.avx512"), nullptr);
  EXPECT_EQ(module->getFunction("activate.avx2"), nullptr);
}

// The VNNI and BF16 variants are compiled only into models with integer or
// bf16 products; their CPU models say which products the kernels form.
TEST(TargetVariants, VnniAndBf16OnlyForTheirProducts) {
  Expected<TargetConfig> resolved = resolveTarget("x86_64-linux", "");
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  TargetConfig integer = variantsFor(*resolved, {.int8 = true});
  ASSERT_EQ(integer.variants.size(), 3u);
  EXPECT_EQ(integer.variants[0].name, "avx512vnni");
  EXPECT_EQ(integer.variants[0].level, 3);
  EXPECT_TRUE(integer.variants[0].cpuModel.int8Dot);
  EXPECT_FALSE(integer.variants[0].cpuModel.bf16Dot);
  EXPECT_FALSE(integer.variants[1].cpuModel.int8Dot);
  TargetConfig bf16 = variantsFor(*resolved, {.bf16 = true});
  ASSERT_EQ(bf16.variants.size(), 3u);
  EXPECT_EQ(bf16.variants[0].name, "avx512bf16");
  EXPECT_EQ(bf16.variants[0].level, 4);
  EXPECT_TRUE(bf16.variants[0].cpuModel.bf16Dot);
  EXPECT_EQ(variantsFor(*resolved, {.int8 = true, .bf16 = true}).variants.size(), 4u);
  TargetConfig plain = variantsFor(*resolved, {});
  ASSERT_EQ(plain.variants.size(), 2u);
  EXPECT_EQ(plain.variants[0].name, "avx512");
  EXPECT_EQ(plain.cpu, "x86-64-v4 + x86-64-v3");
  // One named CPU is one variant, with what it has.
  Expected<TargetConfig> zen4 = resolveTarget("x86_64-linux", "znver4");
  ASSERT_TRUE(zen4.ok());
  EXPECT_EQ(variantsFor(*zen4, {}).variants.size(), 1u);
  EXPECT_TRUE(zen4->variants[0].cpuModel.int8Dot);
  EXPECT_TRUE(zen4->variants[0].cpuModel.bf16Dot);
  EXPECT_EQ(zen4->variants[0].level, 4);
}

TEST(TargetVariants, Aarch64RunsSveWhereTheCpuHasItAndNeonElsewhere) {
  Expected<TargetConfig> resolved = resolveTarget("aarch64-linux", "");
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  EXPECT_EQ(resolved->triple, "aarch64-unknown-linux-gnu");
  ASSERT_EQ(resolved->variants.size(), 2u);
  EXPECT_EQ(resolved->variants[0].name, "sve");
  EXPECT_EQ(resolved->variants[0].level, 1);
  EXPECT_EQ(resolved->variants[1].name, "neon");
  EXPECT_EQ(resolved->variants[1].level, 0);
  for (const IsaVariant &variant : resolved->variants) {
    // 128-bit register tiles, 32 registers, widening integer products.
    EXPECT_EQ(variant.cpuModel.vectorBits, 128);
    EXPECT_EQ(variant.cpuModel.vectorRegisters, 32);
    EXPECT_FALSE(variant.cpuModel.i16PairProducts);
    EXPECT_FALSE(variant.cpuModel.int8Dot);
  }
  // A CPU with SVE needs it (level 1); one without runs NEON code.
  Expected<TargetConfig> a64fx = resolveTarget("aarch64-linux", "a64fx");
  ASSERT_TRUE(a64fx.ok());
  EXPECT_EQ(a64fx->variants[0].level, 1);
  EXPECT_EQ(a64fx->variants[0].cpuModel.fmaLatency, 9); // its row, not the generic one
  Expected<TargetConfig> a72 = resolveTarget("aarch64-linux", "cortex-a72");
  ASSERT_TRUE(a72.ok());
  EXPECT_EQ(a72->variants[0].level, 0);
  // An x86-64 name is no aarch64 CPU, and this machine's CPU cannot run aarch64 code.
  EXPECT_FALSE(resolveTarget("aarch64-linux", "x86-64-v4").ok());
  EXPECT_FALSE(resolveTarget("aarch64-linux", "native").ok());
}

} // namespace
} // namespace cuvil
