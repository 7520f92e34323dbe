#include "cuvil/backend/Lowering.h"

namespace cuvil {

LoweringRegistry &LoweringRegistry::instance() {
  static LoweringRegistry registry;
  return registry;
}

} // namespace cuvil
