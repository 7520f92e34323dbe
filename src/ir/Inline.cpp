#include "cuvil/ir/Inline.h"

#include <map>

namespace cuvil {
namespace {

using ValueMap = std::map<const Value *, Value *>;

void copyNodes(const Graph &from, Graph &to, Node *before, ValueMap &map);

// A copy of `from`'s inputs, constants and nodes in the empty region `to`.
void copyGraph(const Graph &from, Graph &to) {
  ValueMap map;
  for (const Value *input : from.inputs())
    map[input] = to.addInput(input->name(), input->maybeType());
  copyNodes(from, to, nullptr, map);
  for (size_t i = 0; i < from.outputs().size(); ++i)
    to.addOutput(map.at(from.outputs()[i]), from.outputName(i));
}

void copyNodes(const Graph &from, Graph &to, Node *before, ValueMap &map) {
  for (const Value *constant : from.constants())
    map[constant] = to.addConstant(constant->name(), constant->constant());
  for (const auto &node : from.nodes()) {
    std::vector<Value *> inputs;
    for (const Value *input : node->inputs())
      inputs.push_back(input ? map.at(input) : nullptr);
    std::vector<std::string> names;
    for (const Value *result : node->outputs())
      names.push_back(result->name());
    Node *copy = to.addNode(node->op(), inputs, names, before);
    copy->setName(node->name());
    for (const auto &[name, attribute] : node->attributes())
      copy->setAttr(name, attribute);
    for (size_t r = 0; r < node->numRegions(); ++r)
      copyGraph(node->region(r), copy->addRegion(node->regionName(r)));
    for (size_t i = 0; i < node->numOutputs(); ++i)
      map[node->output(i)] = copy->output(i);
  }
}

} // namespace

std::vector<Value *> inlineRegion(const Graph &region, Graph &target, Node *before,
                                  std::span<Value *const> inputs) {
  ValueMap map;
  for (size_t i = 0; i < region.inputs().size(); ++i)
    map[region.inputs()[i]] = inputs[i];
  copyNodes(region, target, before, map);
  std::vector<Value *> outputs;
  for (const Value *output : region.outputs())
    outputs.push_back(map.at(output));
  return outputs;
}

} // namespace cuvil
