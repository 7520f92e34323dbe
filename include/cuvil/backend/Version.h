// The compiler's version string, also embedded in every executable.
#pragma once

#include <string>

namespace cuvil {

std::string compilerVersion();

} // namespace cuvil
