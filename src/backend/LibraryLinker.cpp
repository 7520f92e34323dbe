#include "LibraryLinker.h"

#include "StaticLinker.h"

#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <regex>
#include <set>
#include <string_view>

// Defined by EmbeddedKernels.S: ModelApi.h.
extern "C" const char cuvil_model_api_header[];
extern "C" const unsigned long long cuvil_model_api_header_size;

namespace cuvil {
namespace {

constexpr std::string_view kTemplatePrefix = "cuvil_model_";
constexpr std::string_view kTemplateGuard = "CUVIL_MODEL_API_H";

std::string_view apiTemplate() {
  return std::string_view(cuvil_model_api_header, cuvil_model_api_header_size);
}

// The API's functions, as the template declares them: `cuvil_model_run(`.
std::set<std::string> apiFunctions() {
  std::set<std::string> names;
  std::string text(apiTemplate());
  std::regex declaration(std::string(kTemplatePrefix) + "([a-z_]+)\\(");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), declaration);
       it != std::sregex_iterator(); ++it)
    names.insert((*it)[1].str());
  return names;
}

bool isCIdentifier(const std::string &name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

} // namespace

std::string LibraryOutput::libraryPath() const {
  return (std::filesystem::path(directory) / fmt::format("lib{}.{}", name, shared ? "so" : "a"))
      .string();
}

std::string LibraryOutput::headerPath() const {
  return (std::filesystem::path(directory) / (name + ".h")).string();
}

Expected<LibraryOutput> parseLibraryOutput(const std::string &output, bool shared) {
  std::filesystem::path path(output);
  LibraryOutput result;
  result.directory = path.parent_path().string();
  result.name = path.filename().string();
  result.shared = shared;
  if (!isCIdentifier(result.name))
    return Status::error(fmt::format(
        "--output {}: a library is named DIR/NAME, NAME a C identifier (letters, digits, '_'; "
        "it prefixes the API: NAME_create, NAME_run), not '{}'",
        output, result.name));
  if (!result.directory.empty() && !std::filesystem::is_directory(result.directory))
    return Status::error(fmt::format("--output {}: no directory {}", output, result.directory));
  return result;
}

Status linkLibrary(const TargetConfig &target, const std::vector<std::string> &objects,
                   const std::string &workDir, const LibraryOutput &output,
                   const std::string &path) {
  std::filesystem::path dir(workDir);
  std::string runtime = (dir / "libcuvil_embed.a").string();
  CUVIL_TRY(writeEmbedded(target.triple, EmbeddedKind::Embed, runtime));
  std::string clang = toolPath("CUVIL_CLANG", CUVIL_DEFAULT_CLANG);

  // One relocatable object: the model and the whole library runtime.
  std::string combined = (dir / "combined.o").string();
  std::vector<std::string> args = {
      clang, "--target=" + target.triple, "-r", "-nostdlib", "-fuse-ld=lld", "-o", combined};
  args.insert(args.end(), objects.begin(), objects.end());
  args.insert(args.end(), {"-Wl,--whole-archive", runtime, "-Wl,--no-whole-archive"});
  CUVIL_TRY(runTool(args, workDir, "link.log", "linking the model with the library runtime"));

  // Only the API stays global, named after the model: two models' objects
  // (each with its runtime) link into one program without a clash.
  std::string object = (dir / (output.name + ".o")).string();
  args = {toolPath("CUVIL_OBJCOPY", CUVIL_DEFAULT_OBJCOPY)};
  for (const std::string &function : apiFunctions()) {
    std::string from = fmt::format("{}{}", kTemplatePrefix, function);
    std::string to = fmt::format("{}_{}", output.name, function);
    args.insert(args.end(), {"--redefine-sym", from + "=" + to, "--keep-global-symbol", from,
                             "--keep-global-symbol", to});
  }
  args.insert(args.end(), {combined, object});
  CUVIL_TRY(runTool(args, workDir, "objcopy.log", "hiding the library runtime's symbols"));

  if (!output.shared)
    return runTool({toolPath("CUVIL_AR", CUVIL_DEFAULT_AR), "rcsD", path, object}, workDir,
                   "ar.log", fmt::format("archiving {}", path));
  // libc, libm and libpthread only: no C++ runtime library, libgcc linked in.
  return runTool({clang, "--target=" + target.triple, "-shared", "-fuse-ld=lld", "-nostdlib++",
                  "-static-libgcc", "-Wl,--gc-sections", "-Wl,-z,noexecstack", "-Wl,-z,relro",
                  "-Wl,-z,now", fmt::format("-Wl,-soname,lib{}.so", output.name), "-o", path,
                  object, "-lpthread", "-lm"},
                 workDir, "link.log", fmt::format("linking {}", path));
}

std::string libraryHeader(const LibraryOutput &output,
                          const std::vector<std::string> &description) {
  std::string text(apiTemplate());
  // The template's opening comment explains the template; this one, the model.
  size_t commentEnd = text.find("*/");
  std::string comment = fmt::format(
      "/* The C API of the model library lib{0}.{1}, generated by cuvil: do not edit.\n",
      output.name, output.shared ? "so" : "a");
  for (const std::string &line : description)
    comment += fmt::format(" * {}\n", line);
  comment += " */";
  text = comment + text.substr(commentEnd + 2);
  std::string guard = output.name + "_H";
  for (char &c : guard)
    c = char(std::toupper(static_cast<unsigned char>(c)));
  for (size_t at; (at = text.find(kTemplateGuard)) != std::string::npos;)
    text.replace(at, kTemplateGuard.size(), guard);
  std::string prefix = output.name + "_";
  for (size_t at = 0; (at = text.find(kTemplatePrefix, at)) != std::string::npos;
       at += prefix.size())
    text.replace(at, kTemplatePrefix.size(), prefix);
  return text;
}

} // namespace cuvil
