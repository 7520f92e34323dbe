#ifndef CUVIL_RUNTIME_FILEIO_H
#define CUVIL_RUNTIME_FILEIO_H

#include <string>
#include <string_view>

namespace cuvil::runtime {

/// The whole contents of the file at path. Throws std::runtime_error naming
/// the file and the system error.
std::string readFile(const std::string &path);

/// Creates or truncates path and writes bytes to it, with the same errors.
void writeFile(const std::string &path, std::string_view bytes);

/// Writes bytes to a temporary file next to path, then renames it over path:
/// readers see the old file or the whole new one, never a part.
void writeFileAtomically(const std::string &path, std::string_view bytes);

/// Whether both paths name one existing file (links followed).
bool sameFile(const std::string &a, const std::string &b);

/// Creates dir and any missing parents, like mkdir -p.
void createDirectories(const std::string &dir);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_FILEIO_H
