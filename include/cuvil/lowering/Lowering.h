// How an op turns into code: each op definition provides a LowerFn that
// describes kernel calls through a LoweringContext. The LLVM code generator
// implements the context: it resolves buffers to addresses, specialises each
// kernel for its constant arguments and schedules the call on the thread
// pool. Every call is checked against the kernel's declaration first
// (KernelCall.h).
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/lowering/KernelCall.h"
#include "cuvil/support/Status.h"
#include "cuvil/target/CpuModel.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuvil {

class LoweringContext {
public:
  virtual ~LoweringContext() = default;

  // Calls `kernel(args..., begin, end)` over the task range [0, numTasks),
  // split across threads, once the arguments agree with the kernel's
  // declaration; an error lists every disagreement.
  // The task count may be a dim known only at run time. `flops` is what the
  // call computes (multiply-adds count two): with the bytes of its buffers it
  // estimates the call's time, and a call too short to repay a split runs on
  // one thread. Calls that do a few operations per byte leave it at 0.
  Status callKernel(const KernelRef &kernel, std::vector<KernelArg> args, const Dim &numTasks,
                    const Dim &flops = 0);
  // True when the memory planner placed `part` at `byteOffset` bytes into
  // `whole` (a view op whose result aliases its input, or a Concat input
  // planned in its slab, then needs no code).
  virtual bool storedAt(const Value *part, const Value *whole, uint64_t byteOffset) const = 0;
  // Writes the run-time values of `values` into `destination`, an integer
  // tensor of that many elements (a shape computed from symbolic dims).
  virtual Status storeDims(const Value *destination, std::span<const Dim> values) = 0;
  // Sets a symbol from data to `value`'s run-time value here (an If result
  // whose extent depends on the branch taken).
  virtual Status assignSymbol(SymbolId symbol, const Dim &value) = 0;
  // The CPU the code being generated is for (one ISA variant's).
  virtual const CpuModel &cpu() const = 0;

  // Structured control flow, for the ops that hold regions (If, Loop,
  // Scan). Each part lowers nodes at the point of the run it is called at.
  // Lowers every node of `region` (one of the current node's) here.
  virtual Status lowerRegion(const Graph &region) = 0;
  // Runs `thenPart` when the bool `condition` (its first element) is true
  // at run time, else `elsePart`.
  virtual Status emitIf(const Value *condition, const std::function<Status()> &thenPart,
                        const std::function<Status()> &elsePart) = 0;
  //   counter = 0
  //   while counter < trips and (no condition or condition[0]): body(); ++counter
  //   count = counter                                  (when `count` is given)
  // `counter` and `count` are symbols (the body's dims may read the
  // counter); the body updates `condition`, a bool value, or null.
  virtual Status emitLoop(SymbolId counter, const Dim &trips, const Value *condition,
                          const std::function<Status()> &body, std::optional<SymbolId> count) = 0;
  // Its vector width in f32 lanes (16 for AVX-512).
  int vectorLanes() const { return cpu().vectorLanes(); }

protected:
  // Generates a call whose arguments have been checked.
  virtual Status emitKernelCall(const KernelRef &kernel, std::vector<KernelArg> args,
                                const Dim &numTasks, const Dim &flops) = 0;
};

using LowerFn = Status (*)(const Node &, LoweringContext &);

// The dot-product instructions a node's kernels use where the variant's CPU
// has them (CpuModel::int8Dot, bf16Dot): a variant that adds them is worth
// compiling only for a model with such nodes.
struct DotProducts {
  bool int8 = false; // vpdpbusd: 8-bit integer products
  bool bf16 = false; // vdpbf16ps: bf16 products
};
using DotProductsFn = DotProducts (*)(const Node &);

class LoweringRegistry {
public:
  static LoweringRegistry &instance();
  void add(std::string_view op, LowerFn lower, DotProductsFn dotProducts = nullptr) {
    lowerings_[std::string(op)] = {lower, dotProducts};
  }
  LowerFn find(std::string_view op) const {
    auto it = lowerings_.find(op);
    return it == lowerings_.end() ? nullptr : it->second.lower;
  }
  // What `node`'s kernels use (none for an op that declares nothing).
  DotProducts dotProducts(const Node &node) const;

private:
  struct Entry {
    LowerFn lower;
    DotProductsFn dotProducts;
  };
  std::map<std::string, Entry, std::less<>> lowerings_;
};

// Runs the lowering of `node`'s op; errors name the node and its op.
Status lowerNode(const Node &node, LoweringContext &ctx);

} // namespace cuvil
