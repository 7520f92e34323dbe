// The typed contract between a lowering and the microkernel it calls.
//
// Every kernel is declared once, by its prototype in include/cuvil/kernels/
// (which its definition in src/kernels/ must match). A KernelRef carries the
// kernel's symbol and the signature derived from that prototype, so a
// lowering names a kernel by its declaration, never by a string it builds:
//   const KernelRef kGemm = CUVIL_KERNEL_REF(cuvil_gemm_f32);
// A call's arguments (KernelArg) are checked against the signature before
// any code is generated: their count, each argument's kind, the element size
// and constness of buffers, the type of the parameter block, and the
// block's contents where the kernel declares a check (a register tile it
// does not instantiate). A mismatch is an error naming the kernel and every
// problem found.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/kernels/Random.h"
#include "cuvil/runtime/ModelABI.h"
#include "cuvil/support/Status.h"

#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cuvil {

// The name of a type as the compiler spells it, for messages.
template <typename T> constexpr std::string_view typeName() {
  std::string_view function = __PRETTY_FUNCTION__; // "... [with T = name; ...]" or "[T = name]"
  size_t start = function.find("T = ") + 4;
  size_t end = function.find_first_of(";]", start);
  return function.substr(start, end - start);
}

// A type's identity without RTTI: the address of a variable per type.
template <typename T> inline constexpr char kTypeTag = 0;

// How kernel prototypes spell a number type ("float", "int64_t", "uint8_t").
template <typename T> std::string numberTypeName() {
  if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, double>)
    return "double";
  else
    return (std::is_signed_v<T> ? "int" : "uint") + std::to_string(8 * sizeof(T)) + "_t";
}

// One parameter of a kernel prototype (the trailing task range excluded).
struct KernelParam {
  // RandomState: the frame's cuvil_random_state, which the run updates.
  // StringServices: the frame's cuvil_string_services (storage, number text).
  enum class Kind { Buffer, I64, F32, Block, RandomState, StringServices };
  Kind kind;
  std::string type;               // as declared: "const float *", "int64_t", ...
  size_t elementBytes = 0;        // Buffer: the pointee's size
  bool writable = false;          // Buffer: a pointer to non-const (the kernel writes it)
  const void *blockTag = nullptr; // Block: kTypeTag of the parameter struct
  size_t blockBytes = 0;          // Block: its size

  template <typename T> static KernelParam of() {
    if constexpr (std::is_same_v<T, int64_t>) {
      return {Kind::I64, "int64_t"};
    } else if constexpr (std::is_same_v<T, float>) {
      return {Kind::F32, "float"};
    } else {
      static_assert(std::is_pointer_v<T>, "kernel parameters are pointers, int64_t or float");
      using Pointee = std::remove_pointer_t<T>;
      using Element = std::remove_const_t<Pointee>;
      if constexpr (std::is_same_v<Element, cuvil_random_state>) {
        return {Kind::RandomState, "const struct cuvil_random_state *"};
      } else if constexpr (std::is_same_v<Element, cuvil_string_services>) {
        return {Kind::StringServices, "const struct cuvil_string_services *"};
      } else if constexpr (std::is_same_v<Element, cuvil_string> ||
                           std::is_same_v<Element, cuvil_element16>) { // 16-byte elements
        bool writable = !std::is_const_v<Pointee>;
        std::string type = "struct " + std::string(typeName<Element>()) + " *";
        return {Kind::Buffer, writable ? type : "const " + type, sizeof(Element), writable};
      } else if constexpr (std::is_class_v<Element>) {
        static_assert(std::is_const_v<Pointee>, "parameter blocks are read-only");
        return {Kind::Block,    std::string(typeName<Element>()), 0, false, &kTypeTag<Element>,
                sizeof(Element)};
      } else {
        static_assert(std::is_arithmetic_v<Element>, "buffers hold numbers");
        bool writable = !std::is_const_v<Pointee>;
        return {Kind::Buffer, (writable ? "" : "const ") + numberTypeName<Element>() + " *",
                sizeof(Element), writable};
      }
    }
  }
};

class KernelArg;

// A parameter block being filled by a lowering. Fields that come from
// shapes are set from dims: a constant dim writes its value, a symbolic one
// (a shape known at run time) is recorded, by the field's byte offset, for
// the generated code to compute before the call.
template <typename Block> class ParamBlock {
public:
  Block *operator->() { return &fields_; }
  const Block &fields() const { return fields_; }
  void set(int64_t &field, const Dim &dim) {
    size_t offset =
        size_t(reinterpret_cast<const char *>(&field) - reinterpret_cast<const char *>(&fields_));
    field = dim.isConstant() ? dim.constant() : 0;
    if (!dim.isConstant())
      dims_.emplace_back(offset, dim);
  }
  // Copies another block into `field`, a member of this one, its symbolic
  // fields staying symbolic (a kernel's parameters extending another's).
  template <typename Inner> void embed(Inner &field, const ParamBlock<Inner> &inner) {
    size_t base =
        size_t(reinterpret_cast<const char *>(&field) - reinterpret_cast<const char *>(&fields_));
    field = inner.fields();
    for (const auto &[offset, dim] : inner.dims())
      dims_.emplace_back(base + offset, dim);
  }
  // Symbolic fields, by byte offset.
  const std::vector<std::pair<size_t, Dim>> &dims() const { return dims_; }

private:
  Block fields_{};
  std::vector<std::pair<size_t, Dim>> dims_;
};

// A kernel by its declaration: the symbol the kernel library defines and
// the parameters of its prototype.
class KernelRef {
public:
  template <typename Prototype> static KernelRef of(std::string_view name) {
    return KernelRef(name, Parameters<Prototype>::list());
  }
  // The same kernel, with a check of the contents of its parameter block
  // (of type Block, which must be the one its prototype takes) that appends
  // what is wrong to `problems`.
  template <typename Block>
  KernelRef checkedBy(void (*check)(const Block &, std::vector<std::string> &problems)) const {
    KernelRef checked = *this;
    checked.checkedTag_ = &kTypeTag<Block>;
    checked.check_ = [check](const uint8_t *bytes, std::vector<std::string> &problems) {
      Block block;
      std::memcpy(&block, bytes, sizeof(Block));
      check(block, problems);
    };
    return checked;
  }

  const std::string &name() const { return name_; }
  const std::vector<KernelParam> &params() const { return params_; }
  // Every problem of a call with `args`, or success.
  Status checkCall(const std::vector<KernelArg> &args) const;

private:
  template <typename F> struct Parameters;
  template <typename... Args> struct Parameters<void(Args...)> {
    static std::vector<KernelParam> list() {
      std::vector<KernelParam> params = {KernelParam::of<Args>()...};
      static_assert(sizeof...(Args) >= 2, "a kernel ends with its task range (begin, end)");
      params.resize(params.size() - 2);
      return params;
    }
  };

  KernelRef(std::string_view name, std::vector<KernelParam> params)
      : name_(name), params_(std::move(params)) {}

  std::string name_;
  std::vector<KernelParam> params_;
  const void *checkedTag_ = nullptr; // the block type check_ reads
  std::function<void(const uint8_t *, std::vector<std::string> &)> check_;
};

// The kernel declared as `function` (a prototype from include/cuvil/kernels/).
#define CUVIL_KERNEL_REF(function) ::cuvil::KernelRef::of<decltype(function)>(#function)

// One argument of a kernel call. Pointers name IR values (resolved to arena,
// weights, input or output addresses) or a symbol's slot; everything else is a compile-time
// constant that the kernel gets specialised for.
class KernelArg {
public:
  enum class Kind { Pointer, Null, I64, F32, Block, Table };

  static KernelArg pointer(const Value *value, const Dim &byteOffset = 0) {
    KernelArg arg(Kind::Pointer);
    arg.value_ = value;
    arg.byteOffset_ = byteOffset;
    return arg;
  }
  // A pointer to the int64_t that holds a symbol's value during the run:
  // the kernel writes an extent it computes from data there (the symbol
  // InferContext::dataSymbol made), and later code reads it.
  static KernelArg symbol(SymbolId symbol) {
    KernelArg arg(Kind::Pointer);
    arg.symbol_ = symbol;
    return arg;
  }
  // A pointer to the run's error cell, an int64_t[2] through which a kernel
  // refuses its data: it stores the offending value in [1], then in [0] the
  // number (from 1) of the check that failed (src/kernels/KernelSupport.h's
  // raiseError), and the run stops after the call with that check's
  // message. Each message names a problem ("index {} is out of range"); the
  // runtime puts the value at "{}" and the node before it.
  static KernelArg error(std::vector<std::string> messages) {
    KernelArg arg(Kind::Pointer);
    arg.errorMessages_ = std::move(messages);
    return arg;
  }
  // A pointer to the frame's random state (cuvil_random_state: the
  // instance's seed, the run's number), from which random kernels draw.
  static KernelArg randomState() {
    KernelArg arg(Kind::Pointer);
    arg.randomState_ = true;
    return arg;
  }
  // The frame's string services (cuvil_string_services), through which
  // string kernels take storage and convert numbers to and from text.
  static KernelArg stringServices() {
    KernelArg arg(Kind::Pointer);
    arg.stringServices_ = true;
    return arg;
  }
  // A pointer to an optional input, null when it is omitted.
  static KernelArg optionalPointer(const Value *value) {
    return value ? pointer(value) : KernelArg(Kind::Null);
  }
  // An int64_t argument: a number, or a dim known only at run time.
  static KernelArg constant(const Dim &value) {
    KernelArg arg(Kind::I64);
    arg.i64_ = value;
    return arg;
  }
  static KernelArg constantF32(float value) {
    KernelArg arg(Kind::F32);
    arg.f32_ = value;
    return arg;
  }
  // A parameter block (a struct from include/cuvil/kernels/), passed as a
  // pointer to a constant; loads from it fold away after specialisation.
  template <typename Block> static KernelArg params(const Block &block) {
    static_assert(std::is_trivially_copyable_v<Block> && std::is_class_v<Block>);
    KernelArg arg(Kind::Block);
    arg.bytes_.resize(sizeof(Block));
    std::memcpy(arg.bytes_.data(), &block, sizeof(Block));
    arg.blockTag_ = &kTypeTag<Block>;
    arg.blockName_ = typeName<Block>();
    return arg;
  }
  // Numbers the compiler computed (a lookup table, an automaton), passed
  // like a parameter block as a pointer to a constant, to a read-only
  // buffer parameter of their element type.
  template <typename T> static KernelArg table(const std::vector<T> &values) {
    static_assert(std::is_arithmetic_v<T>);
    KernelArg arg(Kind::Table);
    arg.bytes_.resize(values.size() * sizeof(T));
    std::memcpy(arg.bytes_.data(), values.data(), arg.bytes_.size());
    arg.tableElementBytes_ = sizeof(T);
    return arg;
  }
  // The same, with the fields a ParamBlock recorded as symbolic.
  template <typename Block> static KernelArg params(const ParamBlock<Block> &block) {
    KernelArg arg = params(block.fields());
    arg.blockDims_ = block.dims();
    return arg;
  }

  Kind kind() const { return kind_; }
  // Pointer: the IR value addressed, or null for a symbol's slot or the
  // error cell.
  const Value *value() const { return value_; }
  std::optional<SymbolId> symbol() const { return symbol_; }
  // Pointer to the error cell: the messages of its checks, in check order.
  const std::vector<std::string> &errorMessages() const { return errorMessages_; }
  bool isErrorCell() const { return !errorMessages_.empty(); }
  bool isRandomState() const { return randomState_; }
  bool isStringServices() const { return stringServices_; }
  const Dim &byteOffset() const { return byteOffset_; }
  const Dim &i64() const { return i64_; }
  float f32() const { return f32_; }
  const std::vector<uint8_t> &bytes() const { return bytes_; } // Block, Table
  size_t tableElementBytes() const { return tableElementBytes_; }
  const void *blockTag() const { return blockTag_; }
  std::string_view blockName() const { return blockName_; }
  // Block fields known only at run time, by byte offset.
  const std::vector<std::pair<size_t, Dim>> &blockDims() const { return blockDims_; }

private:
  explicit KernelArg(Kind kind) : kind_(kind) {}
  Kind kind_;
  const Value *value_ = nullptr;           // Pointer
  std::optional<SymbolId> symbol_;         // Pointer to a symbol's slot
  std::vector<std::string> errorMessages_; // Pointer to the error cell
  bool randomState_ = false;               // Pointer to the random state
  bool stringServices_ = false;            // Pointer to the string services
  Dim byteOffset_;                         // Pointer: offset into the value's buffer
  Dim i64_;
  float f32_ = 0;
  std::vector<uint8_t> bytes_; // Block, Table
  size_t tableElementBytes_ = 0;
  const void *blockTag_ = nullptr;
  std::string_view blockName_;
  std::vector<std::pair<size_t, Dim>> blockDims_;
};

} // namespace cuvil
