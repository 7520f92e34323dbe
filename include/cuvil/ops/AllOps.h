// Registers every op definition (src/ops/) with the IR's OpRegistry and the
// backend's LoweringRegistry. Call once before importing or parsing graphs.
#pragma once

namespace cuvil {

void registerAllOps();

} // namespace cuvil
