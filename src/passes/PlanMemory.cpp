// plan-memory: gives every intermediate tensor a place in one static arena,
// decided at compile time.
//
// 1. Group values that share bytes: a view op's result (Reshape, ...) joins
//    its input's group unless that would bind two different graph
//    inputs/outputs to one buffer. A Concat whose inputs are contiguous slabs
//    of its result (every dimension before the axis is 1, as for a batch-1
//    channel concat, blocked or not) has its inputs planned in place: each
//    joins the result's group at its slab's offset, so that the producers
//    write the result and the Concat copies nothing (as Glow and TFLite do).
//    Groups holding a graph input or output live in the caller's buffer; the
//    rest go to the arena.
// 2. Each arena group is live from its first definition to its last use
//    (node indices, inclusive: a node's results never overlap its inputs).
// 3. Greedy placement (as Glow's and TFLite's planners): groups in order of
//    decreasing size (and, tried as well, size x lifetime and lifetime), each
//    at the 64-byte aligned offset of the tightest gap left by the placed
//    groups whose lifetimes intersect its own; the best order wins. Then a
//    local search over that order (move one group elsewhere, keep the move
//    unless the arena grows) until the arena reaches the max-live lower
//    bound or a budget runs out: the greedy orders strand ResNet-50's
//    short-lived Winograd scratch above its residual tensors (1.23x the
//    bound), the search closes the gap (1.00x).
// 4. Regions (If's branches, a Loop's body) are planned first, each in an
//    arena of its own, which its node then holds as scratch live only while
//    it runs: the region's values are moved to the scratch's offset. In a
//    region, the inputs the node fills (loop-carried state, scan slices)
//    and the outputs it copies out live through the whole region; captured
//    inputs read the node's operands in place (StorageSpace::Capture).
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>

namespace cuvil {
namespace {

constexpr uint64_t kAlign = 64;
// The local search's budget and seed (see improveOrder): ResNet-50 reaches
// its lower bound within a few hundred moves. A placement compares every
// pair of groups, so graphs of thousands (a detector's per-class tails) get
// fewer placements: kSearchPairs pair comparisons in all (ssdlite320's 1,800
// groups took 18 s for 2000 placements).
constexpr int kSearchPlacements = 2000;
constexpr uint64_t kSearchPairs = 100'000'000;
constexpr uint64_t kSearchSeed = 0x5eed;

uint64_t alignUp(uint64_t value) { return (value + kAlign - 1) / kAlign * kAlign; }

struct Group {
  Storage binding; // Input/Output when bound to the caller's buffer
  uint64_t bytes = 0;
  size_t first = SIZE_MAX, last = 0;
  std::vector<Value *> members; // each at offsetOf_ bytes from the group's start
};

// Where a value lives inside a Concat's result planned in place.
struct Slab {
  Value *concat;   // the Concat's result
  uint64_t offset; // bytes into it
};

class Planner {
public:
  // `scratchBytes`: the arena each control-flow node's regions need.
  Planner(Graph &graph, const std::map<const Node *, uint64_t> &scratchBytes)
      : graph_(graph), scratchBytes_(scratchBytes) {}

  // Where the node's scratch starts in this graph's arena.
  uint64_t scratchOffset(const Node *node) const { return offsets_[scratchGroup_.at(node)]; }

  MemoryPlanStats run() {
    findConcatSlabs();
    formGroups();
    computeLifetimes();
    addScratchGroups();
    const uint64_t maxLiveBytes = maxLive();
    placeArenaGroups(maxLiveBytes);
    MemoryPlanStats stats;
    for (const Group &group : groups_) {
      for (Value *member : group.members) {
        Storage storage =
            group.binding.space == StorageSpace::None ? arenaStorage(group) : group.binding;
        storage.offset += offsetOf_.at(member);
        member->setStorage(storage);
      }
      if (group.binding.space == StorageSpace::None) {
        stats.intermediateBytes += group.bytes;
        stats.arenaBytes =
            std::max(stats.arenaBytes, offsets_[&group - groups_.data()] + alignUp(group.bytes));
      }
    }
    stats.maxLiveBytes = maxLiveBytes;
    return stats;
  }

private:
  Storage arenaStorage(const Group &group) const {
    return {StorageSpace::Arena, 0, offsets_[size_t(&group - groups_.data())]};
  }

  bool isRegion() const { return graph_.owner() != nullptr; }

  size_t newGroup(Value *value) {
    Group group;
    group.bytes = value->type().maxByteSize(); // symbolic shapes: planned at their largest
    if (value->isGraphInput()) {
      size_t index = size_t(std::find(graph_.inputs().begin(), graph_.inputs().end(), value) -
                            graph_.inputs().begin());
      size_t firstCapture =
          graph_.inputs().size() - (isRegion() ? graph_.owner()->numCaptures() : 0);
      // A region's other inputs are arena values its node fills.
      if (!isRegion())
        group.binding = {StorageSpace::Input, uint32_t(index), 0};
      else if (index >= firstCapture)
        group.binding = {StorageSpace::Capture, uint32_t(index), 0};
    }
    groups_.push_back(group);
    return groups_.size() - 1;
  }

  void bindOutput(size_t group, uint32_t index) {
    groups_[group].binding = {StorageSpace::Output, index, 0};
  }

  // A Concat input can be a slab of the result when it is an intermediate
  // value of its own (not a constant, graph input or output, view, or Concat
  // planned in place) that no other Concat claims and that appears once; the
  // result must be such a value too, with contiguous slabs.
  void findConcatSlabs() {
    std::set<const Value *> graphOutputs(graph_.outputs().begin(), graph_.outputs().end());
    std::set<const Value *> inPlace; // Concat results whose inputs are slabs (not nested)
    auto ownsBytes = [&](const Value *v) {
      const Node *producer = v->producer();
      const OpSchema *schema = producer ? OpRegistry::instance().find(producer->op()) : nullptr;
      return producer && schema && !schema->isView && !v->isConstant() && !v->isGraphInput() &&
             !graphOutputs.count(v) && !slabs_.count(v) && !inPlace.count(v);
    };
    for (const auto &node : graph_.nodes()) {
      if (node->op() != "Concat")
        continue;
      Value *result = node->output(0);
      const Shape &shape = result->type().shape;
      int64_t axis = node->getInt("axis", 0);
      axis = axis < 0 ? axis + int64_t(shape.size()) : axis;
      bool contiguous =
          std::all_of(shape.begin(), shape.begin() + axis, [](const Dim &d) { return d.is(1); });
      // Slab offsets are numbers: every input's size must be static.
      auto ownsStaticBytes = [&](const Value *v) { return ownsBytes(v) && v->type().isStatic(); };
      std::set<const Value *> inputs(node->inputs().begin(), node->inputs().end());
      bool eligible = contiguous && ownsBytes(result) && inputs.size() == node->numInputs() &&
                      std::all_of(node->inputs().begin(), node->inputs().end(), ownsStaticBytes);
      if (!eligible)
        continue;
      inPlace.insert(result);
      uint64_t offset = 0;
      for (Value *input : node->inputs()) {
        slabs_[input] = {result, offset};
        offset += input->type().maxByteSize();
      }
    }
  }

  void formGroups() {
    for (Value *input : graph_.inputs())
      join(input, newGroup(input));
    // A region's outputs are arena values its node copies out.
    std::map<const Value *, uint32_t> outputIndex;
    for (size_t i = 0; i < graph_.outputs().size() && !isRegion(); ++i)
      outputIndex.emplace(graph_.outputs()[i], uint32_t(i));
    for (const auto &node : graph_.nodes()) {
      const OpSchema *schema = OpRegistry::instance().find(node->op());
      for (size_t r = 0; r < node->numOutputs(); ++r) {
        Value *result = node->output(r);
        if (groupOf_.count(result))
          continue; // a Concat's result, grouped with its first slab
        if (auto slab = slabs_.find(result); slab != slabs_.end()) {
          Value *concat = slab->second.concat;
          if (!groupOf_.count(concat))
            join(concat, newGroup(concat));
          join(result, groupOf_.at(concat), slab->second.offset);
          continue;
        }
        auto output = outputIndex.find(result);
        Value *source = r == 0 && schema && schema->isView ? node->input(0) : nullptr;
        size_t group = SIZE_MAX;
        // A region's output has bytes of its own: its node copies it into
        // the region's inputs (loop-carried state) after the body, which
        // must not overwrite what another output still holds.
        bool regionOutput = isRegion() && result->isGraphOutput();
        if (source && !source->isConstant() && !regionOutput) {
          size_t candidate = groupOf_.at(source);
          bool bound = groups_[candidate].binding.space != StorageSpace::None;
          // A graph output binds its whole group to the caller's buffer:
          // not when the view is only a slab of the group.
          bool slab =
              offsetOf_.at(source) != 0 || source->type().maxByteSize() != groups_[candidate].bytes;
          if (output == outputIndex.end() || (!bound && !slab))
            group = candidate;
        }
        if (group == SIZE_MAX)
          group = newGroup(result);
        if (output != outputIndex.end())
          bindOutput(group, output->second);
        bool viewOfSource = source && !source->isConstant() && group == groupOf_.at(source);
        join(result, group, viewOfSource ? offsetOf_.at(source) : 0);
      }
    }
  }

  void join(Value *value, size_t group, uint64_t offset = 0) {
    groupOf_[value] = group;
    offsetOf_[value] = offset;
    groups_[group].members.push_back(value);
  }

  void computeLifetimes() {
    size_t index = 0;
    // A region's inputs and outputs live from its start to its end, the
    // node's copies after its last node (index `end`).
    const size_t end = graph_.nodes().size();
    if (isRegion()) {
      for (Value *input : graph_.inputs())
        extend(groups_[groupOf_.at(input)], 0, end);
      for (Value *output : graph_.outputs())
        if (groupOf_.count(output))
          extend(groups_[groupOf_.at(output)], 0, end);
    }
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

  static void extend(Group &group, size_t first, size_t last) {
    group.first = std::min(group.first, first);
    group.last = std::max(group.last, last);
  }

  // A group without members per control-flow node: its regions' arena,
  // live only while the node runs.
  void addScratchGroups() {
    size_t index = 0;
    for (const auto &node : graph_.nodes()) {
      if (auto bytes = scratchBytes_.find(node.get()); bytes != scratchBytes_.end()) {
        Group group;
        group.bytes = bytes->second;
        group.first = group.last = index;
        scratchGroup_[node.get()] = groups_.size();
        groups_.push_back(group);
      }
      ++index;
    }
  }

  bool overlapsInTime(const Group &a, const Group &b) const {
    return a.first <= b.last && b.first <= a.last;
  }

  // Places the groups in `order`, each in the tightest (or with !bestFit the
  // lowest) gap between the placed groups alive at the same time, or on top
  // when no gap holds it; returns the arena size.
  uint64_t place(const std::vector<size_t> &order, bool bestFit,
                 std::vector<uint64_t> &offsets) const {
    std::vector<size_t> placed;
    uint64_t arena = 0;
    for (size_t g : order) {
      std::vector<std::pair<uint64_t, uint64_t>> busy;
      for (size_t other : placed)
        if (overlapsInTime(groups_[g], groups_[other]))
          busy.push_back({offsets[other], offsets[other] + alignUp(groups_[other].bytes)});
      std::sort(busy.begin(), busy.end());
      const uint64_t size = alignUp(groups_[g].bytes);
      uint64_t cursor = 0, best = UINT64_MAX, bestGap = UINT64_MAX;
      for (const auto &[begin, end] : busy) {
        if (begin >= cursor + size && begin - cursor < bestGap && (bestFit || best == UINT64_MAX)) {
          best = cursor;
          bestGap = begin - cursor;
        }
        cursor = std::max(cursor, end);
      }
      offsets[g] = best != UINT64_MAX ? best : cursor;
      arena = std::max(arena, offsets[g] + size);
      placed.push_back(g);
    }
    return arena;
  }

  // Several greedy orders (by size, by size x lifetime, by lifetime, by
  // definition); the smallest arena wins.
  // `floor` is the max-live lower bound, where the search can stop.
  void placeArenaGroups(uint64_t floor) {
    std::vector<size_t> arenaGroups;
    for (size_t i = 0; i < groups_.size(); ++i)
      if (groups_[i].binding.space == StorageSpace::None)
        arenaGroups.push_back(i);
    auto lifetime = [&](size_t g) { return uint64_t(groups_[g].last - groups_[g].first + 1); };
    std::vector<std::function<uint64_t(size_t)>> keys = {
        [&](size_t g) { return groups_[g].bytes; },
        [&](size_t g) { return groups_[g].bytes * lifetime(g); },
        [&](size_t g) { return lifetime(g); },
        // Definition order: the allocation an interpreter would make.
        [&](size_t g) { return UINT64_MAX - groups_[g].first; },
    };
    uint64_t bestArena = UINT64_MAX;
    std::vector<size_t> bestOrder;
    bool bestFitWon = true;
    for (const auto &key : keys) {
      std::vector<size_t> order = arenaGroups;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return key(a) != key(b) ? key(a) > key(b) : groups_[a].first < groups_[b].first;
      });
      for (bool bestFit : {true, false}) {
        std::vector<uint64_t> offsets(groups_.size(), 0);
        uint64_t arena = place(order, bestFit, offsets);
        if (arena < bestArena) {
          bestArena = arena;
          offsets_ = std::move(offsets);
          bestOrder = order;
          bestFitWon = bestFit;
        }
      }
    }
    if (bestArena == UINT64_MAX) {
      offsets_.assign(groups_.size(), 0);
      return;
    }
    improveOrder(bestOrder, bestFitWon, bestArena, floor);
  }

  // Moves one group of `order` to another position at a time (a fixed-seed
  // generator, so plans are reproducible) and keeps every move that does not
  // grow the arena, until it reaches `floor` or the budget of placements of
  // all groups was tried.
  void improveOrder(std::vector<size_t> order, bool bestFit, uint64_t arena, uint64_t floor) {
    if (order.size() < 2)
      return;
    const uint64_t pairs = uint64_t(order.size()) * (order.size() - 1) / 2;
    const uint64_t placements = std::min<uint64_t>(kSearchPlacements, kSearchPairs / pairs);
    std::mt19937_64 random(kSearchSeed);
    for (uint64_t attempt = 0; attempt < placements && arena > floor; ++attempt) {
      std::vector<size_t> candidate = order;
      size_t from = size_t(random() % candidate.size()), to = size_t(random() % candidate.size());
      size_t moved = candidate[from];
      candidate.erase(candidate.begin() + std::ptrdiff_t(from));
      candidate.insert(candidate.begin() + std::ptrdiff_t(to), moved);
      std::vector<uint64_t> offsets(groups_.size(), 0);
      uint64_t candidateArena = place(candidate, bestFit, offsets);
      if (candidateArena <= arena) {
        order = std::move(candidate);
        offsets_ = std::move(offsets);
        arena = candidateArena;
      }
    }
  }

  uint64_t maxLive() const {
    uint64_t best = 0;
    size_t count = graph_.nodes().size() + 1; // a region's end too
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
  const std::map<const Node *, uint64_t> &scratchBytes_;
  std::map<const Node *, size_t> scratchGroup_;
  std::vector<Group> groups_;
  std::vector<uint64_t> offsets_;
  std::map<const Value *, size_t> groupOf_;
  std::map<const Value *, uint64_t> offsetOf_;
  std::map<const Value *, Slab> slabs_;
};

// Moves the arena values of `graph` and of the regions in it `offset` bytes
// up: a region's plan into its node's scratch.
void shiftArenaStorage(Graph &graph, uint64_t offset) {
  auto shift = [&](Value *value) {
    Storage storage = value->storage();
    if (storage.space != StorageSpace::Arena)
      return;
    storage.offset += offset;
    value->setStorage(storage);
  };
  for (Value *input : graph.inputs())
    shift(input);
  for (const auto &node : graph.nodes()) {
    for (Value *result : node->outputs())
      shift(result);
    for (size_t r = 0; r < node->numRegions(); ++r)
      shiftArenaStorage(node->region(r), offset);
  }
}

// Plans `graph` in an arena of its own from offset 0, its regions in the
// scratch of their nodes.
MemoryPlanStats planGraph(Graph &graph) {
  std::map<const Node *, uint64_t> scratchBytes;
  for (const auto &node : graph.nodes())
    for (size_t r = 0; r < node->numRegions(); ++r) {
      uint64_t &bytes = scratchBytes[node.get()];
      bytes = std::max(bytes, planGraph(node->region(r)).arenaBytes);
    }
  Planner planner(graph, scratchBytes);
  MemoryPlanStats stats = planner.run();
  for (const auto &node : graph.nodes())
    for (size_t r = 0; r < node->numRegions(); ++r)
      shiftArenaStorage(node->region(r), planner.scratchOffset(node.get()));
  return stats;
}

} // namespace

Status runPlanMemory(Graph &graph, PassContext &context) {
  context.memory = planGraph(graph);
  return Status::success();
}

} // namespace cuvil
