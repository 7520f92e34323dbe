// Loop: runs its `body` region while the iteration number is below the
// trip count M and the condition holds:
//   cond = cond0 (true when omitted); v = v0
//   for i = 0; i < M and cond; ++i: cond, v, scan_i = body(i, cond, v, captures)
//   results: v, and every scan output stacked along a new first axis
// M is a constant, a dim a shape computation carries, or a --value: it
// bounds the scan outputs (a loop without M runs until its condition fails
// and takes no scan outputs; it stops after 2^40 iterations). The scan
// outputs have M rows when the body's condition is always true, else a
// count the run computes (a `from data` symbol in [0, M]). The body's
// iteration number is the loop's counter symbol, so its shape rules see
// it as a dim; loop-carried values keep their type from one iteration to
// the next.
#include "ControlFlowCommon.h"

namespace cuvil::ops {
namespace {

constexpr int64_t kUnboundedTrips = int64_t(1) << 40;

struct LoopParts {
  size_t carried = 0, scans = 0;
};

Expected<LoopParts> parts(const Node &node) {
  size_t captures = node.numCaptures();
  if (node.numRegions() != 1 || node.regionName(0) != "body")
    return Status::error("needs one region, body");
  if (node.numInputs() < 2 + captures)
    return Status::error("takes M, cond, the initial loop-carried values and its captures");
  LoopParts p;
  p.carried = node.numInputs() - 2 - captures;
  const Graph &body = node.region(0);
  if (body.inputs().size() != 2 + p.carried + captures)
    return Status::error(fmt::format("the body takes {} inputs; it must take the iteration "
                                     "number, the condition and the {} loop-carried values",
                                     body.inputs().size() - captures, p.carried));
  if (body.outputs().size() < 1 + p.carried)
    return Status::error(fmt::format("the body returns {} values; it must return the condition "
                                     "and the {} loop-carried values",
                                     body.outputs().size(), p.carried));
  p.scans = body.outputs().size() - 1 - p.carried;
  if (node.numOutputs() != p.carried + p.scans)
    return Status::error(
        fmt::format("has {} results for {} loop-carried values and {} scan outputs",
                    node.numOutputs(), p.carried, p.scans));
  return p;
}

// M as a dim, or kUnboundedTrips without it; never negative.
Expected<Dim> tripCount(const Node &node) {
  if (!node.input(0))
    return Dim(kUnboundedTrips);
  Expected<std::vector<Dim>> m = dimsInput(node, 0, "the trip count M");
  CUVIL_TRY(m.status());
  if (m->size() != 1)
    return Status::error(fmt::format("the trip count M has {} elements, not 1", m->size()));
  return maxDim((*m)[0], 0);
}

// Whether the body may end the loop before M iterations.
bool mayStopEarly(const Node &node) {
  const Value *cond = node.input(1);
  const Graph &body = node.region(0);
  bool startsTrue = !cond || isAlwaysTrue(cond, nullptr);
  return !startsTrue || !isAlwaysTrue(body.outputs()[0], body.inputs()[1]);
}

Status prepareRegions(Node &node) {
  Expected<LoopParts> p = parts(node);
  CUVIL_TRY(p.status());
  Expected<Dim> trips = tripCount(node);
  CUVIL_TRY(trips.status());
  Graph &body = node.region(0);
  SymbolId counter = loopCounter(node, body, "iteration", trips->max());
  body.inputs()[0]->setType(TensorType{DType::I64, {}});
  body.inputs()[0]->setDimValues(std::vector<Dim>{Dim::symbol(counter)});
  body.inputs()[1]->setType(TensorType{DType::Bool, {}});
  for (size_t k = 0; k < p->carried; ++k) {
    const Value *initial = node.input(2 + k);
    body.inputs()[2 + k]->setType(initial->type());
  }
  return typeCapturedInputs(node);
}

Status infer(InferContext &ctx) {
  const Node &node = ctx.node();
  Expected<LoopParts> p = parts(node);
  CUVIL_TRY(p.status());
  for (auto [index, dtype] : {std::pair{0, DType::I64}, std::pair{1, DType::Bool}})
    if (ctx.hasInput(size_t(index)) && (ctx.inputDType(size_t(index)) != dtype ||
                                        !ctx.inputType(size_t(index)).numElements().is(1)))
      return ctx.error("{} must be one {}, not {}", index == 0 ? "M" : "cond", dtypeName(dtype),
                       ctx.inputType(size_t(index)).str());
  const Graph &body = node.region(0);
  const TensorType &cond = body.outputs()[0]->type();
  if (cond.dtype != DType::Bool || !cond.numElements().is(1))
    return ctx.error("the body's condition must be one bool, not {}", cond.str());
  for (size_t k = 0; k < p->carried; ++k) {
    const TensorType &in = body.inputs()[2 + k]->type(), &out = body.outputs()[1 + k]->type();
    if (in != out)
      return ctx.error("loop-carried value {} enters the body as {} and leaves it as {} (it must "
                       "keep its type)",
                       k, in.str(), out.str());
    ctx.setOutput(k, in);
  }
  if (p->scans == 0)
    return Status::success();
  Expected<Dim> trips = tripCount(node);
  CUVIL_TRY(trips.status());
  if (trips->is(kUnboundedTrips))
    return ctx.error("a loop without a trip count M cannot have scan outputs (their size would "
                     "have no bound)");
  Dim rows = mayStopEarly(node) ? ctx.dataSymbol("count", trips->max()) : *trips;
  for (size_t s = 0; s < p->scans; ++s) {
    TensorType type = body.outputs()[1 + p->carried + s]->type();
    type.shape.insert(type.shape.begin(), rows);
    ctx.setOutput(p->carried + s, type);
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<LoopParts> p = parts(node);
  CUVIL_TRY(p.status());
  Expected<Dim> trips = tripCount(node);
  CUVIL_TRY(trips.status());
  const Graph &body = node.region(0);
  Expected<SymbolId> counter = findLoopCounter(node, body, "iteration");
  CUVIL_TRY(counter.status());
  const std::vector<Value *> &in = body.inputs(), &out = body.outputs();
  if (node.input(1))
    CUVIL_TRY(copyValue(ctx, node.input(1), in[1]));
  else
    CUVIL_TRY(ctx.storeDims(in[1], std::vector<Dim>{1}));
  for (size_t k = 0; k < p->carried; ++k)
    CUVIL_TRY(copyValue(ctx, node.input(2 + k), in[2 + k]));
  std::optional<SymbolId> count;
  if (p->scans != 0 && mayStopEarly(node))
    count = node.output(p->carried)->type().shape[0].asSymbol();
  auto iteration = [&]() -> Status {
    CUVIL_TRY(ctx.storeDims(in[0], std::vector<Dim>{Dim::symbol(*counter)}));
    CUVIL_TRY(ctx.lowerRegion(body));
    CUVIL_TRY(copyValue(ctx, out[0], in[1]));
    for (size_t k = 0; k < p->carried; ++k)
      CUVIL_TRY(copyValue(ctx, out[1 + k], in[2 + k]));
    for (size_t s = 0; s < p->scans; ++s)
      CUVIL_TRY(copySlice(ctx, node.output(p->carried + s), {{0, Dim::symbol(*counter)}},
                          out[1 + p->carried + s], SliceCopy::IntoWhole));
    return Status::success();
  };
  CUVIL_TRY(ctx.emitLoop(*counter, *trips, in[1], iteration, count));
  for (size_t k = 0; k < p->carried; ++k)
    CUVIL_TRY(copyValue(ctx, in[2 + k], node.output(k)));
  return Status::success();
}

OpSchema schema() {
  OpSchema schema{"Loop", 0,      1 << 20, 1, 1 << 20, {{"captures", AttrKind::Int, int64_t(0)}},
                  infer,  nullptr};
  schema.regions = {"body"};
  schema.prepareRegions = prepareRegions;
  return schema;
}

} // namespace

extern const OpDefinition kLoopOp = {schema(), lower};

} // namespace cuvil::ops
