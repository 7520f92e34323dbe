// The memory plan never gives two tensors that are alive at the same time
// overlapping bytes; checked on random graphs against a direct liveness
// computation, plus the arena bounds the planner reports.
#include "cuvil/ir/OpSchema.h"
#include "cuvil/ops/AllOps.h"
#include "cuvil/passes/Passes.h"

#include <gtest/gtest.h>
#include <map>
#include <random>

namespace cuvil {
namespace {

// A random DAG of elementwise ops (1-2 inputs among recent values of one
// shape), some views, and Concats of two half-size values into a full-size
// one (planned in place when their inputs are intermediates).
std::unique_ptr<Graph> randomGraph(std::mt19937 &rng, int nodes) {
  auto graph = std::make_unique<Graph>("random");
  std::vector<Value *> full = {graph->addInput("x", TensorType{DType::F32, {64, 64}})};
  std::vector<Value *> half = {graph->addInput("h", TensorType{DType::F32, {32, 64}})};
  auto recent = [&](std::vector<Value *> &pool) {
    std::uniform_int_distribution<size_t> pick(pool.size() > 6 ? pool.size() - 6 : 0,
                                               pool.size() - 1);
    return pool[pick(rng)];
  };
  std::uniform_int_distribution<int> pickOp(0, 4);
  std::bernoulli_distribution pickHalf(0.5);
  for (int i = 0; i < nodes; ++i) {
    int op = pickOp(rng);
    std::vector<Value *> &pool = op == 4 ? half : (pickHalf(rng) ? half : full);
    Value *a = recent(pool), *b = recent(pool);
    Node *node = nullptr;
    switch (op) {
    case 0:
      node = graph->addNode("Add", {a, b}, {"add"});
      break;
    case 1:
      node = graph->addNode("Relu", {a}, {"relu"});
      break;
    case 2:
      node = graph->addNode("Identity", {a}, {"view"});
      break; // shares bytes
    case 3:
      node = graph->addNode("Mul", {a, a}, {"mul"});
      break;
    default:
      node = graph->addNode("Concat", {a, b}, {"concat"});
      node->setAttr("axis", int64_t(0));
      break;
    }
    InferContext context(*node);
    EXPECT_TRUE(OpRegistry::instance().find(node->op())->infer(context).ok());
    (op == 4 ? full : pool).push_back(node->output(0));
  }
  graph->addOutput(full.back());
  graph->addOutput(half[half.size() / 2]);
  return graph;
}

struct Interval {
  size_t first, last;
};

TEST(PlanMemory, LiveTensorsNeverOverlap) {
  registerAllOps();
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    std::unique_ptr<Graph> graph = randomGraph(rng, 5 + trial % 40);
    PassContext context;
    ASSERT_TRUE(runPlanMemory(*graph, context).ok());

    // Liveness of each storage location, per byte range: a value is live from
    // its definition to its last use (views keep their source alive).
    std::map<const Value *, Interval> life;
    size_t index = 0;
    for (const auto &node : graph->nodes()) {
      for (Value *input : node->inputs())
        if (life.count(input))
          life[input].last = index;
      for (Value *result : node->outputs())
        life[result] = {index, index};
      ++index;
    }
    // A view's source lives as long as the view, and so does a slab of a
    // Concat planned in place, whose bytes the Concat's result is from the
    // slab's definition on (walk backwards for chains).
    std::map<const Value *, const Value *> slabOf;
    for (auto it = graph->nodes().rbegin(); it != graph->nodes().rend(); ++it) {
      const Node &node = **it;
      const Value *result = node.output(0);
      uint64_t offset = 0;
      for (const Value *input : node.inputs()) {
        Storage inside = result->storage();
        inside.offset += offset;
        offset += input->type().maxByteSize();
        bool shared = node.op() == "Identity" || node.op() == "Concat";
        if (!shared || !life.count(input) || input->storage() != inside)
          continue;
        life[input].last = std::max(life[input].last, life[result].last);
        if (node.op() == "Concat") {
          slabOf[input] = result;
          life[result].first = std::min(life[result].first, life[input].first);
        }
      }
    }
    for (const auto &node : graph->nodes())
      if (node->op() == "Identity" && slabOf.count(node->input(0)) &&
          node->output(0)->storage() == node->input(0)->storage())
        slabOf[node->output(0)] = slabOf[node->input(0)];
    // True when x is (a view of) a slab of y's bytes, y being a Concat's
    // result or a view of it.
    auto inside = [&](const Value *x, const Value *y) {
      return slabOf.count(x) && slabOf.at(x)->storage() == y->storage();
    };

    std::vector<std::pair<const Value *, Interval>> arena;
    for (const auto &[value, interval] : life)
      if (value->storage().space == StorageSpace::Arena)
        arena.push_back({value, interval});
    for (size_t i = 0; i < arena.size(); ++i) {
      const Value *a = arena[i].first;
      uint64_t aBegin = a->storage().offset, aEnd = aBegin + a->type().maxByteSize();
      EXPECT_EQ(aBegin % 64, 0u);
      EXPECT_LE(aEnd, context.memory.arenaBytes);
      for (size_t j = i + 1; j < arena.size(); ++j) {
        const Value *b = arena[j].first;
        if (a->storage() == b->storage() || inside(a, b) || inside(b, a))
          continue; // a view and its source, a slab and its Concat
        bool liveTogether = arena[i].second.first <= arena[j].second.last &&
                            arena[j].second.first <= arena[i].second.last;
        uint64_t bBegin = b->storage().offset, bEnd = bBegin + b->type().maxByteSize();
        bool overlap = aBegin < bEnd && bBegin < aEnd;
        EXPECT_FALSE(liveTogether && overlap)
            << "trial " << trial << ": %" << a->name() << " and %" << b->name();
      }
    }
    EXPECT_GE(context.memory.arenaBytes, context.memory.maxLiveBytes);
    EXPECT_LE(context.memory.arenaBytes, context.memory.intermediateBytes);
  }
}

TEST(PlanMemory, OutputsAndInputsUseTheCallersBuffers) {
  registerAllOps();
  Graph graph;
  Value *x = graph.addInput("x", TensorType{DType::F32, {8}});
  Node *relu = graph.addNode("Relu", {x}, {"y"});
  relu->output(0)->setType(x->type());
  graph.addOutput(relu->output(0));
  PassContext context;
  ASSERT_TRUE(runPlanMemory(graph, context).ok());
  EXPECT_EQ(x->storage(), (Storage{StorageSpace::Input, 0, 0}));
  EXPECT_EQ(relu->output(0)->storage(), (Storage{StorageSpace::Output, 0, 0}));
  EXPECT_EQ(context.memory.arenaBytes, 0u);
}

} // namespace
} // namespace cuvil
