#include "FileIO.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace cuvil::runtime {
namespace {

[[noreturn]] void failErrno(const std::string &what, const std::string &path) {
  throw std::runtime_error("cannot " + what + " '" + path + "': " + std::strerror(errno));
}

/// Closes the descriptor on every path out of readFile/writeFile.
class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  int get() const { return fd_; }
  /// Closes now so that a failing close (e.g. deferred write errors) can be reported.
  int release() { return ::close(std::exchange(fd_, -1)); }

private:
  int fd_;
};

} // namespace

std::string readFile(const std::string &path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    failErrno("open", path);
  // Read until end of file rather than trusting st_size, so that pipes work too.
  std::string contents;
  struct stat info;
  if (::fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode))
    contents.reserve(size_t(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    ssize_t count = ::read(fd.get(), buffer, sizeof buffer);
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      failErrno("read", path);
    if (count == 0)
      return contents;
    contents.append(buffer, size_t(count));
  }
}

void writeFile(const std::string &path, std::string_view bytes) {
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
  if (fd.get() < 0)
    failErrno("create", path);
  while (!bytes.empty()) {
    ssize_t count = ::write(fd.get(), bytes.data(), bytes.size());
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      failErrno("write", path);
    bytes.remove_prefix(size_t(count));
  }
  if (fd.release() != 0)
    failErrno("write", path);
}

void writeFileAtomically(const std::string &path, std::string_view bytes) {
  // The temporary file sits next to the target (rename does not cross file
  // systems) and is named for this process, so concurrent runs do not meet.
  std::string temporary = path + ".tmp." + std::to_string(::getpid());
  try {
    writeFile(temporary, bytes);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temporary.c_str());
    errno = error;
    failErrno("write", path);
  }
}

bool sameFile(const std::string &a, const std::string &b) {
  struct stat first, second;
  return ::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0 &&
         first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

void createDirectories(const std::string &dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    throw std::runtime_error("cannot create directory '" + dir + "': " + error.message());
}

} // namespace cuvil::runtime
