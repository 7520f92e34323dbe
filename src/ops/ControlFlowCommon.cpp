#include "ControlFlowCommon.h"

namespace cuvil::ops {

Status typeCapturedInputs(Node &node) {
  size_t captures = node.numCaptures();
  for (size_t r = 0; r < node.numRegions(); ++r) {
    const std::vector<Value *> &inputs = node.region(r).inputs();
    for (size_t k = 0; k < captures; ++k) {
      const Value *operand = node.input(node.numInputs() - captures + k);
      Value *input = inputs[inputs.size() - captures + k];
      input->setType(operand->type());
      input->setDimValues(operand->dimValues()
                              ? std::optional<std::vector<Dim>>(*operand->dimValues())
                              : std::nullopt);
    }
  }
  return Status::success();
}

SymbolId loopCounter(Node &node, Graph &region, std::string_view role, int64_t trips) {
  const std::string &owner = node.output(0)->name();
  const int64_t last = std::max<int64_t>(trips - 1, 0);
  std::string stem = symbolNameFrom(owner + "_" + std::string(role)), name = stem;
  for (int suffix = 1;; ++suffix, name = stem + "_" + std::to_string(suffix)) {
    std::optional<SymbolId> known = region.findSymbol(name);
    if (!known)
      break;
    const SymbolInfo &info = SymbolTable::global().info(*known);
    if (info.fromData && (info.owner == owner || info.owner.empty()) && info.max == last)
      return *known;
  }
  return region.addSymbol(
      {.name = name, .min = 0, .opt = 0, .max = last, .fromData = true, .owner = owner});
}

Expected<SymbolId> findLoopCounter(const Node &node, const Graph &region, std::string_view role) {
  // By its owner and name (the name alone where it was read from text).
  const std::string &owner = node.output(0)->name();
  const std::string stem = symbolNameFrom(owner + "_" + std::string(role));
  for (SymbolId symbol : region.symbols()) {
    const SymbolInfo &info = SymbolTable::global().info(symbol);
    if ((info.owner == owner || info.owner.empty()) && info.name.rfind(stem, 0) == 0)
      return symbol;
  }
  return Status::error("internal error: the loop's counter is missing");
}

bool isAlwaysTrue(const Value *value, const Value *always) {
  while (value->producer() && value->producer()->op() == "Identity")
    value = value->producer()->input(0);
  if (always && value == always)
    return true;
  if (!value->isConstant())
    return false;
  const Tensor &tensor = value->constant();
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    if (tensor.getInt(i) == 0)
      return false;
  return true;
}

Status copyValue(LoweringContext &ctx, const Value *from, const Value *to) {
  if (ctx.storedAt(from, to, 0))
    return Status::success();
  Shape flat = {to->type().numElements()};
  return emitStridedCopy(ctx, from, 0, {Dim(1)}, to, 0, {Dim(1)}, flat);
}

Status copySlice(LoweringContext &ctx, const Value *whole, const std::vector<SliceAt> &axes,
                 const Value *slice, SliceCopy direction) {
  const Shape &shape = whole->type().shape;
  std::vector<Dim> wholeStrides = contiguousStrides(shape);
  Shape sliceShape;
  std::vector<Dim> strides;
  Dim offset = 0;
  for (size_t d = 0, next = 0; d < shape.size(); ++d) {
    if (next < axes.size() && axes[next].axis == int64_t(d)) {
      offset = offset + axes[next++].at * wholeStrides[d];
      continue;
    }
    sliceShape.push_back(shape[d]);
    strides.push_back(wholeStrides[d]);
  }
  std::vector<Dim> dense = contiguousStrides(sliceShape);
  offset = offset * int64_t(dtypeSize(whole->type().dtype));
  if (direction == SliceCopy::OutOfWhole)
    return emitStridedCopy(ctx, whole, offset, strides, slice, 0, dense, sliceShape);
  return emitStridedCopy(ctx, slice, 0, dense, whole, offset, strides, sliceShape);
}

} // namespace cuvil::ops
