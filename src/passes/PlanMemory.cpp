// plan-memory: gives every intermediate tensor a place in one static arena,
// decided at compile time.
//
// 1. Group values that share bytes: a view op's result (Reshape, ...) joins
//    its input's group unless that would bind two different graph
//    inputs/outputs to one buffer. Groups holding a graph input or output
//    live in the caller's buffer; the rest go to the arena.
// 2. Each arena group is live from its first definition to its last use
//    (node indices, inclusive: a node's results never overlap its inputs).
// 3. Greedy by size (as Glow's and TFLite's planners): largest group first,
//    at the lowest 64-byte aligned offset that overlaps no placed group whose
//    lifetime intersects its own.
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace cuvil {
namespace {

constexpr uint64_t kAlign = 64;

uint64_t alignUp(uint64_t value) { return (value + kAlign - 1) / kAlign * kAlign; }

struct Group {
  Storage binding; // Input/Output when bound to the caller's buffer
  uint64_t bytes = 0;
  size_t first = SIZE_MAX, last = 0;
  std::vector<Value *> members;
};

class Planner {
public:
  explicit Planner(Graph &graph) : graph_(graph) {}

  MemoryPlanStats run() {
    formGroups();
    computeLifetimes();
    placeArenaGroups();
    MemoryPlanStats stats;
    for (const Group &group : groups_) {
      for (Value *member : group.members)
        member->setStorage(group.binding.space == StorageSpace::None ? arenaStorage(group)
                                                                     : group.binding);
      if (group.binding.space == StorageSpace::None) {
        stats.intermediateBytes += group.bytes;
        stats.arenaBytes =
            std::max(stats.arenaBytes, offsets_[&group - groups_.data()] + alignUp(group.bytes));
      }
    }
    stats.maxLiveBytes = maxLive();
    return stats;
  }

private:
  Storage arenaStorage(const Group &group) const {
    return {StorageSpace::Arena, 0, offsets_[size_t(&group - groups_.data())]};
  }

  size_t newGroup(Value *value) {
    Group group;
    group.bytes = value->type().byteSize();
    if (value->isGraphInput()) {
      auto it = std::find(graph_.inputs().begin(), graph_.inputs().end(), value);
      group.binding = {StorageSpace::Input, uint32_t(it - graph_.inputs().begin()), 0};
    }
    groups_.push_back(group);
    return groups_.size() - 1;
  }

  void bindOutput(size_t group, uint32_t index) {
    groups_[group].binding = {StorageSpace::Output, index, 0};
  }

  void formGroups() {
    for (Value *input : graph_.inputs())
      join(input, newGroup(input));
    std::map<const Value *, uint32_t> outputIndex;
    for (size_t i = 0; i < graph_.outputs().size(); ++i)
      outputIndex.emplace(graph_.outputs()[i], uint32_t(i));
    for (const auto &node : graph_.nodes()) {
      const OpSchema *schema = OpRegistry::instance().find(node->op());
      for (size_t r = 0; r < node->numOutputs(); ++r) {
        Value *result = node->output(r);
        auto output = outputIndex.find(result);
        Value *source = r == 0 && schema && schema->isView ? node->input(0) : nullptr;
        size_t group = SIZE_MAX;
        if (source && !source->isConstant()) {
          size_t candidate = groupOf_.at(source);
          bool bound = groups_[candidate].binding.space != StorageSpace::None;
          if (output == outputIndex.end() || !bound)
            group = candidate;
        }
        if (group == SIZE_MAX)
          group = newGroup(result);
        if (output != outputIndex.end())
          bindOutput(group, output->second);
        join(result, group);
      }
    }
  }

  void join(Value *value, size_t group) {
    groupOf_[value] = group;
    groups_[group].members.push_back(value);
  }

  void computeLifetimes() {
    size_t index = 0;
    for (const auto &node : graph_.nodes()) {
      for (Value *input : node->inputs())
        if (input && groupOf_.count(input))
          groups_[groupOf_[input]].last = std::max(groups_[groupOf_[input]].last, index);
      for (Value *result : node->outputs()) {
        Group &group = groups_[groupOf_[result]];
        group.first = std::min(group.first, index);
        group.last = std::max(group.last, index);
      }
      ++index;
    }
  }

  bool overlapsInTime(const Group &a, const Group &b) const {
    return a.first <= b.last && b.first <= a.last;
  }

  void placeArenaGroups() {
    offsets_.assign(groups_.size(), 0);
    std::vector<size_t> order;
    for (size_t i = 0; i < groups_.size(); ++i)
      if (groups_[i].binding.space == StorageSpace::None)
        order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return groups_[a].bytes != groups_[b].bytes ? groups_[a].bytes > groups_[b].bytes
                                                  : groups_[a].first < groups_[b].first;
    });
    std::vector<size_t> placed;
    for (size_t g : order) {
      // Busy intervals of placed groups alive at the same time, by offset.
      std::vector<std::pair<uint64_t, uint64_t>> busy;
      for (size_t other : placed)
        if (overlapsInTime(groups_[g], groups_[other]))
          busy.push_back({offsets_[other], offsets_[other] + alignUp(groups_[other].bytes)});
      std::sort(busy.begin(), busy.end());
      uint64_t offset = 0, size = alignUp(groups_[g].bytes);
      for (const auto &[begin, end] : busy) {
        if (offset + size <= begin)
          break;
        offset = std::max(offset, end);
      }
      offsets_[g] = offset;
      placed.push_back(g);
    }
  }

  uint64_t maxLive() const {
    uint64_t best = 0;
    size_t count = graph_.nodes().size();
    for (size_t t = 0; t < count; ++t) {
      uint64_t live = 0;
      for (const Group &group : groups_)
        if (group.binding.space == StorageSpace::None && group.first <= t && t <= group.last)
          live += alignUp(group.bytes);
      best = std::max(best, live);
    }
    return best;
  }

  Graph &graph_;
  std::vector<Group> groups_;
  std::vector<uint64_t> offsets_;
  std::map<const Value *, size_t> groupOf_;
};

} // namespace

Status runPlanMemory(Graph &graph, PassContext &context) {
  context.memory = Planner(graph).run();
  return Status::success();
}

} // namespace cuvil
