// Building blocks for elementwise ops. Each elementwise op file declares a
// traits object (its reference, kernel op code, parameters and fusion
// facts) and makes its definition from it; the shape rule, the reference
// loop, the lowering and the facts the fusion passes read are derived here,
// so adding a unary op is one short file and one line in AllOps.cpp.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

// --- Unary float ops: y = f(x), lowered to cuvil_unary_f32 -----------------

// A float attribute the kernel takes as a parameter (alpha, then beta).
struct FloatParam {
  std::string_view name;
  float defaultValue; // ONNX's
};

struct UnaryTraits {
  std::string_view name;
  cuvil_unary_op kernel;
  // f(x) with the op's parameters (ElementwiseFacts::params).
  double (*reference)(double x, std::span<const float> params);
  // The kernel's parameters, as float attributes...
  std::vector<FloatParam> params = {};
  // ... or, for ops whose parameters are inputs or not floats, read by this
  // function, `paramCount` of them, and mapped to the kernel function by
  // `kernelFor`.
  std::optional<std::vector<float>> (*readParams)(const Node &) = nullptr;
  size_t paramCount = 0;
  cuvil_unary (*kernelFor)(std::span<const float> params) = nullptr;
  // Checks attributes the shape rule does not (a mode string), or null.
  Status (*validate)(const Node &) = nullptr;
  // f(0) is finite (see ElementwiseFacts::finiteAtZero).
  bool finiteAtZero = false;
  std::vector<AttrSpec> extraAttributes = {};
  int maxInputs = 1;
  // Integer inputs too (the reference is exact on them); canonicalize
  // rewrites the integer forms into binary ops, the kernel being f32.
  bool integers = false;
};

Status inferFloatElementwise(InferContext &ctx);
// Any number type (not bool).
Status inferNumericElementwise(InferContext &ctx);
// The kernel function of unary op `op` with its parameters.
cuvil_unary unaryKernelOf(const OpDefinition &op, std::span<const float> params);
// The op's parameters when they are compile-time constants, else an error.
Expected<std::vector<float>> unaryParams(const Node &node, const OpSchema &schema);
OpDefinition unaryDefinition(const UnaryTraits &traits, InferFn infer, EvalFn eval, LowerFn lower);
// y = f(x) by the unary kernel.
Status lowerUnaryKernel(const Node &node, LoweringContext &ctx, const cuvil_unary &f);

template <const UnaryTraits &Traits> struct UnaryOp {
  static const OpSchema &schema() { return findOpDefinition(Traits.name)->schema; }
  static Status infer(InferContext &ctx) {
    if (Traits.validate)
      CUVIL_TRY(Traits.validate(ctx.node()));
    return Traits.integers ? inferNumericElementwise(ctx) : inferFloatElementwise(ctx);
  }
  static Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
    Expected<std::vector<float>> params = unaryParams(node, schema());
    CUVIL_TRY(params.status());
    for (int64_t i = 0, n = out[0].numElements(); i < n; ++i)
      out[0].setDouble(i, Traits.reference(in[0]->getDouble(i), *params));
    return Status::success();
  }
  static Status lower(const Node &node, LoweringContext &ctx) {
    Expected<std::vector<float>> params = unaryParams(node, schema());
    CUVIL_TRY(params.status());
    return lowerUnaryKernel(node, ctx, unaryKernelOf(*findOpDefinition(Traits.name), *params));
  }
  static OpDefinition definition() { return unaryDefinition(Traits, infer, eval, lower); }
};

// --- Binary ops with numpy broadcasting -----------------------------------

enum class BinaryKind { Arithmetic, Comparison, Logical };

struct BinaryTraits {
  std::string_view name;
  cuvil_binary_op code;
  BinaryKind kind;
  double (*floatReference)(double a, double b);
  int64_t (*intReference)(int64_t a, int64_t b);
  // Fused kernels may apply it to f32 values (ElementwiseFacts), padding
  // per-channel constants with `constantPadding`.
  bool fuses = false;
  bool finiteAtZero = false;
  float constantPadding = 0;
  // The op on dims, for shape computations (see OpSupport.h): the result,
  // or nullopt where the dims do not decide it.
  std::optional<Dim> (*dimReference)(const Dim &a, const Dim &b) = nullptr;
};

Status inferBinary(InferContext &ctx, BinaryKind kind);
// Dim values of the result of a binary op on dim values (none without a
// dimReference).
void propagateBinaryDims(InferContext &ctx,
                         std::optional<Dim> (*dimReference)(const Dim &, const Dim &));
Status evalBinary(const BinaryTraits &traits, std::span<const Tensor *const> in,
                  std::span<Tensor> out);
Status lowerBinary(const Node &node, LoweringContext &ctx, cuvil_binary_op code, BinaryKind kind);
OpDefinition binaryDefinition(const BinaryTraits &traits, InferFn infer, EvalFn eval,
                              LowerFn lower);

template <const BinaryTraits &Traits> struct BinaryOp {
  static Status infer(InferContext &ctx) {
    CUVIL_TRY(inferBinary(ctx, Traits.kind));
    propagateBinaryDims(ctx, Traits.dimReference);
    return Status::success();
  }
  static Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
    return evalBinary(Traits, in, out);
  }
  static Status lower(const Node &node, LoweringContext &ctx) {
    return lowerBinary(node, ctx, Traits.code, Traits.kind);
  }
  static OpDefinition definition() { return binaryDefinition(Traits, infer, eval, lower); }
};

} // namespace cuvil::ops
