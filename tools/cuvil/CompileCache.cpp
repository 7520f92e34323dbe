#include "CompileCache.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <link.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/BLAKE3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cuvil {
namespace {

namespace fs = std::filesystem;

// What identifies this compiler's code: the GNU build id the linker put in
// the executable (a hash of its contents), else the executable's bytes.
struct BuildId {
  std::vector<uint8_t> bytes;
};

int findBuildId(dl_phdr_info *info, size_t, void *data) {
  auto *id = static_cast<BuildId *>(data);
  if (info->dlpi_name && info->dlpi_name[0]) // the main program has no name
    return 0;
  for (int h = 0; h < info->dlpi_phnum; ++h) {
    const ElfW(Phdr) &header = info->dlpi_phdr[h];
    if (header.p_type != PT_NOTE)
      continue;
    auto *note = reinterpret_cast<const uint8_t *>(info->dlpi_addr + header.p_vaddr);
    const uint8_t *end = note + header.p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      auto *entry = reinterpret_cast<const ElfW(Nhdr) *>(note);
      const uint8_t *name = note + sizeof(ElfW(Nhdr));
      const uint8_t *desc = name + ((entry->n_namesz + 3) & ~3u);
      if (entry->n_type == NT_GNU_BUILD_ID && entry->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0 && desc + entry->n_descsz <= end) {
        id->bytes.assign(desc, desc + entry->n_descsz);
        return 1;
      }
      note = desc + ((entry->n_descsz + 3) & ~3u);
    }
  }
  return 0;
}

Status hashFile(llvm::BLAKE3 &hasher, const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::vector<uint8_t> buffer(1 << 20);
  ssize_t got;
  uint64_t total = 0;
  while ((got = ::read(fd, buffer.data(), buffer.size())) > 0) {
    hasher.update(llvm::ArrayRef<uint8_t>(buffer.data(), size_t(got)));
    total += uint64_t(got);
  }
  int error = errno;
  ::close(fd);
  if (got < 0)
    return Status::error(fmt::format("cannot read {}: {}", path, std::strerror(error)));
  std::string size = fmt::format("|{} bytes|", total);
  hasher.update(size);
  return Status::success();
}

const BuildId &compilerBuildId() {
  static const BuildId id = [] {
    BuildId found;
    dl_iterate_phdr(findBuildId, &found);
    if (found.bytes.empty()) {
      llvm::BLAKE3 hasher;
      if (hashFile(hasher, "/proc/self/exe").ok()) {
        auto digest = hasher.final();
        found.bytes.assign(digest.begin(), digest.end());
      }
    }
    return found;
  }();
  return id;
}

// Copies `from` to `to` through a temporary beside `to`, so a reader of `to`
// sees the old file or the whole new one (permissions kept).
Status copyAtomically(const fs::path &from, const fs::path &to) {
  fs::path temporary = to;
  temporary += fmt::format(".tmp.{}", ::getpid());
  std::error_code error;
  fs::copy_file(from, temporary, fs::copy_options::overwrite_existing, error);
  if (!error)
    fs::rename(temporary, to, error);
  if (error) {
    fs::remove(temporary);
    return Status::error(
        fmt::format("cannot copy {} to {}: {}", from.string(), to.string(), error.message()));
  }
  return Status::success();
}

struct Entry {
  std::string key;
  uint64_t bytes = 0;
  fs::file_time_type used;
};

std::vector<Entry> listEntries(const fs::path &entries) {
  std::vector<Entry> list;
  std::error_code error;
  for (const auto &dir : fs::directory_iterator(entries, error)) {
    Entry entry{dir.path().filename().string(), 0, dir.last_write_time(error)};
    for (const auto &file : fs::directory_iterator(dir.path(), error))
      entry.bytes += file.is_regular_file(error) ? file.file_size(error) : 0;
    list.push_back(std::move(entry));
  }
  return list;
}

} // namespace

std::string CompileCache::defaultDirectory() {
  if (const char *off = std::getenv("CUVIL_NO_CACHE"); off && *off)
    return "";
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (fs::path(xdg) / "cuvil").string();
  if (const char *home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "cuvil").string();
  return "";
}

CompileCache::CompileCache(std::string directory, uint64_t maxBytes)
    : directory_(std::move(directory)), maxBytes_(maxBytes) {}

Expected<std::string> CompileCache::key(const std::vector<std::string> &arguments,
                                        const std::vector<std::string> &files) {
  llvm::BLAKE3 hasher;
  const BuildId &build = compilerBuildId();
  if (build.bytes.empty())
    return Status::error("cannot identify this compiler's build (no build id, no /proc/self/exe)");
  hasher.update(llvm::ArrayRef<uint8_t>(build.bytes));
  for (const std::string &argument : arguments) {
    hasher.update(fmt::format("|arg {}|", argument.size()));
    hasher.update(argument);
  }
  for (const std::string &file : files) {
    hasher.update("|file|");
    CUVIL_TRY(hashFile(hasher, file));
  }
  auto digest = hasher.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

CompileCache::Lock &CompileCache::Lock::operator=(Lock &&other) noexcept {
  std::swap(fd_, other.fd_);
  return *this;
}

CompileCache::Lock::~Lock() {
  if (fd_ >= 0)
    ::close(fd_); // releases the flock
}

Expected<CompileCache::Lock> CompileCache::lock(const std::string &key) {
  std::error_code error;
  for (const char *part : {"entries", "locks", "tmp"})
    fs::create_directories(fs::path(directory_) / part, error);
  fs::path path = fs::path(directory_) / "locks" / key;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::error(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) {
      int saved = errno;
      ::close(fd);
      return Status::error(fmt::format("cannot lock {}: {}", path.string(), std::strerror(saved)));
    }
  return Lock(fd);
}

Expected<bool> CompileCache::restore(const std::string &key, const std::vector<CachedFile> &files) {
  fs::path entry = fs::path(directory_) / "entries" / key;
  std::error_code error;
  if (!fs::is_directory(entry, error))
    return false;
  for (const CachedFile &file : files)
    if (!fs::is_regular_file(entry / file.entryName, error))
      return false;
  for (const CachedFile &file : files)
    CUVIL_TRY(copyAtomically(entry / file.entryName, file.outputPath));
  ::utimensat(AT_FDCWD, entry.c_str(), nullptr, 0); // used now
  return true;
}

Status CompileCache::store(const std::string &key, const std::vector<CachedFile> &files) {
  fs::path root(directory_);
  fs::path temporary = root / "tmp" / fmt::format("{}.{}", key, ::getpid());
  std::error_code error;
  fs::remove_all(temporary, error);
  fs::create_directories(temporary, error);
  for (const CachedFile &file : files)
    if (!error)
      fs::copy_file(file.outputPath, temporary / file.entryName, error);
  fs::path entry = root / "entries" / key;
  if (!error) {
    fs::remove_all(entry, error); // a damaged entry restore would not take
    fs::rename(temporary, entry, error);
  }
  if (error) {
    fs::remove_all(temporary);
    return Status::error(
        fmt::format("cannot store the outputs in {}: {}", directory_, error.message()));
  }
  prune();
  return Status::success();
}

CacheStats CompileCache::stats() const {
  CacheStats stats;
  for (const Entry &entry : listEntries(fs::path(directory_) / "entries")) {
    ++stats.entries;
    stats.bytes += entry.bytes;
  }
  return stats;
}

CacheStats CompileCache::prune() {
  fs::path root(directory_);
  std::error_code error;
  // Temporaries of builders that died an hour ago or more.
  auto stale = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto &item : fs::directory_iterator(root / "tmp", error))
    if (item.last_write_time(error) < stale)
      fs::remove_all(item.path(), error);

  std::vector<Entry> entries = listEntries(root / "entries");
  uint64_t total = 0;
  for (const Entry &entry : entries)
    total += entry.bytes;
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.used < b.used; });
  for (const Entry &entry : entries) {
    if (total <= maxBytes_)
      break;
    // Never under a process that holds the key (restoring or filling it).
    fs::path lockPath = root / "locks" / entry.key;
    int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      fs::path doomed = root / "tmp" / fmt::format("evicted.{}.{}", entry.key, ::getpid());
      fs::rename(root / "entries" / entry.key, doomed, error);
      if (!error) {
        fs::remove_all(doomed, error);
        total -= entry.bytes;
      }
    }
    ::close(fd);
  }
  return stats();
}

Status CompileCache::clear() {
  std::error_code error;
  for (const char *part : {"entries", "tmp"})
    fs::remove_all(fs::path(directory_) / part, error);
  if (error)
    return Status::error(fmt::format("cannot clear {}: {}", directory_, error.message()));
  return Status::success();
}

Expected<uint64_t> parseByteSize(const std::string &text) {
  static const std::pair<char, unsigned> kUnits[] = {{'K', 10}, {'M', 20}, {'G', 30}, {'T', 40}};
  std::string digits = text;
  unsigned shift = 0;
  for (auto [unit, bits] : kUnits)
    if (!digits.empty() && std::toupper(static_cast<unsigned char>(digits.back())) == unit) {
      digits.pop_back();
      shift = bits;
    }
  char *end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(digits.c_str(), &end, 10);
  if (digits.empty() || *end || errno || digits[0] == '-' || value > (UINT64_MAX >> shift))
    return Status::error(fmt::format("'{}' is not a size (e.g. 5G, 500M, 1048576)", text));
  return uint64_t(value) << shift;
}

} // namespace cuvil
