// Helpers passes share: (re)typing new nodes, folding nodes to constants,
// asking ops for their facts and target plans, and walking uses.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/ir/OpSchema.h"
#include "cuvil/passes/Pass.h"
#include "cuvil/support/Status.h"

namespace cuvil {

// Runs the node's shape rule; errors name the node.
Status inferNodeTypes(Node &node);

// True when every input is a constant (or, for ops folding from types, typed).
bool hasFoldableInputs(const Node &node);

// Evaluates the node's reference on its constant inputs and replaces every
// result by a new constant; the node is erased. Returns false (and leaves the
// graph alone) when the op has no reference or the result would be larger
// than `maxBytes` and more than `maxGrowth` times its inputs together.
Expected<bool> foldNode(Graph &graph, Node &node, size_t maxBytes, size_t maxGrowth = 1);

// A copy of the single-result `node` (op, attributes, name) on `inputs`,
// its result named after `name`, inserted before `before` and typed.
Expected<Value *> cloneOnInputs(Graph &graph, const Node &node, const std::vector<Value *> &inputs,
                                Node *before, const std::string &name);

// `value` converted to `dtype` by a new Cast named `name` before `before`,
// typed; `value` itself when it has that type already.
Expected<Value *> insertCast(Graph &graph, Value *value, DType dtype, Node *before,
                             const std::string &name);

// A new scalar constant `value` of `dtype`, named after `name` (made unique).
Value *addScalarConstant(Graph &graph, double value, DType dtype, const std::string &name);
// The values of an integer input that shape inference found known: a
// constant's, or a graph input's fixed by --value.
std::vector<int64_t> knownInts(const Value *value);
// A new 1-D int64 constant (axes, shapes, Slice bounds), likewise.
Value *addInt64sConstant(Graph &graph, const std::vector<int64_t> &values, const std::string &name);

// Makes a new node computing `op` on inputs just before `before`, types it,
// and returns its single result.
Expected<Value *> insertNode(Graph &graph, const std::string &op,
                             const std::vector<Value *> &inputs, Node *before,
                             const std::string &name);

// Makes `op` of `inputs` (constants) with `attributes`, evaluates it by its
// reference and returns the constant result named `name`: how passes pack
// weights through the ops that own the packed layouts.
Expected<Value *> foldToConstant(Graph &graph, const std::string &op,
                                 const std::vector<Value *> &inputs,
                                 const std::vector<std::pair<std::string, Attribute>> &attributes,
                                 const std::string &name);

// Lets a node's op set its target-dependent attributes (OpSchema::planForTarget)
// and types the node.
Status planForTarget(Node &node, const PassContext &context);

// The facts of an elementwise op, or null.
const ElementwiseFacts *elementwiseFacts(const Node &node);

// Whether two values are constants of one type holding the same single
// element (bit for bit).
bool sameScalar(const Value *a, const Value *b);

// The single node consuming `value`, if `value` has exactly one use.
Node *soleUser(const Value *value);
// The operand of binary `node` that is not `value`, or null when `value` is
// neither.
Value *otherOperand(const Node &node, const Value *value);

// The Add that alone reads `value` (a matmul's result [..., N]) and adds a
// constant f32 [N] to it, its shape unchanged (a linear layer's bias), or
// null; the bias is its other operand.
Node *columnBiasAdd(const Value *value);

} // namespace cuvil
