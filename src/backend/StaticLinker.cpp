#include "StaticLinker.h"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <llvm/Support/Program.h>
#include <sstream>

// Defined by EmbeddedKernels.S (.incbin of libcuvil_runtime.a).
extern "C" const char cuvil_runtime_x86_64[];
extern "C" const unsigned long long cuvil_runtime_x86_64_size;

namespace cuvil {

Status linkExecutable(const TargetConfig &target, const std::vector<std::string> &objects,
                      const std::string &workDir, const std::string &output) {
  std::string runtime = (std::filesystem::path(workDir) / "libcuvil_runtime.a").string();
  {
    std::ofstream out(runtime, std::ios::binary | std::ios::trunc);
    out.write(cuvil_runtime_x86_64, std::streamsize(cuvil_runtime_x86_64_size));
    if (!out)
      return Status::error(fmt::format("cannot write {}", runtime));
  }
  const char *override = std::getenv("CUVIL_CLANG");
  std::string clang = override && *override ? override : CUVIL_DEFAULT_CLANG;
  std::vector<std::string> args = {clang,          "--target=" + target.triple, "-static",
                                   "-fuse-ld=lld", "-Wl,--gc-sections",         "-o",
                                   output};
  args.insert(args.end(), objects.begin(), objects.end());
  args.insert(args.end(), {runtime, "-lpthread"});

  std::string log = (std::filesystem::path(workDir) / "link.log").string();
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string error;
  int code = llvm::sys::ExecuteAndWait(clang, argRefs, std::nullopt, redirects, 0, 0, &error);
  if (code != 0) {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    return Status::error(fmt::format("linking {} failed ({}): {}\n{}", output,
                                     error.empty() ? fmt::format("exit {}", code) : error,
                                     fmt::join(args, " "), text.str()));
  }
  return Status::success();
}

} // namespace cuvil
