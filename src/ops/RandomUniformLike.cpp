// RandomUniformLike: RandomUniform of the input's shape (known at compile
// time or not), of type `dtype` (by default the input's); the input's data
// is not read. Bernoulli and training-mode Dropout draw through it
// (canonicalize's rewrites).
#include "RandomCommon.h"

namespace cuvil::ops {

extern const OpDefinition kRandomUniformLikeOp = {OpSchema{"RandomUniformLike",
                                                           1,
                                                           1,
                                                           1,
                                                           1,
                                                           {{"dtype", AttrKind::Int},
                                                            {"high", AttrKind::Float, 1.0f},
                                                            {"low", AttrKind::Float, 0.0f},
                                                            {"seed", AttrKind::Float}},
                                                           inferRandom,
                                                           /*reference: never folded*/ nullptr},
                                                  lowerUniform};

} // namespace cuvil::ops
