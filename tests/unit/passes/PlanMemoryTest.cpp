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

// A random DAG of elementwise ops (1-2 inputs among earlier values) with
// random sizes via Reshape-free broadcasting, and some views.
std::unique_ptr<Graph> randomGraph(std::mt19937 &rng, int nodes) {
  auto graph = std::make_unique<Graph>("random");
  std::vector<Value *> values = {graph->addInput("x", TensorType{DType::F32, {64, 64}})};
  std::uniform_int_distribution<int> pickOp(0, 3);
  for (int i = 0; i < nodes; ++i) {
    std::uniform_int_distribution<size_t> pick(values.size() > 6 ? values.size() - 6 : 0,
                                               values.size() - 1);
    Value *a = values[pick(rng)], *b = values[pick(rng)];
    Node *node = nullptr;
    switch (pickOp(rng)) {
    case 0:
      node = graph->addNode("Add", {a, b}, {"add"});
      break;
    case 1:
      node = graph->addNode("Relu", {a}, {"relu"});
      break;
    case 2:
      node = graph->addNode("Identity", {a}, {"view"});
      break; // shares bytes
    default:
      node = graph->addNode("Mul", {a, a}, {"mul"});
      break;
    }
    InferContext context(*node);
    EXPECT_TRUE(OpRegistry::instance().find(node->op())->infer(context).ok());
    values.push_back(node->output(0));
  }
  graph->addOutput(values.back());
  graph->addOutput(values[values.size() / 2]);
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
    // A view's source lives as long as the view (walk backwards for chains).
    for (auto it = graph->nodes().rbegin(); it != graph->nodes().rend(); ++it) {
      const Node &node = **it;
      if (node.op() == "Identity" && life.count(node.input(0)) &&
          node.output(0)->storage() == node.input(0)->storage())
        life[node.input(0)].last = std::max(life[node.input(0)].last, life[node.output(0)].last);
    }

    std::vector<std::pair<const Value *, Interval>> arena;
    for (const auto &[value, interval] : life)
      if (value->storage().space == StorageSpace::Arena)
        arena.push_back({value, interval});
    for (size_t i = 0; i < arena.size(); ++i) {
      const Value *a = arena[i].first;
      uint64_t aBegin = a->storage().offset, aEnd = aBegin + a->type().byteSize();
      EXPECT_EQ(aBegin % 64, 0u);
      EXPECT_LE(aEnd, context.memory.arenaBytes);
      for (size_t j = i + 1; j < arena.size(); ++j) {
        const Value *b = arena[j].first;
        if (a->storage() == b->storage())
          continue; // a view and its source
        bool liveTogether = arena[i].second.first <= arena[j].second.last &&
                            arena[j].second.first <= arena[i].second.last;
        uint64_t bBegin = b->storage().offset, bEnd = bBegin + b->type().byteSize();
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
