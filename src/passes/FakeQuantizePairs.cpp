// The QuantizeLinear -> DequantizeLinear pairs fuse-qdq leaves (around the
// ops a pre-quantized model keeps in f32: depthwise convolutions and their
// neighbours, poolings, the graph's inputs) round a value to the
// quantization's grid through an 8-bit tensor: two passes over memory and a
// u8 value the blocked layout reorders around. Each becomes one
//   DequantizeLinear(QuantizeLinear(x, s, z), s, z)  =>  cuvil.FakeQuantize(x)
//                                                        (scale s, zero_point z, low, high)
// an elementwise op the producer's epilogue or an elementwise chain absorbs.
// Needs: x f32, s and z constant per tensor and equal in both (or z
// omitted in both), an 8-bit quantized type. The QuantizeLinear stays while anything else reads its
// 8-bit result.
#include "FakeQuantizePairs.h"

#include "PassUtils.h"

#include <optional>

namespace cuvil {
namespace {

bool scalarConstant(const Value *value) {
  return value && value->isConstant() && value->constant().numElements() == 1;
}

// The range of an 8-bit quantized type: [low, high].
std::optional<std::pair<float, float>> eightBitRange(DType dtype) {
  if (dtype == DType::U8)
    return std::pair{0.0f, 255.0f};
  if (dtype == DType::I8)
    return std::pair{-128.0f, 127.0f};
  return std::nullopt;
}

// Whether `dequantize` reads a QuantizeLinear it undoes, as the header says.
Node *undoneQuantization(const Node &dequantize) {
  if (dequantize.op() != "DequantizeLinear")
    return nullptr;
  Node *quantize = dequantize.input(0)->producer();
  if (!quantize || quantize->op() != "QuantizeLinear" || quantize->getInt("block_size", 0) != 0 ||
      dequantize.getInt("block_size", 0) != 0)
    return nullptr;
  const Value *x = quantize->input(0), *y = dequantize.output(0);
  if (!x->hasType() || x->type().dtype != DType::F32 || !y->hasType() ||
      y->type().dtype != DType::F32 || !eightBitRange(quantize->output(0)->type().dtype))
    return nullptr;
  if (!scalarConstant(quantize->input(1)) || !sameScalar(quantize->input(1), dequantize.input(1)))
    return nullptr;
  // Zero points: both omitted (0), or equal constants.
  const Value *zq = quantize->hasInput(2) ? quantize->input(2) : nullptr;
  const Value *zd = dequantize.hasInput(2) ? dequantize.input(2) : nullptr;
  if ((zq == nullptr) != (zd == nullptr) || (zq && (!scalarConstant(zq) || !sameScalar(zq, zd))))
    return nullptr;
  if (!(quantize->input(1)->constant().getDouble(0) > 0))
    return nullptr;
  return quantize;
}

} // namespace

Status fakeQuantizePairs(Graph &graph) {
  std::vector<Node *> dequantizes;
  for (const auto &node : graph.nodes())
    if (undoneQuantization(*node))
      dequantizes.push_back(node.get());
  for (Node *dequantize : dequantizes) {
    Node *quantize = undoneQuantization(*dequantize);
    const auto [low, high] = *eightBitRange(quantize->output(0)->type().dtype);
    Node *fake =
        graph.addNode("cuvil.FakeQuantize", {quantize->input(0)},
                      {graph.uniqueName(dequantize->output(0)->name() + ".fq")}, dequantize);
    fake->setAttr("scale", float(quantize->input(1)->constant().getDouble(0)));
    fake->setAttr("zero_point", quantize->hasInput(2)
                                    ? float(quantize->input(2)->constant().getDouble(0))
                                    : 0.0f);
    fake->setAttr("low", low);
    fake->setAttr("high", high);
    CUVIL_TRY(inferNodeTypes(*fake));
    graph.replaceAllUsesWith(dequantize->output(0), fake->output(0));
    graph.eraseNode(dequantize);
    if (quantize->output(0)->uses().empty() && !quantize->output(0)->isGraphOutput())
      graph.eraseNode(quantize);
  }
  return Status::success();
}

} // namespace cuvil
