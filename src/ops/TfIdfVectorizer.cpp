// TfIdfVectorizer over integer tokens: each row of x ([C] or [B, C]) counts
// the n-grams of the pool it holds, n in [min_gram_length, max_gram_length],
// with up to max_skip_count tokens skipped between an n-gram's items
// (unigrams counted once), into the n-gram's output column
// (ngram_indexes), then weighs them: TF the counts, IDF the weight of each
// n-gram present, TFIDF count x weight (weights default to 1). The opset
// adapter makes the pool attributes constant inputs: pool (the int64 pool),
// ngram_counts (where each length's n-grams start in it), ngram_indexes and
// weights (empty when absent). A string pool arrives as an integer one,
// the tokens as their indices in it (StringIndex: the adapter's doing).
#include "OpSupport.h"
#include "cuvil/kernels/TfIdf.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

enum Input { kTokens, kPool, kCounts, kIndexes, kWeights };

struct PoolLayout {
  std::vector<int64_t> pool, indexes;
  std::vector<float> weights;
  int64_t outputs = 0, minGram = 1, maxGram = 1, maxSkip = 0, mode = CUVIL_TFIDF_TF;
  // Per length n (index n - 1): how many n-grams, where their items and
  // output columns start.
  std::vector<int64_t> gramCount, gramFirst, indexFirst;
};

Expected<PoolLayout> layout(const Node &node) {
  for (Input input : {kPool, kCounts, kIndexes, kWeights})
    if (!node.input(input) || !node.input(input)->isConstant())
      return Status::error("the pool, ngram_counts, ngram_indexes and weights must be constants");
  PoolLayout l;
  l.pool = node.input(kPool)->constant().toInt64s();
  l.indexes = node.input(kIndexes)->constant().toInt64s();
  std::vector<int64_t> counts = node.input(kCounts)->constant().toInt64s();
  const Tensor &weights = node.input(kWeights)->constant();
  for (int64_t i = 0; i < weights.numElements(); ++i)
    l.weights.push_back(float(weights.getDouble(i)));
  l.minGram = node.getInt("min_gram_length");
  l.maxGram = node.getInt("max_gram_length");
  l.maxSkip = node.getInt("max_skip_count");
  static const std::pair<std::string_view, int64_t> kModes[] = {
      {"TF", CUVIL_TFIDF_TF}, {"IDF", CUVIL_TFIDF_IDF}, {"TFIDF", CUVIL_TFIDF_TFIDF}};
  std::string mode = node.getString("mode");
  auto known = std::find_if(std::begin(kModes), std::end(kModes),
                            [&](const auto &entry) { return entry.first == mode; });
  if (known == std::end(kModes))
    return Status::error(fmt::format("mode '{}' is not TF, IDF or TFIDF", mode));
  l.mode = known->second;
  if (l.minGram < 1 || l.maxGram < l.minGram || l.maxSkip < 0)
    return Status::error(fmt::format("needs 1 <= min_gram_length <= max_gram_length and "
                                     "max_skip_count >= 0, not {}, {}, {}",
                                     l.minGram, l.maxGram, l.maxSkip));
  if (l.maxGram > CUVIL_TFIDF_MAX_GRAM || counts.size() > size_t(CUVIL_TFIDF_MAX_GRAM))
    return Status::error(
        fmt::format("n-grams longer than {} are not supported", CUVIL_TFIDF_MAX_GRAM));
  // counts[n-1] is where the n-grams start in the pool; they run to the
  // next length's start (the pool's end for the last).
  int64_t grams = 0;
  for (size_t n = 1; n <= size_t(CUVIL_TFIDF_MAX_GRAM); ++n) {
    int64_t first = n <= counts.size() ? counts[n - 1] : int64_t(l.pool.size());
    int64_t last = n < counts.size() ? counts[n] : int64_t(l.pool.size());
    int64_t items = n <= counts.size() ? last - first : 0;
    if (first < 0 || items < 0 || last > int64_t(l.pool.size()) || items % int64_t(n) != 0)
      return Status::error(fmt::format("ngram_counts do not split the pool of {} into whole "
                                       "{}-grams",
                                       l.pool.size(), n));
    l.gramCount.push_back(items / int64_t(n));
    l.gramFirst.push_back(first);
    l.indexFirst.push_back(grams);
    grams += items / int64_t(n);
  }
  if (grams != int64_t(l.indexes.size()) || l.indexes.empty())
    return Status::error(fmt::format("ngram_indexes has {} entries for the pool's {} n-grams",
                                     l.indexes.size(), grams));
  for (int64_t index : l.indexes)
    if (index < 0)
      return Status::error(fmt::format("ngram_indexes holds {}, which is negative", index));
  l.outputs = *std::max_element(l.indexes.begin(), l.indexes.end()) + 1;
  if (!l.weights.empty() && int64_t(l.weights.size()) != l.outputs)
    return Status::error(
        fmt::format("weights has {} entries for {} outputs", l.weights.size(), l.outputs));
  return l;
}

Status infer(InferContext &ctx) {
  DType tokens = ctx.inputDType(kTokens);
  if (tokens != DType::I32 && tokens != DType::I64)
    return ctx.error("tokens must be i32 or i64 (or strings, with a pool_strings), not {}",
                     dtypeName(tokens));
  const Shape &x = ctx.inputShape(kTokens);
  if (x.empty() || x.size() > 2)
    return ctx.error("tokens must be [C] or [B, C], not [{}]", shapeToString(x));
  Expected<PoolLayout> l = layout(ctx.node());
  CUVIL_TRY(l.status());
  Shape y = x;
  y.back() = l->outputs;
  ctx.setOutput(0, TensorType{DType::F32, y});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  PoolLayout l = *layout(node);
  const Tensor &x = *in[kTokens];
  int64_t columns = x.dims().back(), rows = x.numElements() / std::max<int64_t>(columns, 1);
  std::vector<double> counts(size_t(l.outputs));
  for (int64_t row = 0; row < rows; ++row) {
    std::fill(counts.begin(), counts.end(), 0.0);
    for (int64_t d = 1; d <= l.maxSkip + 1; ++d)
      for (int64_t n = d == 1 || l.minGram > 1 ? l.minGram : 2; n <= l.maxGram; ++n)
        for (int64_t s = 0; s + (n - 1) * d < columns; ++s)
          for (int64_t g = 0; g < l.gramCount[size_t(n - 1)]; ++g) {
            bool match = true;
            for (int64_t i = 0; i < n && match; ++i)
              match = x.getInt(row * columns + s + i * d) ==
                      l.pool[size_t(l.gramFirst[size_t(n - 1)] + g * n + i)];
            if (match)
              counts[size_t(l.indexes[size_t(l.indexFirst[size_t(n - 1)] + g)])] += 1;
          }
    for (int64_t o = 0; o < l.outputs; ++o) {
      double weight = l.weights.empty() ? 1.0 : l.weights[size_t(o)], c = counts[size_t(o)];
      double value = l.mode == CUVIL_TFIDF_TF    ? c
                     : l.mode == CUVIL_TFIDF_IDF ? (c > 0 ? weight : 0.0)
                                                 : c * weight;
      out[0].setDouble(row * l.outputs + o, value);
    }
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<PoolLayout> l = layout(node);
  CUVIL_TRY(l.status());
  const Value *x = node.input(kTokens);
  const Shape &shape = x->type().shape;
  Dim rows = shape.size() == 2 ? shape[0] : Dim(1);
  ParamBlock<cuvil_tfidf_params> params;
  params.set(params->rows, rows);
  params.set(params->columns, shape.back());
  params->outputs = l->outputs;
  params->min_gram = l->minGram;
  params->max_gram = l->maxGram;
  params->max_skip = l->maxSkip;
  params->mode = l->mode;
  params->weighted = l->weights.empty() ? 0 : 1;
  for (size_t n = 0; n < size_t(CUVIL_TFIDF_MAX_GRAM); ++n) {
    params->gram_count[n] = l->gramCount[n];
    params->gram_first[n] = l->gramFirst[n];
    params->index_first[n] = l->indexFirst[n];
  }
  Expected<const KernelRef *> kernel = tfIdfKernel(x->type().dtype);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(node.input(kPool)),
                         KernelArg::pointer(node.input(kIndexes)),
                         KernelArg::pointer(node.input(kWeights)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        rows);
}

} // namespace

extern const OpDefinition kTfIdfVectorizerOp = {
    OpSchema{"TfIdfVectorizer",
             5,
             5,
             1,
             1,
             {{"max_gram_length", AttrKind::Int, std::nullopt, /*required=*/true},
              {"min_gram_length", AttrKind::Int, std::nullopt, /*required=*/true},
              {"max_skip_count", AttrKind::Int, std::nullopt, /*required=*/true},
              {"mode", AttrKind::String, std::nullopt, /*required=*/true},
              {"pool_strings", AttrKind::Strings}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
