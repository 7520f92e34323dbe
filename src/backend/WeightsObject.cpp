#include "cuvil/backend/WeightsObject.h"

#include <cstring>
#include <elf.h>
#include <fmt/format.h>
#include <fstream>

namespace cuvil {
namespace {

constexpr uint64_t kDataAlign = 64;
constexpr uint64_t kPageAlign = 4096;

// Section indices of the object we write.
enum : uint16_t { kNull, kData, kSymtab, kStrtab, kShstrtab, kNoteStack, kNumSections };

template <typename T> void writeRaw(std::ofstream &out, const T &value) {
  out.write(reinterpret_cast<const char *>(&value), sizeof(T));
}

void writeZeros(std::ofstream &out, uint64_t count) {
  static const char zeros[4096] = {};
  while (count) {
    uint64_t chunk = count < sizeof(zeros) ? count : sizeof(zeros);
    out.write(zeros, std::streamsize(chunk));
    count -= chunk;
  }
}

uint64_t alignTo(uint64_t value, uint64_t align) { return (value + align - 1) / align * align; }

} // namespace

Status writeWeightsObject(const std::string &path, const WeightsPlacement &placement,
                          ElfMachine machine, uint64_t totalBytes,
                          const std::vector<WeightsPiece> &pieces) {
  const bool mapped = !placement.mappedSection.empty();
  if (!mapped && totalBytes >= kLoadedWeightsLimit)
    return Status::error(fmt::format("weights of {} bytes exceed the 2 GiB the generated code can "
                                     "address in the loaded image",
                                     totalBytes));
  // A mapped section holds no symbol: the runtime finds it by name.
  const std::string strtab = mapped
                                 ? std::string("\0", 1)
                                 : std::string("\0", 1) + placement.symbol + std::string("\0", 1);
  const std::string dataName = mapped ? placement.mappedSection : ".rodata";
  static const char kOtherNames[] = "\0.symtab\0.strtab\0.shstrtab\0.note.GNU-stack";
  const std::string shstrtab =
      std::string("\0", 1) + dataName + std::string(kOtherNames, sizeof(kOtherNames));
  const uint32_t nameData = 1, nameSymtab = nameData + uint32_t(dataName.size()) + 1,
                 nameStrtab = nameSymtab + 8, nameShstrtab = nameStrtab + 8,
                 nameNoteStack = nameShstrtab + 10;
  // Page aligned in the file, so that the runtime can map it in place.
  const uint64_t dataAlign = mapped ? kPageAlign : kDataAlign;

  // Layout: header | data | symtab | strtab | shstrtab | section headers.
  const uint64_t dataOffset = alignTo(sizeof(Elf64_Ehdr), dataAlign);
  const uint64_t symtabOffset = alignTo(dataOffset + totalBytes, 8);
  const uint64_t symtabSize = (mapped ? 1 : 2) * sizeof(Elf64_Sym);
  const uint64_t strtabOffset = symtabOffset + symtabSize;
  const uint64_t shstrtabOffset = strtabOffset + strtab.size();
  const uint64_t headersOffset = alignTo(shstrtabOffset + shstrtab.size(), 8);

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return Status::error(fmt::format("cannot write {}", path));

  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_ident[EI_OSABI] = ELFOSABI_NONE;
  header.e_type = ET_REL;
  header.e_machine = uint16_t(machine);
  header.e_version = EV_CURRENT;
  header.e_shoff = headersOffset;
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = kNumSections;
  header.e_shstrndx = kShstrtab;
  writeRaw(out, header);
  writeZeros(out, dataOffset - sizeof(Elf64_Ehdr));

  uint64_t written = 0;
  for (const WeightsPiece &piece : pieces) {
    writeZeros(out, piece.offset - written);
    out.write(reinterpret_cast<const char *>(piece.bytes.data()),
              std::streamsize(piece.bytes.size()));
    written = piece.offset + piece.bytes.size();
  }
  writeZeros(out, totalBytes - written);
  writeZeros(out, symtabOffset - (dataOffset + totalBytes));

  Elf64_Sym nullSymbol{};
  Elf64_Sym dataSymbol{};
  dataSymbol.st_name = 1;
  dataSymbol.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
  dataSymbol.st_other = STV_DEFAULT;
  dataSymbol.st_shndx = kData;
  dataSymbol.st_value = 0;
  dataSymbol.st_size = totalBytes;
  writeRaw(out, nullSymbol);
  if (!mapped)
    writeRaw(out, dataSymbol);
  out.write(strtab.data(), std::streamsize(strtab.size()));
  out.write(shstrtab.data(), std::streamsize(shstrtab.size()));
  writeZeros(out, headersOffset - (shstrtabOffset + shstrtab.size()));

  auto section = [](uint32_t name, uint32_t type, uint64_t flags, uint64_t offset, uint64_t size,
                    uint64_t align) {
    Elf64_Shdr shdr{};
    shdr.sh_name = name;
    shdr.sh_type = type;
    shdr.sh_flags = flags;
    shdr.sh_offset = offset;
    shdr.sh_size = size;
    shdr.sh_addralign = align;
    return shdr;
  };
  Elf64_Shdr symtabHeader = section(nameSymtab, SHT_SYMTAB, 0, symtabOffset, symtabSize, 8);
  symtabHeader.sh_link = kStrtab;
  symtabHeader.sh_info = 1; // index of the first global symbol
  symtabHeader.sh_entsize = sizeof(Elf64_Sym);
  writeRaw(out, Elf64_Shdr{});
  writeRaw(out, section(nameData, SHT_PROGBITS, mapped ? 0 : SHF_ALLOC, dataOffset, totalBytes,
                        dataAlign));
  writeRaw(out, symtabHeader);
  writeRaw(out, section(nameStrtab, SHT_STRTAB, 0, strtabOffset, strtab.size(), 1));
  writeRaw(out, section(nameShstrtab, SHT_STRTAB, 0, shstrtabOffset, shstrtab.size(), 1));
  writeRaw(out, section(nameNoteStack, SHT_PROGBITS, 0, headersOffset, 0, 1));
  out.close();
  if (!out)
    return Status::error(fmt::format("failed writing {}", path));
  return Status::success();
}

} // namespace cuvil
