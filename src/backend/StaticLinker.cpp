#include "StaticLinker.h"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <llvm/Support/Program.h>
#include <sstream>

namespace cuvil {

std::string toolPath(const char *environment, const char *fallback) {
  const char *override = std::getenv(environment);
  return override && *override ? override : fallback;
}

Status writeEmbedded(std::string_view triple, EmbeddedKind kind, const std::string &path) {
  Expected<std::string_view> bytes = embeddedFile(triple, kind);
  CUVIL_TRY(bytes.status());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes->data(), std::streamsize(bytes->size()));
  if (!out)
    return Status::error(fmt::format("cannot write {}", path));
  return Status::success();
}

Status runTool(const std::vector<std::string> &args, const std::string &workDir,
               const std::string &logName, const std::string &what) {
  std::string log = (std::filesystem::path(workDir) / logName).string();
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string error;
  int code = llvm::sys::ExecuteAndWait(args[0], argRefs, std::nullopt, redirects, 0, 0, &error);
  if (code == 0)
    return Status::success();
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return Status::error(fmt::format("{} failed ({}): {}\n{}", what,
                                   error.empty() ? fmt::format("exit {}", code) : error,
                                   fmt::join(args, " "), text.str()));
}

Status linkExecutable(const TargetConfig &target, const std::vector<std::string> &objects,
                      const std::string &workDir, const std::string &output) {
  std::string runtime = (std::filesystem::path(workDir) / "libcuvil_runtime.a").string();
  CUVIL_TRY(writeEmbedded(target.triple, EmbeddedKind::Runtime, runtime));
  std::vector<std::string> args = {toolPath("CUVIL_CLANG", CUVIL_DEFAULT_CLANG),
                                   "--target=" + target.triple,
                                   "-static",
                                   "-fuse-ld=lld",
                                   "-Wl,--gc-sections",
                                   "-o",
                                   output};
  args.insert(args.end(), objects.begin(), objects.end());
  args.insert(args.end(), {runtime, "-lpthread"});
  return runTool(args, workDir, "link.log", fmt::format("linking {}", output));
}

} // namespace cuvil
