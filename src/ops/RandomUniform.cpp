// RandomUniform: a tensor of the `shape` attribute of numbers uniform in
// [low, high), of type `dtype` (float by default), drawn anew each run
// (RandomCommon.h).
#include "RandomCommon.h"

namespace cuvil::ops {

extern const OpDefinition kRandomUniformOp = {
    OpSchema{"RandomUniform",
             0,
             0,
             1,
             1,
             {{"dtype", AttrKind::Int},
              {"high", AttrKind::Float, 1.0f},
              {"low", AttrKind::Float, 0.0f},
              {"seed", AttrKind::Float},
              {"shape", AttrKind::Ints, std::nullopt, /*required=*/true}},
             inferRandom,
             /*reference: never folded*/ nullptr},
    lowerUniform};

} // namespace cuvil::ops
