// canonicalize's Einsum rewrite. Operands are contracted left to right,
// each step keeping the labels the output or a later operand needs:
//   prepare each side: a diagonal (a label repeated in one operand) is an
//     Einsum of that operand alone (the kernel: a strided gather), a label
//     no one else needs is summed (ReduceSum);
//   then a = [batch, a-only, contracted], b = [batch, contracted, b-only]
//     (Transpose), merged to [batch, M, K] and [batch, K, N] (Reshape),
//     MatMul (the GEMM kernel; batch dims of 1 broadcast), split back;
//     with nothing contracted, a broadcasting Mul instead;
//   finally a Transpose to the output's order.
// f32 only (the GEMM kernel's type). A step that does not map (a label of
// dim 1 summed against a longer one, more than four batch dims, a merge
// of several symbolic dims Reshape cannot spell) is an Einsum of the two
// operands, which the general kernel computes; so is every step of other
// types. One or two operands of other types stay one Einsum.
#include "CanonicalizeEinsum.h"

#include "PassUtils.h"
#include "cuvil/ir/Einsum.h"

#include <algorithm>

namespace cuvil {
namespace {

bool contains(const std::vector<int> &labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

// A value with a label per axis.
struct Term {
  Value *value;
  std::vector<int> labels;
  const Dim &dim(int label) const {
    auto at = std::find(labels.begin(), labels.end(), label);
    return value->type().shape[size_t(at - labels.begin())];
  }
};

class EinsumRewrite {
public:
  EinsumRewrite(Graph &graph, Node &node, EinsumEquation equation, bool gemm)
      : graph_(graph), node_(node), equation_(std::move(equation)), gemm_(gemm),
        base_(node.output(0)->name()) {}

  Expected<Value *> run() {
    const std::vector<std::vector<int>> &operands = equation_.operands;
    Term result{node_.input(0), operands[0]};
    for (size_t i = 1; i < operands.size(); ++i) {
      // The output's labels in order, then those later operands need.
      std::vector<int> keep = equation_.output;
      for (size_t j = i + 1; j < operands.size(); ++j)
        for (int label : operands[j])
          if (!contains(keep, label))
            keep.push_back(label);
      Expected<Term> step = contract(result, {node_.input(i), operands[i]}, keep);
      CUVIL_TRY(step.status());
      result = step.take();
    }
    if (operands.size() == 1) {
      Expected<Term> prepared = prepare(result, equation_.output);
      CUVIL_TRY(prepared.status());
      result = prepared.take();
    }
    Expected<Term> ordered = permute(result, equation_.output);
    CUVIL_TRY(ordered.status());
    return ordered->value;
  }

private:
  Expected<Node *> add(const std::string &op, std::vector<Value *> inputs,
                       std::vector<std::pair<std::string, Attribute>> attributes) {
    Node *created = graph_.addNode(op, inputs, {base_ + "." + op}, &node_);
    created->setName(node_.name());
    for (auto &[name, value] : attributes)
      created->setAttr(name, std::move(value));
    CUVIL_TRY(inferNodeTypes(*created));
    return created;
  }

  Value *ints(const std::vector<int64_t> &values) {
    return graph_.addConstant(base_ + ".shape",
                              Tensor::fromInt64s(values, {int64_t(values.size())}));
  }

  // An Einsum of `inputs` giving the labels of `keep` they have, in its order.
  Expected<Term> einsum(const std::vector<Term> &inputs, const std::vector<int> &keep) {
    std::vector<std::vector<int>> labels;
    std::vector<Value *> values;
    for (const Term &input : inputs) {
      labels.push_back(input.labels);
      values.push_back(input.value);
    }
    std::vector<int> output;
    for (int label : keep)
      if (std::any_of(inputs.begin(), inputs.end(),
                      [&](const Term &t) { return contains(t.labels, label); }))
        output.push_back(label);
    Expected<std::string> text = einsumText(equation_, labels, output);
    CUVIL_TRY(text.status());
    Expected<Node *> step = add("Einsum", values, {{"equation", *text}});
    CUVIL_TRY(step.status());
    return Term{(*step)->output(0), output};
  }

  Expected<Term> permute(const Term &term, const std::vector<int> &order) {
    if (term.labels == order)
      return term;
    std::vector<int64_t> perm;
    for (int label : order)
      perm.push_back(std::find(term.labels.begin(), term.labels.end(), label) -
                     term.labels.begin());
    Expected<Node *> transpose = add("Transpose", {term.value}, {{"perm", perm}});
    CUVIL_TRY(transpose.status());
    return Term{(*transpose)->output(0), order};
  }

  // `term` with its diagonals taken and the labels `keep` lacks summed.
  Expected<Term> prepare(const Term &term, const std::vector<int> &keep) {
    std::vector<int> kept;
    std::vector<int64_t> summedAxes;
    bool diagonal = false;
    for (size_t axis = 0; axis < term.labels.size(); ++axis) {
      int label = term.labels[axis];
      if (std::count(term.labels.begin(), term.labels.begin() + int64_t(axis), label))
        diagonal = true;
      else if (contains(keep, label))
        kept.push_back(label);
      else
        summedAxes.push_back(int64_t(axis));
    }
    if (diagonal)
      return einsum({term}, kept);
    if (summedAxes.empty())
      return term;
    Value *axes = graph_.addConstant(base_ + ".axes",
                                     Tensor::fromInt64s(summedAxes, {int64_t(summedAxes.size())}));
    Expected<Node *> sum = add("ReduceSum", {term.value, axes}, {{"keepdims", int64_t(0)}});
    CUVIL_TRY(sum.status());
    return Term{(*sum)->output(0), kept};
  }

  // `value` reshaped to `dims`, whose first `copied` dims are its own: the
  // Reshape target spells those as 0, the others as numbers and a symbolic
  // one as -1 (canSpell said there is at most one).
  Expected<Value *> reshape(Value *value, size_t copied, const Shape &dims) {
    if (value->type().shape == dims)
      return value;
    std::vector<int64_t> target(copied, 0);
    for (size_t i = copied; i < dims.size(); ++i)
      target.push_back(dims[i].isConstant() ? dims[i].constant() : -1);
    Expected<Node *> reshaped = add("Reshape", {value, ints(target)}, {});
    CUVIL_TRY(reshaped.status());
    return (*reshaped)->output(0);
  }

  static bool canSpell(const Shape &from, size_t copied, const Shape &to) {
    return from == to || std::count_if(to.begin() + int64_t(copied), to.end(),
                                       [](const Dim &d) { return !d.isConstant(); }) <= 1;
  }

  static Dim product(const Term &term, const std::vector<int> &labels) {
    Dim result = 1;
    for (int label : labels)
      result *= term.dim(label);
    return result;
  }

  static std::vector<int> concat(std::vector<int> first, const std::vector<int> &second,
                                 const std::vector<int> &third) {
    first.insert(first.end(), second.begin(), second.end());
    first.insert(first.end(), third.begin(), third.end());
    return first;
  }

  // `value` with `count` dims of 1 inserted at axis `from`.
  Expected<Value *> unsqueeze(Value *value, size_t from, size_t count) {
    if (count == 0)
      return value;
    std::vector<int64_t> axes;
    for (size_t i = 0; i < count; ++i)
      axes.push_back(int64_t(from + i));
    Expected<Node *> unsqueezed = add("Unsqueeze", {value, ints(axes)}, {});
    CUVIL_TRY(unsqueezed.status());
    return (*unsqueezed)->output(0);
  }

  // A product with nothing summed (outer, elementwise): a = [batch, a-only,
  // 1...] times b = [batch, 1..., b-only], broadcasting.
  Expected<Term> multiply(const Term &a, const Term &b, const std::vector<int> &batch,
                          const std::vector<int> &aOnly, const std::vector<int> &bOnly) {
    Expected<Term> at = permute(a, concat(batch, aOnly, {}));
    CUVIL_TRY(at.status());
    Expected<Term> bt = permute(b, concat(batch, bOnly, {}));
    CUVIL_TRY(bt.status());
    Expected<Value *> aw = unsqueeze(at->value, batch.size() + aOnly.size(), bOnly.size());
    CUVIL_TRY(aw.status());
    Expected<Value *> bw = unsqueeze(bt->value, batch.size(), aOnly.size());
    CUVIL_TRY(bw.status());
    Expected<Node *> product = add("Mul", {*aw, *bw}, {});
    CUVIL_TRY(product.status());
    return Term{(*product)->output(0), concat(batch, aOnly, bOnly)};
  }

  Expected<Term> contract(const Term &left, const Term &right, const std::vector<int> &keep) {
    if (!gemm_)
      return einsum({left, right}, keep);
    Expected<Term> a = prepare(left, concat(keep, right.labels, {}));
    CUVIL_TRY(a.status());
    Expected<Term> b = prepare(right, concat(keep, left.labels, {}));
    CUVIL_TRY(b.status());
    std::vector<int> batch, aOnly, bOnly, contracted;
    for (int label : a->labels)
      (contains(b->labels, label) ? (contains(keep, label) ? batch : contracted) : aOnly)
          .push_back(label);
    for (int label : b->labels)
      if (!contains(a->labels, label))
        bOnly.push_back(label);
    if (contracted.empty())
      return multiply(*a, *b, batch, aOnly, bOnly);
    // The shapes on the way: a and b transposed, merged to matrices, the
    // product, split back.
    Shape aFrom, bFrom, aTo, bTo, matmulShape, out;
    for (int label : batch) {
      aTo.push_back(a->dim(label));
      bTo.push_back(b->dim(label));
      matmulShape.push_back(a->dim(label).is(1) ? b->dim(label) : a->dim(label));
    }
    out = matmulShape;
    for (int label : concat(batch, aOnly, contracted))
      aFrom.push_back(a->dim(label));
    for (int label : concat(batch, contracted, bOnly))
      bFrom.push_back(b->dim(label));
    aTo.insert(aTo.end(), {product(*a, aOnly), product(*a, contracted)});
    bTo.insert(bTo.end(), {product(*b, contracted), product(*b, bOnly)});
    matmulShape.insert(matmulShape.end(), {aTo.end()[-2], bTo.back()});
    for (int label : aOnly)
      out.push_back(a->dim(label));
    for (int label : bOnly)
      out.push_back(b->dim(label));
    // What MatMul and Reshape can say: summed dims equal (no broadcast), at
    // most four batch dims that are not 1, merges of one symbolic dim.
    size_t copied = batch.size();
    bool maps = std::all_of(contracted.begin(), contracted.end(),
                            [&](int l) { return a->dim(l) == b->dim(l); }) &&
                std::count_if(matmulShape.begin(), matmulShape.begin() + int64_t(copied),
                              [](const Dim &d) { return !d.is(1); }) <= 4 &&
                canSpell(aFrom, copied, aTo) && canSpell(bFrom, copied, bTo) &&
                canSpell(matmulShape, copied, out);
    if (!maps)
      return einsum({*a, *b}, keep);
    Expected<Term> at = permute(*a, concat(batch, aOnly, contracted));
    CUVIL_TRY(at.status());
    Expected<Term> bt = permute(*b, concat(batch, contracted, bOnly));
    CUVIL_TRY(bt.status());
    Expected<Value *> am = reshape(at->value, copied, aTo);
    CUVIL_TRY(am.status());
    Expected<Value *> bm = reshape(bt->value, copied, bTo);
    CUVIL_TRY(bm.status());
    Expected<Node *> matmul = add("MatMul", {*am, *bm}, {});
    CUVIL_TRY(matmul.status());
    Expected<Value *> split = reshape((*matmul)->output(0), copied, out);
    CUVIL_TRY(split.status());
    return Term{*split, concat(batch, aOnly, bOnly)};
  }

  Graph &graph_;
  Node &node_;
  EinsumEquation equation_;
  bool gemm_;
  std::string base_;
};

} // namespace

Status rewriteEinsum(Graph &graph, Node &node) {
  std::vector<size_t> ranks;
  std::vector<Shape> shapes;
  for (const Value *input : node.inputs()) {
    ranks.push_back(input->type().rank());
    shapes.push_back(input->type().shape);
  }
  Expected<EinsumEquation> equation = parseEinsum(node.getString("equation"), ranks);
  CUVIL_TRY(equation.status());
  Expected<std::vector<Dim>> dims = einsumLabelDims(*equation, shapes);
  CUVIL_TRY(dims.status());
  // Empty dims stay with the kernel (Reshape would read a 0 as "copy").
  bool gemm = node.input(0)->type().dtype == DType::F32;
  for (const std::vector<int> &labels : equation->operands)
    for (int label : labels)
      gemm &= !(*dims)[size_t(label)].is(0);
  bool diagonalOnly = node.numInputs() == 1 && [&] {
    std::vector<int> labels = equation->operands[0];
    std::sort(labels.begin(), labels.end());
    return std::adjacent_find(labels.begin(), labels.end()) != labels.end();
  }();
  if ((!gemm && node.numInputs() <= 2) || diagonalOnly)
    return Status::success(); // one pass of the general kernel
  Expected<Value *> result = EinsumRewrite(graph, node, equation.take(), gemm).run();
  CUVIL_TRY(result.status());
  graph.replaceAllUsesWith(node.output(0), *result);
  graph.eraseNode(&node);
  return Status::success();
}

} // namespace cuvil
