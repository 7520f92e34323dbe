#include "CommandLine.h"

#include <gtest/gtest.h>
#include <initializer_list>

using namespace cuvil::runtime;

namespace {

Options parse(std::initializer_list<const char *> args) {
  std::vector<const char *> argv = {"infer.bin"};
  argv.insert(argv.end(), args);
  return parseCommandLine(int(argv.size()), argv.data());
}

void expectError(std::initializer_list<const char *> args, const std::string &fragment) {
  try {
    parse(args);
    FAIL() << "expected an error containing '" << fragment << "'";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(CommandLine, ParsesEveryOption) {
  Options options = parse({"--input", "x=a.npy", "--input=ids=b=c.pb", "--output-dir", "out",
                           "--bench", "10", "--warmup=0", "--threads", "3", "--json"});
  ASSERT_EQ(options.inputs.size(), 2u);
  EXPECT_EQ(options.inputs[0].name, "x");
  EXPECT_EQ(options.inputs[0].path, "a.npy");
  EXPECT_EQ(options.inputs[1].name, "ids");
  EXPECT_EQ(options.inputs[1].path, "b=c.pb");
  EXPECT_EQ(options.outputDir, "out");
  EXPECT_EQ(options.benchRuns, 10u);
  EXPECT_EQ(options.warmupRuns, 0u);
  EXPECT_EQ(options.threads, 3u);
  EXPECT_TRUE(options.json);
  EXPECT_FALSE(options.info);
}

TEST(CommandLine, Defaults) {
  Options options = parse({"--input", "only.npy"});
  ASSERT_EQ(options.inputs.size(), 1u);
  EXPECT_EQ(options.inputs[0].name, "");
  EXPECT_EQ(options.inputs[0].path, "only.npy");
  EXPECT_FALSE(options.benchRuns);
  EXPECT_EQ(options.warmupRuns, 5u);
  EXPECT_FALSE(options.threads);
  EXPECT_FALSE(options.outputDir);
}

TEST(CommandLine, HelpAndInfo) {
  EXPECT_TRUE(parse({"--help", "--bogus"}).help);
  EXPECT_TRUE(parse({"-h"}).help);
  Options info = parse({"--info", "--json"});
  EXPECT_TRUE(info.info);
  EXPECT_TRUE(info.json);
  EXPECT_NE(usage("infer.bin").find("--output-dir DIR"), std::string::npos);
}

TEST(CommandLine, RejectsBadUsage) {
  expectError({"--bogus"}, "unknown argument '--bogus'");
  expectError({"model.npy"}, "unknown argument 'model.npy'");
  expectError({"--bench"}, "--bench needs a value");
  expectError({"--bench", "0"}, "--bench needs a whole number from 1");
  expectError({"--bench", "-3"}, "--bench needs a whole number");
  expectError({"--bench", "5x"}, "got '5x'");
  expectError({"--bench", "99999999999999999999999"}, "--bench needs a whole number");
  expectError({"--threads", "0"}, "--threads needs a whole number from 1");
  expectError({"--threads", "100000"}, "--threads needs a whole number from 1 to 4096");
  expectError({"--bench", "1", "--bench", "2"}, "--bench given more than once");
  expectError({"--output-dir="}, "--output-dir needs a non-empty value");
  expectError({"--input", "=a.npy"}, "NAME=FILE or FILE");
  expectError({"--input", "x="}, "NAME=FILE or FILE");
  expectError({"--warmup", "2"}, "--warmup only applies to --bench");
  expectError({"--json"}, "--json applies to --info and --bench");
  expectError({"--info", "--input", "x=a.npy"}, "--info only describes the model");
}

} // namespace
