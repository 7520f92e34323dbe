// Drives fake_infer (the runtime linked with FakeModel.cpp) as a process, the
// way users and scripts run infer.bin.
#include "FileIO.h"
#include "NpyFormat.h"
#include "ProtoEncoder.h"
#include "cuvil/runtime/ModelABI.h"

#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

using namespace cuvil::runtime;
namespace tf = cuvil::runtime::testing;

namespace {

struct ProcessResult {
  int exitStatus = -1; // -1 if killed by a signal
  std::string out;
  std::string err;
};

/// Parses a flat JSON object of string and number values, failing the test
/// on anything else (nested values, trailing text).
std::map<std::string, std::string> parseFlatJson(const std::string &text) {
  std::map<std::string, std::string> object;
  size_t pos = 0;
  auto skipSpace = [&] {
    while (pos < text.size() && std::isspace(uint8_t(text[pos])))
      ++pos;
  };
  auto parseString = [&] {
    EXPECT_EQ(text[pos], '"');
    size_t end = text.find('"', ++pos);
    std::string value = text.substr(pos, end - pos);
    pos = end + 1;
    return value;
  };
  skipSpace();
  EXPECT_EQ(text[pos++], '{');
  for (;;) {
    skipSpace();
    std::string key = parseString();
    skipSpace();
    EXPECT_EQ(text[pos++], ':');
    skipSpace();
    if (text[pos] == '"') {
      object[key] = parseString();
    } else {
      char *end;
      std::strtod(text.c_str() + pos, &end);
      EXPECT_NE(end, text.c_str() + pos) << "not a number at " << pos << " in " << text;
      object[key] = text.substr(pos, size_t(end - text.c_str()) - pos);
      pos = size_t(end - text.c_str());
    }
    skipSpace();
    if (text[pos] == '}')
      break;
    EXPECT_EQ(text[pos++], ',') << text;
  }
  ++pos;
  skipSpace();
  EXPECT_EQ(pos, text.size()) << "text after the JSON object: " << text;
  return object;
}

class FakeInferTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/cuvil-fake-infer-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    // x = 0..5, so y = 2x + 1 = 1, 3, ..., 11; ids sum to 10.
    writeNpy("x.npy", CUVIL_DTYPE_F32, {2, 3}, {0, 1, 2, 3, 4, 5});
    tf::ProtoEncoder ids;
    ids.packedVarints(tf::kDims, {4})
        .varintField(tf::kDataType, CUVIL_DTYPE_I64)
        .bytesField(tf::kName, "ids")
        .packedVarints(tf::kInt64Data, {1, 2, 3, 4});
    writeFile(path("ids.pb"), ids.bytes());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string &name) const { return dir_ + "/" + name; }

  void writeNpy(const std::string &name, int32_t dtype, std::vector<int64_t> shape,
                const std::vector<double> &values) {
    HostTensor tensor(dtype, std::move(shape));
    for (size_t i = 0; i < values.size(); ++i) {
      if (dtype == CUVIL_DTYPE_F32)
        reinterpret_cast<float *>(tensor.data())[i] = float(values[i]);
      else if (dtype == CUVIL_DTYPE_F64)
        reinterpret_cast<double *>(tensor.data())[i] = values[i];
      else
        reinterpret_cast<int64_t *>(tensor.data())[i] = int64_t(values[i]);
    }
    writeFile(path(name), encodeNpy(tensor));
  }

  ProcessResult run(std::vector<std::string> args) {
    args.insert(args.begin(), CUVIL_FAKE_INFER_PATH);
    std::vector<char *> argv;
    for (std::string &arg : args)
      argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::string outPath = path(".stdout"), errPath = path(".stderr");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    pid_t pid;
    int spawnError = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ProcessResult result;
    if (spawnError != 0) {
      ADD_FAILURE() << "cannot start " << argv[0] << ": " << std::strerror(spawnError);
      return result;
    }
    int status;
    waitpid(pid, &status, 0);
    result.exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = readFile(outPath);
    result.err = readFile(errPath);
    return result;
  }

  /// Runs with the good inputs plus extra arguments.
  ProcessResult runWithInputs(std::vector<std::string> extra) {
    std::vector<std::string> args = {"--input", "x=" + path("x.npy"), "--input",
                                     "ids=" + path("ids.pb")};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }

  /// Checks that the run failed cleanly with one "error: ..." line containing fragment.
  void expectFailure(const ProcessResult &result, const std::string &fragment) {
    EXPECT_EQ(result.exitStatus, 1) << result.err;
    EXPECT_EQ(result.out, "");
    EXPECT_TRUE(result.err.starts_with("error: ")) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_NE(result.err.find(fragment), std::string::npos)
        << "'" << fragment << "' not in: " << result.err;
  }

  void expectOutputFiles(const std::string &outDir) {
    HostTensor y = parseNpy(readFile(outDir + "/y_0.npy"));
    EXPECT_EQ(y.dtype(), CUVIL_DTYPE_F32);
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
    const float *values = reinterpret_cast<const float *>(y.data());
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(values[i], 2.0f * float(i) + 1) << i;

    HostTensor sum = parseNpy(readFile(outDir + "/ids_sum.npy"));
    EXPECT_EQ(sum.dtype(), CUVIL_DTYPE_I64);
    EXPECT_EQ(sum.shape(), (std::vector<int64_t>{1}));
    EXPECT_EQ(*reinterpret_cast<const int64_t *>(sum.data()), 10);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(outDir),
                            std::filesystem::directory_iterator()),
              2);
  }

  std::string dir_;
};

TEST_F(FakeInferTest, OutputDirWritesSanitisedNpyFiles) {
  ProcessResult result = runWithInputs({"--output-dir", path("out/nested")});
  ASSERT_EQ(result.exitStatus, 0) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "");
  expectOutputFiles(path("out/nested"));
}

TEST_F(FakeInferTest, PrintsSummaryWithoutOutputDir) {
  for (const char *threads : {"1", "2", "3"}) {
    ProcessResult result = runWithInputs({"--threads", threads});
    ASSERT_EQ(result.exitStatus, 0) << result.err;
    EXPECT_EQ(result.out, "y:0: f32 2x3 [1, 3, 5, 7, 9, 11]\nids/sum: i64 1 [10]\n");
  }
}

TEST_F(FakeInferTest, BenchJsonIsOneObject) {
  ProcessResult result = runWithInputs({"--bench", "5", "--json", "--threads", "2"});
  ASSERT_EQ(result.exitStatus, 0) << result.err;
  EXPECT_EQ(result.err, "");
  std::map<std::string, std::string> json = parseFlatJson(result.out);
  for (const char *key : {"median_ms", "p90_ms", "p99_ms", "min_ms", "max_ms", "mean_ms", "runs",
                          "warmup", "threads", "throughput_per_s"})
    EXPECT_TRUE(json.count(key)) << key;
  EXPECT_EQ(json["model_name"], "fake");
  EXPECT_EQ(json["runs"], "5");
  EXPECT_EQ(json["warmup"], "5");
  EXPECT_EQ(json["threads"], "2");
  double minMs = std::stod(json["min_ms"]), median = std::stod(json["median_ms"]);
  EXPECT_GE(minMs, 0);
  EXPECT_LE(minMs, median);
  EXPECT_LE(median, std::stod(json["p90_ms"]));
  EXPECT_LE(std::stod(json["p90_ms"]), std::stod(json["p99_ms"]));
  EXPECT_LE(std::stod(json["p99_ms"]), std::stod(json["max_ms"]));
}

TEST_F(FakeInferTest, BenchWithOutputDirAndNoWarmup) {
  ProcessResult result =
      runWithInputs({"--bench", "3", "--warmup", "0", "--output-dir", path("bench-out")});
  ASSERT_EQ(result.exitStatus, 0) << result.err;
  EXPECT_NE(result.out.find("3 timed after 0 warm-up"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("median"), std::string::npos);
  EXPECT_NE(result.out.find("inferences/s"), std::string::npos);
  expectOutputFiles(path("bench-out"));
}

TEST_F(FakeInferTest, ProfileNamesEveryKernelCall) {
  ProcessResult result = runWithInputs({"--bench", "4", "--profile"});
  ASSERT_EQ(result.exitStatus, 0) << result.err;
  EXPECT_NE(result.out.find("profile: 1 kernel calls per run"), std::string::npos) << result.out;
  // The fake model's call comes without an estimate: no bound.
  EXPECT_NE(result.out.find("100.0%        -        -      0  Affine node 'y' fake_affine"),
            std::string::npos)
      << result.out;
  EXPECT_NE(runWithInputs({"--profile"}).err.find("--profile applies to --bench"),
            std::string::npos);
}

TEST_F(FakeInferTest, Info) {
  ProcessResult text = run({"--info"});
  ASSERT_EQ(text.exitStatus, 0) << text.err;
  for (const char *line :
       {"model:         fake\n", "target:        x86_64-linux\n", "cpu:           generic\n",
        "compiler:      cuvil test fake model\n", "arena bytes:   4096\n", "weights bytes: 0\n",
        "symbols:\n  n in [1, 4], opt 2\n",
        "paths:\n  static: n=2, 1 kernel calls, arena 2048 bytes\n"
        "  generic: any shape in range, 1 kernel calls, arena 4096 bytes\n",
        "  x: f32 nx3\n", "  ids: i64 4\n", "  y:0: f32 nx3 -> y_0.npy\n",
        "  ids/sum: i64 1 -> ids_sum.npy\n"})
    EXPECT_NE(text.out.find(line), std::string::npos) << line << " not in:\n" << text.out;

  ProcessResult json = run({"--info", "--json"});
  ASSERT_EQ(json.exitStatus, 0) << json.err;
  EXPECT_EQ(json.out,
            "{\"model_name\": \"fake\", \"target\": \"x86_64-linux\", \"cpu\": \"generic\", "
            "\"compiler_version\": \"cuvil test fake model\", \"abi_version\": 13, "
            "\"arena_bytes\": 4096, \"weights_bytes\": 0, \"weights_section\": null, "
            "\"isa_variants\": \"avx2\", \"isa_selected\": \"avx2\", "
            "\"symbols\": [{\"name\": \"n\", \"min\": 1, \"opt\": 2, \"max\": 4, "
            "\"from_data\": false}], "
            "\"paths\": [{\"name\": \"static\", \"symbol_values\": [2], \"arena_bytes\": 2048, "
            "\"kernel_calls\": 1}, {\"name\": \"generic\", \"symbol_values\": null, "
            "\"arena_bytes\": 4096, \"kernel_calls\": 1}], "
            "\"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"n\", 3]}, "
            "{\"name\": \"ids\", \"dtype\": \"i64\", \"shape\": [4]}], "
            "\"outputs\": [{\"name\": \"y:0\", \"dtype\": \"f32\", \"shape\": [\"n\", 3], "
            "\"file\": \"y_0.npy\", \"npy_descr\": \"<f4\"}, "
            "{\"name\": \"ids/sum\", \"dtype\": \"i64\", \"shape\": [1], "
            "\"file\": \"ids_sum.npy\", \"npy_descr\": \"<i8\"}]}\n");
}

TEST_F(FakeInferTest, Help) {
  ProcessResult result = run({"--help"});
  EXPECT_EQ(result.exitStatus, 0);
  EXPECT_TRUE(result.out.starts_with("usage: ")) << result.out;
}

TEST_F(FakeInferTest, RejectsWrongShapeAndDType) {
  writeNpy("x32.npy", CUVIL_DTYPE_F32, {3, 2}, {});
  expectFailure(run({"--input", "x=" + path("x32.npy"), "--input", "ids=" + path("ids.pb")}),
                "input 'x': expected f32 nx3, but '" + path("x32.npy") + "' holds f32 3x2");
  writeNpy("x64.npy", CUVIL_DTYPE_F64, {2, 3}, {});
  expectFailure(run({"--input", "x=" + path("x64.npy"), "--input", "ids=" + path("ids.pb")}),
                "input 'x': expected f32 nx3, but '" + path("x64.npy") + "' holds f64 2x3");
  // The TensorProto is the right data for x, but in the wrong slot.
  expectFailure(run({"--input", "x=" + path("ids.pb"), "--input", "ids=" + path("x.npy")}),
                "input 'x': expected f32 nx3, but '" + path("ids.pb") + "' holds i64 4");
}

TEST_F(FakeInferTest, SymbolicDimTakesAnyValueInRange) {
  writeNpy("x3.npy", CUVIL_DTYPE_F32, {3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  ProcessResult result = run({"--input", "x=" + path("x3.npy"), "--input", "ids=" + path("ids.pb"),
                              "--output-dir", path("out3")});
  ASSERT_EQ(result.exitStatus, 0) << result.err;
  HostTensor y = parseNpy(readFile(path("out3/y_0.npy")));
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{3, 3}));
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(reinterpret_cast<const float *>(y.data())[i], 2.0f * float(i) + 1) << i;
  // The path the bench ran is the one its shape selects.
  writeNpy("x2.npy", CUVIL_DTYPE_F32, {2, 3}, {});
  EXPECT_NE(runWithInputs({"--bench", "1"}).out.find("(static path)"), std::string::npos);
  EXPECT_NE(
      run({"--input", "x=" + path("x3.npy"), "--input", "ids=" + path("ids.pb"), "--bench", "1"})
          .out.find("(generic path)"),
      std::string::npos);
}

TEST_F(FakeInferTest, RejectsSymbolOutsideItsRange) {
  writeNpy("x5.npy", CUVIL_DTYPE_F32, {5, 3}, {});
  expectFailure(run({"--input", "x=" + path("x5.npy"), "--input", "ids=" + path("ids.pb")}),
                "input 'x' dim 0 is 5, outside the range [1, 4] of 'n' the model was compiled for");
  writeNpy("x0.npy", CUVIL_DTYPE_F32, {0, 3}, {});
  expectFailure(run({"--input", "x=" + path("x0.npy"), "--input", "ids=" + path("ids.pb")}),
                "input 'x' dim 0 is 0, outside the range [1, 4]");
}

// A check of the data inside the run (an index out of range) stops it: the
// message names the node and the value, and no output is written.
TEST_F(FakeInferTest, RejectsDataTheModelChecks) {
  tf::ProtoEncoder ids;
  ids.packedVarints(tf::kDims, {4})
      .varintField(tf::kDataType, CUVIL_DTYPE_I64)
      .bytesField(tf::kName, "ids")
      .packedVarints(tf::kInt64Data, {1, -3, 3, 4});
  writeFile(path("bad-ids.pb"), ids.bytes());
  std::string outDir = path("out");
  for (const char *bench : {"0", "2"}) {
    std::vector<std::string> args = {"--input",      "x=" + path("x.npy"),
                                     "--input",      "ids=" + path("bad-ids.pb"),
                                     "--output-dir", outDir};
    if (std::string(bench) != "0")
      args.insert(args.end(), {"--bench", bench});
    expectFailure(run(args), "Sum node 'ids/sum': id -3 is negative");
    EXPECT_FALSE(std::filesystem::exists(outDir + "/y_0.npy"));
  }
}

TEST_F(FakeInferTest, RejectsBadInputNames) {
  expectFailure(run({"--input", "ids=" + path("ids.pb")}), "missing input 'x'");
  expectFailure(run({}), "missing inputs 'x', 'ids'");
  expectFailure(runWithInputs({"--input", "z=" + path("x.npy")}),
                "unknown input 'z'; the model's inputs are 'x', 'ids'");
  expectFailure(runWithInputs({"--input", "x=" + path("x.npy")}), "input 'x' given more than once");
  expectFailure(run({"--input", path("x.npy")}), "has no NAME=, but the model has 2 inputs");
}

TEST_F(FakeInferTest, RejectsBadFiles) {
  writeFile(path("garbage.bin"), "this is not a tensor at all\n");
  expectFailure(run({"--input", "x=" + path("garbage.bin"), "--input", "ids=" + path("ids.pb")}),
                "input 'x': '" + path("garbage.bin") + "': invalid TensorProto");
  std::string npy = readFile(path("x.npy"));
  writeFile(path("truncated.npy"), npy.substr(0, npy.size() - 3));
  expectFailure(run({"--input", "x=" + path("truncated.npy"), "--input", "ids=" + path("ids.pb")}),
                "invalid .npy file: shape 2x3 of f32 needs 24 bytes of data but the file has 21");
  writeFile(path("header-only.npy"), npy.substr(0, 20));
  expectFailure(
      run({"--input", "x=" + path("header-only.npy"), "--input", "ids=" + path("ids.pb")}),
      "runs past the end of the file");
  writeFile(path("empty.npy"), "");
  expectFailure(run({"--input", "x=" + path("empty.npy"), "--input", "ids=" + path("ids.pb")}),
                "no data_type");
  expectFailure(run({"--input", "x=" + path("nope.npy"), "--input", "ids=" + path("ids.pb")}),
                "cannot open '" + path("nope.npy") + "': No such file or directory");
  tf::ProtoEncoder external;
  external.packedVarints(tf::kDims, {4})
      .varintField(tf::kDataType, CUVIL_DTYPE_I64)
      .varintField(tf::kDataLocation, 1);
  writeFile(path("external.pb"), external.bytes());
  expectFailure(run({"--input", "x=" + path("x.npy"), "--input", "ids=" + path("external.pb")}),
                "external file");
}

TEST_F(FakeInferTest, RejectsBadUsage) {
  expectFailure(runWithInputs({"--bench", "0"}), "--bench needs a whole number");
  expectFailure(runWithInputs({"--threads", "0"}), "--threads needs a whole number");
  expectFailure(runWithInputs({"--frobnicate"}), "unknown argument '--frobnicate'");
  expectFailure(runWithInputs({"--json"}), "--json applies to --info and --bench");
  writeFile(path("file"), "");
  expectFailure(runWithInputs({"--output-dir", path("file/sub")}), "cannot create directory");
}

} // namespace
