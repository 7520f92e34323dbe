// Scan: runs its `body` region once per step of the scan inputs' sequence
// axis, carrying state from step to step:
//   state = initial states
//   for t = 0 .. L-1: state, y_t = body(state, x_1[t], ..., x_M[t], captures)
//   results: the final state, then each y stacked along its output axis
// where x_j[t] is scan input j's slice at step t along scan_input_axes[j]
// (from the end when scan_input_directions[j] is 1) and every scan input
// has the same length L there; y_t lands at step t along
// scan_output_axes (from the end with scan_output_directions). The step
// is the loop's counter symbol. Opset 8's form (`batched`, set by the
// opset adapter) has a leading batch axis on every operand and result, the
// scan axis after it, and runs the above once per batch entry.
#include "ControlFlowCommon.h"

#include <optional>

namespace cuvil::ops {
namespace {

struct ScanParts {
  size_t states = 0, inputs = 0, outputs = 0;
  bool batched = false; // opset 8: operands and results [batch, ...]
};

Expected<ScanParts> parts(const Node &node) {
  size_t captures = node.numCaptures();
  if (node.numRegions() != 1 || node.regionName(0) != "body")
    return Status::error("needs one region, body");
  ScanParts p;
  int64_t scans = node.getInt("num_scan_inputs");
  if (scans < 1 || size_t(scans) + captures > node.numInputs())
    return Status::error(
        fmt::format("num_scan_inputs is {}, with {} operands", scans, node.numInputs() - captures));
  p.inputs = size_t(scans);
  p.states = node.numInputs() - captures - p.inputs;
  p.batched = node.getInt("batched") != 0;
  const Graph &body = node.region(0);
  if (body.inputs().size() != p.states + p.inputs + captures)
    return Status::error(fmt::format("the body takes {} inputs for {} states and {} scan inputs",
                                     body.inputs().size() - captures, p.states, p.inputs));
  if (body.outputs().size() < p.states || node.numOutputs() != body.outputs().size())
    return Status::error(fmt::format("the body returns {} values for {} results and {} states",
                                     body.outputs().size(), node.numOutputs(), p.states));
  p.outputs = body.outputs().size() - p.states;
  return p;
}

// The axis attribute[i] gives a scan input or output of rank `rank`
// (without the batch axis of opset 8's form, which puts it after that).
Expected<int64_t> axisAt(const Node &node, const ScanParts &p, const char *attribute, size_t i,
                         int64_t rank) {
  if (p.batched)
    return 1;
  std::vector<int64_t> axes = node.getInts(attribute);
  return normalizeAxis(i < axes.size() ? axes[i] : 0, rank);
}

bool reversed(const Node &node, const char *attribute, size_t i) {
  std::vector<int64_t> directions = node.getInts(attribute);
  return i < directions.size() && directions[i] != 0;
}

// The sequence length L: every scan input's extent along its axis.
Expected<Dim> sequenceLength(const Node &node, const ScanParts &p) {
  std::optional<Dim> length;
  for (size_t j = 0; j < p.inputs; ++j) {
    const Shape &shape = node.input(p.states + j)->type().shape;
    Expected<int64_t> axis = axisAt(node, p, "scan_input_axes", j, int64_t(shape.size()));
    CUVIL_TRY(axis.status());
    if (*axis >= int64_t(shape.size()))
      return Status::error(fmt::format("scan input {} has no sequence axis", j));
    const Dim &extent = shape[size_t(*axis)];
    if (length && extent != *length)
      return Status::error(fmt::format("scan input {} has length {}, scan input 0 {}", j,
                                       extent.str(), length->str()));
    length = extent;
  }
  return *length;
}

// The batch size of opset 8's form (1 otherwise).
Expected<Dim> batchSize(const Node &node, const ScanParts &p) {
  if (!p.batched)
    return Dim(1);
  const Dim &batch = node.input(p.states)->type().shape[0];
  for (size_t i = 0; i < p.states + p.inputs; ++i)
    if (node.input(i)->type().shape.empty() || node.input(i)->type().shape[0] != batch)
      return Status::error(
          fmt::format("operand {} does not have the batch size {} first", i, batch.str()));
  return batch;
}

Status prepareRegions(Node &node) {
  Expected<ScanParts> p = parts(node);
  CUVIL_TRY(p.status());
  for (size_t j = 0; j < p->inputs; ++j)
    if (!node.input(p->states + j)->type().rank())
      return Status::error(fmt::format("scan input {} is a scalar", j));
  Expected<Dim> length = sequenceLength(node, *p);
  CUVIL_TRY(length.status());
  Expected<Dim> batch = batchSize(node, *p);
  CUVIL_TRY(batch.status());
  Graph &body = node.region(0);
  loopCounter(node, body, "iteration", length->max());
  if (p->batched)
    loopCounter(node, body, "batch", batch->max());
  for (size_t k = 0; k < p->states; ++k) {
    TensorType state = node.input(k)->type();
    if (p->batched)
      state.shape.erase(state.shape.begin());
    body.inputs()[k]->setType(state);
  }
  for (size_t j = 0; j < p->inputs; ++j) {
    TensorType slice = node.input(p->states + j)->type();
    int64_t axis = *axisAt(node, *p, "scan_input_axes", j, slice.rank());
    slice.shape.erase(slice.shape.begin() + axis);
    if (p->batched)
      slice.shape.erase(slice.shape.begin());
    body.inputs()[p->states + j]->setType(slice);
  }
  return typeCapturedInputs(node);
}

Status infer(InferContext &ctx) {
  const Node &node = ctx.node();
  Expected<ScanParts> p = parts(node);
  CUVIL_TRY(p.status());
  Expected<Dim> batch = batchSize(node, *p);
  CUVIL_TRY(batch.status());
  const Graph &body = node.region(0);
  for (size_t k = 0; k < p->states; ++k) {
    TensorType in = body.inputs()[k]->type();
    const TensorType &out = body.outputs()[k]->type();
    if (in != out)
      return ctx.error("state {} enters the body as {} and leaves it as {} (it must keep its "
                       "type)",
                       k, in.str(), out.str());
    if (p->batched)
      in.shape.insert(in.shape.begin(), *batch);
    ctx.setOutput(k, in);
  }
  Expected<Dim> length = sequenceLength(node, *p);
  CUVIL_TRY(length.status());
  for (size_t s = 0; s < p->outputs; ++s) {
    TensorType type = body.outputs()[p->states + s]->type();
    if (p->batched)
      type.shape.insert(type.shape.begin(), *batch);
    Expected<int64_t> axis = axisAt(node, *p, "scan_output_axes", s, type.rank() + 1);
    CUVIL_TRY(axis.status());
    type.shape.insert(type.shape.begin() + *axis, *length);
    ctx.setOutput(p->states + s, type);
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<ScanParts> p = parts(node);
  CUVIL_TRY(p.status());
  Expected<Dim> length = sequenceLength(node, *p);
  CUVIL_TRY(length.status());
  Expected<Dim> batch = batchSize(node, *p);
  CUVIL_TRY(batch.status());
  const Graph &body = node.region(0);
  Expected<SymbolId> counter = findLoopCounter(node, body, "iteration");
  CUVIL_TRY(counter.status());
  std::optional<SymbolId> entry;
  if (p->batched) {
    Expected<SymbolId> found = findLoopCounter(node, body, "batch");
    CUVIL_TRY(found.status());
    entry = *found;
  }
  // The batch entry's axis first where there is one.
  auto at = [&](std::optional<SliceAt> step) {
    std::vector<SliceAt> axes;
    if (entry)
      axes.push_back({0, Dim::symbol(*entry)});
    if (step)
      axes.push_back(*step);
    return axes;
  };
  const std::vector<Value *> &in = body.inputs(), &out = body.outputs();
  const Dim forward = Dim::symbol(*counter), backward = *length - 1 - forward;
  auto step = [&]() -> Status {
    for (size_t j = 0; j < p->inputs; ++j) {
      const Value *whole = node.input(p->states + j);
      int64_t axis = *axisAt(node, *p, "scan_input_axes", j, whole->type().rank());
      Dim t = reversed(node, "scan_input_directions", j) ? backward : forward;
      CUVIL_TRY(
          copySlice(ctx, whole, at(SliceAt{axis, t}), in[p->states + j], SliceCopy::OutOfWhole));
    }
    CUVIL_TRY(ctx.lowerRegion(body));
    for (size_t k = 0; k < p->states; ++k)
      CUVIL_TRY(copyValue(ctx, out[k], in[k]));
    for (size_t s = 0; s < p->outputs; ++s) {
      const Value *whole = node.output(p->states + s);
      int64_t axis = *axisAt(node, *p, "scan_output_axes", s, whole->type().rank());
      Dim t = reversed(node, "scan_output_directions", s) ? backward : forward;
      CUVIL_TRY(
          copySlice(ctx, whole, at(SliceAt{axis, t}), out[p->states + s], SliceCopy::IntoWhole));
    }
    return Status::success();
  };
  auto scan = [&]() -> Status {
    for (size_t k = 0; k < p->states; ++k)
      CUVIL_TRY(entry
                    ? copySlice(ctx, node.input(k), at(std::nullopt), in[k], SliceCopy::OutOfWhole)
                    : copyValue(ctx, node.input(k), in[k]));
    CUVIL_TRY(ctx.emitLoop(*counter, *length, nullptr, step, std::nullopt));
    for (size_t k = 0; k < p->states; ++k)
      CUVIL_TRY(entry
                    ? copySlice(ctx, node.output(k), at(std::nullopt), in[k], SliceCopy::IntoWhole)
                    : copyValue(ctx, in[k], node.output(k)));
    return Status::success();
  };
  if (entry)
    return ctx.emitLoop(*entry, *batch, nullptr, scan, std::nullopt);
  return scan();
}

OpSchema schema() {
  OpSchema schema{"Scan",
                  1,
                  1 << 20,
                  1,
                  1 << 20,
                  {{"num_scan_inputs", AttrKind::Int, std::nullopt, /*required=*/true},
                   {"scan_input_axes", AttrKind::Ints, std::vector<int64_t>{}},
                   {"scan_input_directions", AttrKind::Ints, std::vector<int64_t>{}},
                   {"scan_output_axes", AttrKind::Ints, std::vector<int64_t>{}},
                   {"scan_output_directions", AttrKind::Ints, std::vector<int64_t>{}},
                   {"batched", AttrKind::Int, int64_t(0)}, // opset 8's batch axis (the adapter's)
                   {"captures", AttrKind::Int, int64_t(0)}},
                  infer,
                  nullptr};
  schema.regions = {"body"};
  schema.prepareRegions = prepareRegions;
  return schema;
}

} // namespace

extern const OpDefinition kScanOp = {schema(), lower};

} // namespace cuvil::ops
