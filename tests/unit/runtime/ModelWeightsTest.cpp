// mapElfSection on ELF files built here byte by byte: the weights section is
// found by name and mapped (or copied when not page aligned), and every
// offset or size that points outside the file is refused with a message.
#include "ModelWeights.h"

#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace cuvil::runtime {
namespace {

constexpr char kSection[] = ".cuvil_weights";

struct ElfImage {
  std::vector<uint8_t> bytes;
  uint64_t dataOffset = 0;
  uint64_t dataBytes = 0;
};

// header | data at `dataOffset` | names | section headers (null, the
// weights section, the names).
ElfImage makeElf(uint64_t dataOffset, uint64_t dataBytes, const char *name = kSection) {
  ElfImage image;
  image.dataOffset = dataOffset;
  image.dataBytes = dataBytes;
  std::string names = std::string("\0", 1) + name + std::string("\0.shstrtab\0", 11);
  const uint64_t namesOffset = dataOffset + dataBytes;
  const uint64_t headersOffset = (namesOffset + names.size() + 7) / 8 * 8;
  image.bytes.assign(headersOffset + 3 * sizeof(Elf64_Shdr), 0);
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_type = ET_EXEC;
  header.e_shoff = headersOffset;
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 3;
  header.e_shstrndx = 2;
  std::memcpy(image.bytes.data(), &header, sizeof header);
  for (uint64_t i = 0; i < dataBytes; ++i)
    image.bytes[dataOffset + i] = uint8_t(i * 7 + 3);
  std::memcpy(image.bytes.data() + namesOffset, names.data(), names.size());
  Elf64_Shdr sections[3] = {};
  sections[1].sh_name = 1;
  sections[1].sh_type = SHT_PROGBITS;
  sections[1].sh_offset = dataOffset;
  sections[1].sh_size = dataBytes;
  sections[2].sh_name = uint32_t(std::strlen(name) + 2);
  sections[2].sh_type = SHT_STRTAB;
  sections[2].sh_offset = namesOffset;
  sections[2].sh_size = names.size();
  std::memcpy(image.bytes.data() + headersOffset, sections, sizeof sections);
  return image;
}

// The file's descriptor, the file itself already unlinked.
int fileOf(const std::vector<uint8_t> &bytes) {
  char path[] = "/tmp/cuvil_weights_test_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  unlink(path);
  EXPECT_EQ(write(fd, bytes.data(), bytes.size()), ssize_t(bytes.size()));
  return fd;
}

std::string mapError(const std::vector<uint8_t> &bytes, uint64_t dataBytes,
                     const char *name = kSection) {
  int fd = fileOf(bytes);
  char message[512] = "";
  const void *weights = mapElfSection(fd, name, dataBytes, message, sizeof message);
  close(fd);
  EXPECT_EQ(weights, nullptr);
  return message;
}

void expectWeights(const ElfImage &image) {
  int fd = fileOf(image.bytes);
  char message[512] = "";
  const void *weights = mapElfSection(fd, kSection, image.dataBytes, message, sizeof message);
  close(fd);
  ASSERT_NE(weights, nullptr) << message;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(weights) % 64, 0u);
  EXPECT_EQ(std::memcmp(weights, image.bytes.data() + image.dataOffset, image.dataBytes), 0);
}

TEST(ModelWeights, MapsAPageAlignedSectionInPlace) { expectWeights(makeElf(4096, 10000)); }

TEST(ModelWeights, CopiesASectionOffThePage) { expectWeights(makeElf(64 + 24, 5000)); }

TEST(ModelWeights, RefusesAnotherSize) {
  ElfImage image = makeElf(4096, 1000);
  EXPECT_NE(mapError(image.bytes, 1001).find("holds 1000 bytes"), std::string::npos);
}

TEST(ModelWeights, RefusesAFileWithoutTheSection) {
  ElfImage image = makeElf(4096, 100, ".rodata");
  EXPECT_NE(mapError(image.bytes, 100).find("has no section '.cuvil_weights'"), std::string::npos);
}

TEST(ModelWeights, RefusesAFileThatIsNotElf) {
  std::vector<uint8_t> text(200, 'x');
  EXPECT_NE(mapError(text, 10).find("not a 64-bit little-endian ELF"), std::string::npos);
}

TEST(ModelWeights, RefusesSectionHeadersPastTheEnd) {
  ElfImage image = makeElf(4096, 100);
  image.bytes.resize(image.bytes.size() - 10);
  EXPECT_NE(mapError(image.bytes, 100).find("section headers are not where"), std::string::npos);
}

TEST(ModelWeights, RefusesASectionPastTheEnd) {
  ElfImage image = makeElf(4096, 100);
  Elf64_Ehdr header;
  std::memcpy(&header, image.bytes.data(), sizeof header);
  Elf64_Shdr section;
  uint8_t *at = image.bytes.data() + header.e_shoff + sizeof(Elf64_Shdr);
  std::memcpy(&section, at, sizeof section);
  section.sh_offset = image.bytes.size() - 50;
  std::memcpy(at, &section, sizeof section);
  EXPECT_NE(mapError(image.bytes, 100).find("not the model's 100 bytes"), std::string::npos);
}

TEST(ModelWeights, LoadedWeightsNeedNoMapping) {
  alignas(64) static const char loaded[64] = {1};
  cuvil_model_info model{};
  model.weights = loaded;
  char message[64] = "";
  EXPECT_EQ(modelWeights(model, message, sizeof message), loaded);
}

} // namespace
} // namespace cuvil::runtime
