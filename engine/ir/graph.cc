#include "engine/ir/graph.h"

#include <algorithm>

#include "engine/base/strings.h"

namespace webnnm::ir {

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kInput:
      return "input";
    case NodeKind::kOutput:
      return "output";
    case NodeKind::kParameter:
      return "parameter";
    case NodeKind::kConstant:
      return "constant";
    case NodeKind::kOp:
      return "op";
  }
  return "?";
}

const char* InitName(Init init) {
  switch (init) {
    case Init::kHe:
      return "he";
    case Init::kGlorot:
      return "glorot";
    case Init::kZeros:
      return "zeros";
    case Init::kOnes:
      return "ones";
  }
  return "?";
}

NodeId Graph::AddNode(Node node, int num_outputs) {
  NodeId id = static_cast<NodeId>(nodes_.size());
  node.outputs.clear();
  for (int i = 0; i < num_outputs; ++i) {
    node.outputs.push_back(static_cast<ValueId>(values_.size()));
    values_.push_back(Value{.producer = id, .index = i});
  }
  nodes_.push_back(std::move(node));
  return id;
}

NodeId Graph::AddOp(const OpDef& op, std::vector<ValueId> operands, Attrs attrs,
                    int num_outputs) {
  Node node;
  node.kind = NodeKind::kOp;
  node.op = &op;
  node.operands = std::move(operands);
  node.attrs = std::move(attrs);
  return AddNode(std::move(node), num_outputs);
}

void Graph::ResizeOutputs(NodeId id, int count) {
  Node& n = nodes_[id];
  while (static_cast<int>(n.outputs.size()) < count) {
    n.outputs.push_back(static_cast<ValueId>(values_.size()));
    values_.push_back(
        Value{.producer = id, .index = static_cast<int>(n.outputs.size()) - 1});
  }
  while (static_cast<int>(n.outputs.size()) > count) {
    values_[n.outputs.back()].producer = -1;
    n.outputs.pop_back();
  }
}

std::vector<NodeId> Graph::Consumers(ValueId value) const {
  std::vector<NodeId> consumers;
  for (NodeId id = 0; id < num_nodes(); ++id) {
    const Node& n = nodes_[id];
    if (n.dead) continue;
    if (std::find(n.operands.begin(), n.operands.end(), value) !=
        n.operands.end()) {
      consumers.push_back(id);
    }
  }
  return consumers;
}

std::vector<std::vector<NodeId>> Graph::ConsumerMap() const {
  std::vector<std::vector<NodeId>> readers(values_.size());
  for (NodeId id = 0; id < num_nodes(); ++id) {
    const Node& n = nodes_[id];
    if (n.dead) continue;
    for (ValueId v : n.operands) {
      if (v == kNoValue) continue;
      if (readers[v].empty() || readers[v].back() != id)
        readers[v].push_back(id);
    }
  }
  return readers;
}

void Graph::ReplaceUses(ValueId from, ValueId to) {
  for (Node& n : nodes_) {
    if (n.dead) continue;
    for (ValueId& operand : n.operands) {
      if (operand == from) operand = to;
    }
    if (n.inference_alias == from) n.inference_alias = to;
  }
}

absl::StatusOr<std::vector<NodeId>> Graph::TopologicalOrder() const {
  std::vector<int> pending(nodes_.size(), 0);
  std::vector<std::vector<NodeId>> readers(nodes_.size());
  for (NodeId id = 0; id < num_nodes(); ++id) {
    const Node& n = nodes_[id];
    if (n.dead) continue;
    for (ValueId operand : n.operands) {
      if (operand == kNoValue) continue;
      NodeId producer = values_[operand].producer;
      ++pending[id];
      readers[producer].push_back(id);
    }
  }
  std::vector<NodeId> order;
  std::vector<NodeId> ready;
  for (NodeId id = num_nodes() - 1; id >= 0; --id) {
    if (!nodes_[id].dead && pending[id] == 0) ready.push_back(id);
  }
  while (!ready.empty()) {
    NodeId id = ready.back();
    ready.pop_back();
    order.push_back(id);
    // Visit readers in id order for a stable result.
    std::vector<NodeId>& next = readers[id];
    for (auto it = next.rbegin(); it != next.rend(); ++it) {
      if (--pending[*it] == 0) ready.push_back(*it);
    }
  }
  if (order.size() != static_cast<size_t>(CountLiveNodes())) {
    for (NodeId id = 0; id < num_nodes(); ++id) {
      if (!nodes_[id].dead && pending[id] > 0) {
        return absl::InvalidArgumentError(
            StrCat("the graph has a cycle through node ", id));
      }
    }
  }
  return order;
}

std::vector<NodeId> Graph::Compact() {
  std::vector<NodeId> node_map(nodes_.size(), -1);
  std::vector<ValueId> value_map(values_.size(), kNoValue);
  std::vector<Node> nodes;
  std::vector<Value> values;
  for (NodeId id = 0; id < num_nodes(); ++id) {
    if (nodes_[id].dead) continue;
    node_map[id] = static_cast<NodeId>(nodes.size());
    for (ValueId v : nodes_[id].outputs) {
      value_map[v] = static_cast<ValueId>(values.size());
      Value copy = values_[v];
      copy.producer = node_map[id];
      values.push_back(copy);
    }
    nodes.push_back(std::move(nodes_[id]));
  }
  for (Node& n : nodes) {
    for (ValueId& v : n.operands) {
      if (v != kNoValue) v = value_map[v];
    }
    for (ValueId& v : n.outputs) v = value_map[v];
    if (n.inference_alias != kNoValue) {
      n.inference_alias = value_map[n.inference_alias];
    }
  }
  nodes_ = std::move(nodes);
  values_ = std::move(values);
  return node_map;
}

int Graph::CountLiveNodes() const {
  int count = 0;
  for (const Node& n : nodes_) count += n.dead ? 0 : 1;
  return count;
}

}  // namespace webnnm::ir
