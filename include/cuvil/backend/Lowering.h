// How an op turns into code: each op definition provides a LowerFn that
// describes kernel calls through a LoweringContext. The LLVM code generator
// implements the context: it resolves buffers to addresses, specialises each
// kernel for its constant arguments and schedules the call on the thread pool.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cuvil {

// One argument of a kernel call. Pointers name IR values (resolved to arena,
// weights, input or output addresses); everything else is a compile-time
// constant that the kernel gets specialised for.
struct KernelArg {
  enum class Kind { Pointer, Null, I64, F32, I64Array, F32Array };
  Kind kind = Kind::Null;
  const Value *value = nullptr; // Pointer
  int64_t byteOffset = 0;       // Pointer: offset into the value's buffer
  int64_t i64 = 0;
  float f32 = 0;
  std::vector<int64_t> i64s;
  std::vector<float> f32s;

  static KernelArg pointer(const Value *value, int64_t byteOffset = 0) {
    KernelArg arg;
    arg.kind = Kind::Pointer;
    arg.value = value;
    arg.byteOffset = byteOffset;
    return arg;
  }
  // A pointer to an optional input, null when it is omitted.
  static KernelArg optionalPointer(const Value *value) {
    if (value)
      return pointer(value);
    KernelArg arg;
    arg.kind = Kind::Null;
    return arg;
  }
  static KernelArg constant(int64_t value) {
    KernelArg arg;
    arg.kind = Kind::I64;
    arg.i64 = value;
    return arg;
  }
  static KernelArg constantF32(float value) {
    KernelArg arg;
    arg.kind = Kind::F32;
    arg.f32 = value;
    return arg;
  }
  // Passed as `const int64_t *`; loads from it fold away after specialisation.
  static KernelArg constantArray(std::vector<int64_t> values) {
    KernelArg arg;
    arg.kind = Kind::I64Array;
    arg.i64s = std::move(values);
    return arg;
  }
  static KernelArg constantF32Array(std::vector<float> values) {
    KernelArg arg;
    arg.kind = Kind::F32Array;
    arg.f32s = std::move(values);
    return arg;
  }
};

class LoweringContext {
public:
  virtual ~LoweringContext() = default;

  // Calls `kernel(args..., begin, end)` over the task range [0, numTasks),
  // split across threads. Kernels are declared in src/kernels/ with exactly
  // these parameters, each pointer as `T *`, each I64 as int64_t, each F32 as
  // float and each array as `const int64_t *` / `const float *`.
  virtual void callKernel(std::string_view kernel, std::vector<KernelArg> args,
                          int64_t numTasks) = 0;
  // True when the memory planner placed `part` at `byteOffset` bytes into
  // `whole` (a view op whose result aliases its input, or a Concat input
  // planned in its slab, then needs no code).
  virtual bool storedAt(const Value *part, const Value *whole, uint64_t byteOffset) const = 0;
  // Vector width in f32 lanes the target prefers (16 for AVX-512).
  virtual int vectorLanes() const = 0;
};

using LowerFn = Status (*)(const Node &, LoweringContext &);

class LoweringRegistry {
public:
  static LoweringRegistry &instance();
  void add(std::string_view op, LowerFn lower) { lowerings_[std::string(op)] = lower; }
  LowerFn find(std::string_view op) const {
    auto it = lowerings_.find(op);
    return it == lowerings_.end() ? nullptr : it->second;
  }

private:
  std::map<std::string, LowerFn, std::less<>> lowerings_;
};

} // namespace cuvil
