// RandomNormal: a tensor of the `shape` attribute of normally distributed
// numbers (`mean`, standard deviation `scale`), of type `dtype` (float by
// default), drawn anew each run (RandomCommon.h; Box-Muller in the kernel).
#include "RandomCommon.h"

namespace cuvil::ops {

extern const OpDefinition kRandomNormalOp = {
    OpSchema{"RandomNormal",
             0,
             0,
             1,
             1,
             {{"dtype", AttrKind::Int},
              {"mean", AttrKind::Float, 0.0f},
              {"scale", AttrKind::Float, 1.0f},
              {"seed", AttrKind::Float},
              {"shape", AttrKind::Ints, std::nullopt, /*required=*/true}},
             inferRandom,
             /*reference: never folded*/ nullptr},
    lowerNormal};

} // namespace cuvil::ops
