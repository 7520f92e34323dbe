// RandomNormalLike: RandomNormal of the input's shape (known at compile
// time or not), of type `dtype` (by default the input's); the input's data
// is not read.
#include "RandomCommon.h"

namespace cuvil::ops {

extern const OpDefinition kRandomNormalLikeOp = {OpSchema{"RandomNormalLike",
                                                          1,
                                                          1,
                                                          1,
                                                          1,
                                                          {{"dtype", AttrKind::Int},
                                                           {"mean", AttrKind::Float, 0.0f},
                                                           {"scale", AttrKind::Float, 1.0f},
                                                           {"seed", AttrKind::Float}},
                                                          inferRandom,
                                                          /*reference: never folded*/ nullptr},
                                                 lowerNormal};

} // namespace cuvil::ops
