// Helpers the ops holding regions share (If, Loop, Scan): typing a region's
// captured inputs, the symbol a loop counts with, what never stops a loop,
// and the copies between a node's buffers and its regions'.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

// The node's last numCaptures() operands are the values its regions read;
// every region's last inputs stand for them and take their types (and the
// dims a shape computation carries).
Status typeCapturedInputs(Node &node);

// The symbol `region`'s dims read for the iteration a loop of `node` runs
// (`role`: "iteration", or "batch" for opset 8's Scan), in
// [0, max(trips - 1, 0)]: the same on every call while `trips` stays.
SymbolId loopCounter(Node &node, Graph &region, std::string_view role, int64_t trips);
// That symbol, once made.
Expected<SymbolId> findLoopCounter(const Node &node, const Graph &region, std::string_view role);

// Whether `value` is true whenever it is read: a constant of all true, an
// Identity of one, or the region input `always` (null: none).
bool isAlwaysTrue(const Value *value, const Value *always);

// Copies all of `from` into `to` (nothing when the planner placed them
// together).
Status copyValue(LoweringContext &ctx, const Value *from, const Value *to);

// Copies the slice of `whole` at the index `at` of each of its `axes`
// (ascending) from or into the dense `slice` (`whole` without those axes):
// a scan input's step, a scan output's.
enum class SliceCopy { OutOfWhole, IntoWhole };
struct SliceAt {
  int64_t axis;
  Dim at;
};
Status copySlice(LoweringContext &ctx, const Value *whole, const std::vector<SliceAt> &axes,
                 const Value *slice, SliceCopy direction);

} // namespace cuvil::ops
