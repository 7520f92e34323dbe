// The table of every op Cuvil supports. Adding an op: write src/ops/<Op>.cpp
// defining k<Op>Op (schema, shape rule, reference, lowering) and list it here.
#include "cuvil/ops/AllOps.h"

#include "OpSupport.h"

#include <map>

#define CUVIL_OP_LIST(X)                                                                           \
  X(Abs)                                                                                           \
  X(Acos)                                                                                          \
  X(Acosh)                                                                                         \
  X(Add)                                                                                           \
  X(AffineGrid)                                                                                    \
  X(And)                                                                                           \
  X(Attention)                                                                                     \
  X(ArgMax)                                                                                        \
  X(ArgMin)                                                                                        \
  X(Asin)                                                                                          \
  X(Asinh)                                                                                         \
  X(Atan)                                                                                          \
  X(Atanh)                                                                                         \
  X(AveragePool)                                                                                   \
  X(BatchNormalization)                                                                            \
  X(Bernoulli)                                                                                     \
  X(BitShift)                                                                                      \
  X(BitwiseAnd)                                                                                    \
  X(BitwiseNot)                                                                                    \
  X(BitwiseOr)                                                                                     \
  X(BitwiseXor)                                                                                    \
  X(BlackmanWindow)                                                                                \
  X(Cast)                                                                                          \
  X(CastLike)                                                                                      \
  X(Ceil)                                                                                          \
  X(CenterCropPad)                                                                                 \
  X(Clip)                                                                                          \
  X(Col2Im)                                                                                        \
  X(Compress)                                                                                      \
  X(Concat)                                                                                        \
  X(ConstantOfShape)                                                                               \
  X(Conv)                                                                                          \
  X(ConvNCHWc)                                                                                     \
  X(ConvInteger)                                                                                   \
  X(ConvTranspose)                                                                                 \
  X(ConvTransposeCol2Im)                                                                           \
  X(ConvWinograd)                                                                                  \
  X(Cos)                                                                                           \
  X(Cosh)                                                                                          \
  X(CumSum)                                                                                        \
  X(DeformConv)                                                                                    \
  X(DeformIm2Col)                                                                                  \
  X(DequantizeLinear)                                                                              \
  X(DepthToSpace)                                                                                  \
  X(Det)                                                                                           \
  X(DFT)                                                                                           \
  X(Div)                                                                                           \
  X(Dropout)                                                                                       \
  X(DynamicQuantizeLinear)                                                                         \
  X(DynamicQuantizeRows)                                                                           \
  X(Einsum)                                                                                        \
  X(ElementwiseChain)                                                                              \
  X(Elu)                                                                                           \
  X(Equal)                                                                                         \
  X(Erf)                                                                                           \
  X(Exp)                                                                                           \
  X(Expand)                                                                                        \
  X(EyeLike)                                                                                       \
  X(FFT)                                                                                           \
  X(FFTTwiddles)                                                                                   \
  X(FakeQuantize)                                                                                  \
  X(Flatten)                                                                                       \
  X(Floor)                                                                                         \
  X(FromNCHWc)                                                                                     \
  X(FusedConv)                                                                                     \
  X(FusedMatMul)                                                                                   \
  X(FusedQLinearConv)                                                                              \
  X(GroupNormalization)                                                                            \
  X(GRU)                                                                                           \
  X(Gather)                                                                                        \
  X(GatherElements)                                                                                \
  X(GatherND)                                                                                      \
  X(Gelu)                                                                                          \
  X(Gemm)                                                                                          \
  X(GlobalAveragePool)                                                                             \
  X(GlobalLpPool)                                                                                  \
  X(GlobalMaxPool)                                                                                 \
  X(Greater)                                                                                       \
  X(GreaterOrEqual)                                                                                \
  X(GridSample)                                                                                    \
  X(HammingWindow)                                                                                 \
  X(HannWindow)                                                                                    \
  X(Hardmax)                                                                                       \
  X(HardSigmoid)                                                                                   \
  X(HardSwish)                                                                                     \
  X(Identity)                                                                                      \
  X(If)                                                                                            \
  X(InvertedResidualNCHWc)                                                                         \
  X(InstanceNormalization)                                                                         \
  X(IsInf)                                                                                         \
  X(IsNaN)                                                                                         \
  X(LSTM)                                                                                          \
  X(LayerNormalization)                                                                            \
  X(LeakyRelu)                                                                                     \
  X(Less)                                                                                          \
  X(LessOrEqual)                                                                                   \
  X(LRN)                                                                                           \
  X(Log)                                                                                           \
  X(Loop)                                                                                          \
  X(LogSoftmax)                                                                                    \
  X(LpNormalization)                                                                               \
  X(LpPool)                                                                                        \
  X(MatMul)                                                                                        \
  X(MatMulInteger)                                                                                 \
  X(MatMulIntegerToFloat)                                                                          \
  X(Max)                                                                                           \
  X(MaxPool)                                                                                       \
  X(MaxRoiPool)                                                                                    \
  X(MaxUnpool)                                                                                     \
  X(MelWeightMatrix)                                                                               \
  X(Min)                                                                                           \
  X(Mish)                                                                                          \
  X(Mod)                                                                                           \
  X(Mul)                                                                                           \
  X(Multinomial)                                                                                   \
  X(Neg)                                                                                           \
  X(NonMaxSuppression)                                                                             \
  X(NonZero)                                                                                       \
  X(Not)                                                                                           \
  X(OneHot)                                                                                        \
  X(OnnxAttention)                                                                                 \
  X(Or)                                                                                            \
  X(PRelu)                                                                                         \
  X(PackConvWeights)                                                                               \
  X(PackGemmPanels)                                                                                \
  X(PackIntegerPanels)                                                                             \
  X(PackRecurrentWeights)                                                                          \
  X(Pad)                                                                                           \
  X(PadChannels)                                                                                   \
  X(PoolNCHWc)                                                                                     \
  X(Pow)                                                                                           \
  X(QLinearConv)                                                                                   \
  X(QLinearMatMul)                                                                                 \
  X(QuantizeLinear)                                                                                \
  X(RMSNormalization)                                                                              \
  X(RNN)                                                                                           \
  X(RandomNormal)                                                                                  \
  X(RandomNormalLike)                                                                              \
  X(RandomUniform)                                                                                 \
  X(RandomUniformLike)                                                                             \
  X(Range)                                                                                         \
  X(Reciprocal)                                                                                    \
  X(RotaryEmbedding)                                                                               \
  X(Recurrence)                                                                                    \
  X(ReduceL1)                                                                                      \
  X(ReduceL2)                                                                                      \
  X(ReduceMax)                                                                                     \
  X(ReduceMean)                                                                                    \
  X(ReduceMin)                                                                                     \
  X(ReduceProd)                                                                                    \
  X(ReduceSum)                                                                                     \
  X(ReduceSumSquare)                                                                               \
  X(RegexFullMatch)                                                                                \
  X(Relu)                                                                                          \
  X(Reshape)                                                                                       \
  X(Resize)                                                                                        \
  X(ReverseSequence)                                                                               \
  X(RoiAlign)                                                                                      \
  X(Round)                                                                                         \
  X(Scan)                                                                                          \
  X(ScatterElements)                                                                               \
  X(ScatterND)                                                                                     \
  X(Selu)                                                                                          \
  X(Shape)                                                                                         \
  X(Shrink)                                                                                        \
  X(Sigmoid)                                                                                       \
  X(Sign)                                                                                          \
  X(Silu)                                                                                          \
  X(Sin)                                                                                           \
  X(Sinh)                                                                                          \
  X(Size)                                                                                          \
  X(Slice)                                                                                         \
  X(Softmax)                                                                                       \
  X(Softplus)                                                                                      \
  X(Softsign)                                                                                      \
  X(SpaceToDepth)                                                                                  \
  X(Split)                                                                                         \
  X(Sqrt)                                                                                          \
  X(Squeeze)                                                                                       \
  X(STFT)                                                                                          \
  X(StringConcat)                                                                                  \
  X(StringConstant)                                                                                \
  X(StringIndex)                                                                                   \
  X(StringNormalizer)                                                                              \
  X(Sub)                                                                                           \
  X(Swish)                                                                                         \
  X(Tan)                                                                                           \
  X(Tanh)                                                                                          \
  X(TensorScatter)                                                                                 \
  X(TfIdfVectorizer)                                                                               \
  X(ThresholdedRelu)                                                                               \
  X(Tile)                                                                                          \
  X(ToNCHWc)                                                                                       \
  X(TopK)                                                                                          \
  X(Transpose)                                                                                     \
  X(Trilu)                                                                                         \
  X(Unique)                                                                                        \
  X(Unsqueeze)                                                                                     \
  X(Where)                                                                                         \
  X(WinogradWeights)                                                                               \
  X(Xor)

namespace cuvil::ops {
#define CUVIL_DECLARE_OP(Name) extern const OpDefinition k##Name##Op;
CUVIL_OP_LIST(CUVIL_DECLARE_OP)
#undef CUVIL_DECLARE_OP

const OpDefinition *findOpDefinition(std::string_view op) {
  static const std::map<std::string_view, const OpDefinition *> definitions = [] {
    std::map<std::string_view, const OpDefinition *> byName;
#define CUVIL_NAME_OP(Name) byName.emplace(k##Name##Op.schema.name, &k##Name##Op);
    CUVIL_OP_LIST(CUVIL_NAME_OP)
#undef CUVIL_NAME_OP
    return byName;
  }();
  auto it = definitions.find(op);
  return it == definitions.end() ? nullptr : it->second;
}

} // namespace cuvil::ops

namespace cuvil {

void registerAllOps() {
  static const bool registered = [] {
#define CUVIL_REGISTER_OP(Name)                                                                    \
  OpRegistry::instance().add(&ops::k##Name##Op.schema);                                            \
  LoweringRegistry::instance().add(ops::k##Name##Op.schema.name, ops::k##Name##Op.lower,           \
                                   ops::k##Name##Op.dotProducts);
    CUVIL_OP_LIST(CUVIL_REGISTER_OP)
#undef CUVIL_REGISTER_OP
    return true;
  }();
  (void)registered;
}

} // namespace cuvil
