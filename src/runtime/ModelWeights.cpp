#include "ModelWeights.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace cuvil::runtime {
namespace {

constexpr uint64_t kWeightsAlign = 64;

// Reads exactly `bytes` at `offset`; false on a short read or an error.
bool readAt(int fd, void *buffer, uint64_t bytes, uint64_t offset) {
  auto *out = static_cast<char *>(buffer);
  while (bytes) {
    ssize_t got = pread(fd, out, bytes, off_t(offset));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    out += got;
    bytes -= uint64_t(got);
    offset += uint64_t(got);
  }
  return true;
}

// The section headers' index of `name`, or -1.
int64_t findSection(int fd, const Elf64_Ehdr &header, uint64_t fileBytes, const char *name,
                    Elf64_Shdr &found, char *message, size_t size) {
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shstrndx >= header.e_shnum ||
      header.e_shoff > fileBytes ||
      uint64_t(header.e_shnum) * sizeof(Elf64_Shdr) > fileBytes - header.e_shoff) {
    std::snprintf(message, size, "its section headers are not where its ELF header says");
    return -1;
  }
  Elf64_Shdr names;
  if (!readAt(fd, &names, sizeof names,
              header.e_shoff + uint64_t(header.e_shstrndx) * sizeof(Elf64_Shdr)) ||
      names.sh_offset > fileBytes || names.sh_size > fileBytes - names.sh_offset) {
    std::snprintf(message, size, "its section names are not in the file");
    return -1;
  }
  const size_t nameBytes = std::strlen(name) + 1;
  char candidate[256];
  if (nameBytes > sizeof candidate) {
    std::snprintf(message, size, "the section name '%s' is too long", name);
    return -1;
  }
  for (uint16_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    if (!readAt(fd, &section, sizeof section, header.e_shoff + uint64_t(i) * sizeof section))
      break;
    if (section.sh_name >= names.sh_size || names.sh_size - section.sh_name < nameBytes)
      continue;
    if (!readAt(fd, candidate, nameBytes, names.sh_offset + section.sh_name) ||
        std::memcmp(candidate, name, nameBytes) != 0)
      continue;
    found = section;
    return i;
  }
  std::snprintf(message, size, "it has no section '%s' (removed after the compile?)", name);
  return -1;
}

// One mapping per model, made by the first instance and kept: instances
// of one model share their weights, as the loaded image's are shared.
struct MappedModel {
  const cuvil_model_info *model;
  const void *weights;
};
pthread_mutex_t mappedLock = PTHREAD_MUTEX_INITIALIZER;
MappedModel *mappedModels = nullptr;
size_t numMapped = 0;

// Opens the file holding `address`, whose path goes to `path`: the
// mapping's own link where this process may follow it (it survives the file
// being deleted or replaced), else the path /proc/self/maps names, if it is
// still the same file.
int openFileHolding(const void *address, char *path, size_t pathSize, char *message, size_t size) {
  FILE *maps = std::fopen("/proc/self/maps", "re");
  if (!maps) {
    std::snprintf(message, size, "cannot read /proc/self/maps to find the model's file: %s",
                  std::strerror(errno));
    return -1;
  }
  char *line = nullptr;
  size_t capacity = 0;
  int fd = -1;
  bool found = false;
  const auto where = uintptr_t(address);
  while (!found && getline(&line, &capacity, maps) > 0) {
    uintptr_t start = 0, end = 0;
    unsigned major = 0, minor = 0;
    unsigned long long inode = 0;
    int pathStart = 0;
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %*x %x:%x %llu %n", &start, &end, &major,
                    &minor, &inode, &pathStart) < 5 ||
        where < start || where >= end)
      continue;
    found = true;
    line[pathStart + std::strcspn(line + pathStart, "\n")] = '\0';
    std::snprintf(path, pathSize, "%s", line + pathStart);
    char link[64];
    std::snprintf(link, sizeof link, "/proc/self/map_files/%" PRIxPTR "-%" PRIxPTR, start, end);
    fd = open(link, O_RDONLY | O_CLOEXEC);
    if (fd >= 0)
      break;
    struct stat status;
    if (path[0] != '/') {
      std::snprintf(message, size, "the model is not in a file (mapping '%s')", path);
    } else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
      std::snprintf(message, size, "cannot open it: %s", std::strerror(errno));
    } else if (fstat(fd, &status) != 0 || status.st_ino != inode ||
               ::major(status.st_dev) != major || ::minor(status.st_dev) != minor) {
      std::snprintf(message, size, "it is no longer the file this program was loaded from");
      close(fd);
      fd = -1;
    }
  }
  std::free(line);
  std::fclose(maps);
  if (!found)
    std::snprintf(message, size, "no mapping in /proc/self/maps holds the model");
  return fd;
}

} // namespace

const void *mapElfSection(int fd, const char *section, uint64_t bytes, char *message, size_t size) {
  struct stat status;
  Elf64_Ehdr header;
  if (fstat(fd, &status) != 0 || status.st_size < off_t(sizeof header) ||
      !readAt(fd, &header, sizeof header, 0) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB) {
    std::snprintf(message, size, "it is not a 64-bit little-endian ELF file");
    return nullptr;
  }
  const auto fileBytes = uint64_t(status.st_size);
  Elf64_Shdr found;
  if (findSection(fd, header, fileBytes, section, found, message, size) < 0)
    return nullptr;
  if (found.sh_type != SHT_PROGBITS || found.sh_size != bytes || found.sh_offset > fileBytes ||
      bytes > fileBytes - found.sh_offset) {
    std::snprintf(message, size,
                  "its section '%s' holds %" PRIu64 " bytes at %" PRIu64 " of a %" PRIu64
                  "-byte file, not the model's %" PRIu64 " bytes of weights",
                  section, uint64_t(found.sh_size), uint64_t(found.sh_offset), fileBytes, bytes);
    return nullptr;
  }
  if (bytes == 0) {
    alignas(kWeightsAlign) static const char kNoWeights[kWeightsAlign] = {};
    return kNoWeights;
  }
  const auto page = uint64_t(sysconf(_SC_PAGESIZE));
  if (found.sh_offset % page == 0) {
    void *mapped = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, off_t(found.sh_offset));
    if (mapped == MAP_FAILED) {
      std::snprintf(message, size, "cannot map %" PRIu64 " bytes of weights: %s", bytes,
                    std::strerror(errno));
      return nullptr;
    }
    return mapped;
  }
  // A linker that did not keep the section page aligned: read it instead.
  void *copy = nullptr;
  if (posix_memalign(&copy, kWeightsAlign, bytes) != 0) {
    std::snprintf(message, size, "cannot allocate %" PRIu64 " bytes for the weights", bytes);
    return nullptr;
  }
  if (!readAt(fd, copy, bytes, found.sh_offset)) {
    std::snprintf(message, size, "cannot read %" PRIu64 " bytes of weights", bytes);
    std::free(copy);
    return nullptr;
  }
  return copy;
}

const void *modelWeights(const cuvil_model_info &model, char *message, size_t size) {
  if (!model.weights_section)
    return model.weights;
  pthread_mutex_lock(&mappedLock);
  const void *weights = nullptr;
  for (size_t i = 0; i < numMapped && !weights; ++i)
    if (mappedModels[i].model == &model)
      weights = mappedModels[i].weights;
  if (!weights) {
    char reason[256] = "", path[512] = "the model's file";
    int fd = openFileHolding(&model, path, sizeof path, reason, sizeof reason);
    if (fd >= 0) {
      weights =
          mapElfSection(fd, model.weights_section, model.weights_bytes, reason, sizeof reason);
      close(fd);
    }
    auto *grown = weights ? static_cast<MappedModel *>(
                                std::realloc(mappedModels, (numMapped + 1) * sizeof(MappedModel)))
                          : nullptr;
    if (grown) {
      mappedModels = grown;
      mappedModels[numMapped++] = {&model, weights};
    } else if (weights) {
      std::snprintf(reason, sizeof reason, "out of memory");
      weights = nullptr;
    }
    if (!weights)
      std::snprintf(message, size,
                    "cannot map the model's %" PRIu64 " bytes of weights from %s: %s",
                    model.weights_bytes, path, reason);
  }
  pthread_mutex_unlock(&mappedLock);
  return weights;
}

} // namespace cuvil::runtime
