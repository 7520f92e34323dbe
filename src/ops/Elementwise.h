// Building blocks for elementwise ops. Each elementwise op file declares a
// traits object (reference function, kernel op code, attributes) and
// instantiates one of these templates with it; the shape rule, the reference
// loop and the lowering are shared here.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

// --- Unary float ops: y = f(x), lowered to cuvil_unary_f32 -----------------

struct UnaryTraits {
  std::string_view name;
  cuvil_unary_op code;
  double (*reference)(double x, const Node &node);
  // Kernel parameters alpha/beta from attributes or constant inputs (or null).
  Status (*params)(const Node &node, float &alpha, float &beta) = nullptr;
  int maxInputs = 1;
};

Status inferFloatElementwise(InferContext &ctx);
Status lowerUnary(const Node &node, LoweringContext &ctx, cuvil_unary_op code, float alpha,
                  float beta);

template <const UnaryTraits &Traits> struct UnaryOp {
  static Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
    for (int64_t i = 0, n = out[0].numElements(); i < n; ++i)
      out[0].setDouble(i, Traits.reference(in[0]->getDouble(i), node));
    return Status::success();
  }
  static Status lower(const Node &node, LoweringContext &ctx) {
    float alpha = 0, beta = 0;
    if constexpr (Traits.params != nullptr)
      CUVIL_TRY(Traits.params(node, alpha, beta));
    return lowerUnary(node, ctx, Traits.code, alpha, beta);
  }
  static OpDefinition definition(std::vector<AttrSpec> attributes = {}) {
    return {OpSchema{Traits.name, 1, Traits.maxInputs, 1, 1, std::move(attributes),
                     inferFloatElementwise, eval},
            lower};
  }
};

// --- Binary ops with numpy broadcasting -----------------------------------

enum class BinaryKind { Arithmetic, Comparison, Logical };

struct BinaryTraits {
  std::string_view name;
  cuvil_binary_op code;
  BinaryKind kind;
  double (*floatReference)(double a, double b);
  int64_t (*intReference)(int64_t a, int64_t b);
};

Status inferBinary(InferContext &ctx, BinaryKind kind);
Status evalBinary(const BinaryTraits &traits, std::span<const Tensor *const> in,
                  std::span<Tensor> out);
Status lowerBinary(const Node &node, LoweringContext &ctx, cuvil_binary_op code, BinaryKind kind);

template <const BinaryTraits &Traits> struct BinaryOp {
  static Status infer(InferContext &ctx) { return inferBinary(ctx, Traits.kind); }
  static Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
    return evalBinary(Traits, in, out);
  }
  static Status lower(const Node &node, LoweringContext &ctx) {
    return lowerBinary(node, ctx, Traits.code, Traits.kind);
  }
  static OpDefinition definition() {
    return {OpSchema{Traits.name, 2, 2, 1, 1, {}, infer, eval}, lower};
  }
};

} // namespace cuvil::ops
