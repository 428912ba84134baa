#include "engine/ir/rewriter.h"

#include <set>

#include "engine/base/strings.h"
#include "engine/ir/constant_data.h"
#include "engine/ir/infer.h"

namespace webnnm::ir {

void FillDefaultNames(TensorType& type) {
  if (type.names.size() != type.shape.size())
    type.names.assign(type.rank(), "");
  std::set<std::string> used(type.names.begin(), type.names.end());
  int features = 0;
  for (int64_t d : type.shape) features += IsSymbolic(d) ? 0 : 1;
  int counter = 0;
  for (int i = 0; i < type.rank(); ++i) {
    if (!type.names[i].empty()) continue;
    if (type.shape[i] == kBatchDim) {
      type.names[i] = "batch";
    } else if (type.shape[i] == kSequenceDim) {
      type.names[i] = "sequence";
    } else if (features == 1 && !used.count("features")) {
      type.names[i] = "features";
    } else {
      std::string name;
      do {
        name = StrCat("features", counter++);
      } while (used.count(name));
      type.names[i] = name;
    }
    used.insert(type.names[i]);
  }
}

absl::StatusOr<std::vector<ValueId>> GraphRewriter::AddMulti(
    OpKind kind, std::vector<ValueId> operands, Attrs attrs) {
  const OpDef& op = GetOp(kind);
  std::vector<const TensorType*> types;
  for (ValueId v : operands) {
    types.push_back(v == kNoValue ? nullptr : &graph_.value(v).type);
  }
  absl::StatusOr<std::vector<TensorType>> results =
      InferOp(op, types, attrs, limits_);
  if (!results.ok()) return results.status();
  NodeId id = graph_.AddOp(op, std::move(operands), std::move(attrs),
                           static_cast<int>(results->size()));
  Node& node = graph_.node(id);
  node.range = range_;
  node.layer = layer_;
  std::vector<ValueId> outputs = node.outputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Value& value = graph_.value(outputs[i]);
    value.type = std::move((*results)[i]);
    FillDefaultNames(value.type);
    value.typed = true;
  }
  return outputs;
}

absl::StatusOr<ValueId> GraphRewriter::Add(OpKind kind,
                                           std::vector<ValueId> operands,
                                           Attrs attrs) {
  absl::StatusOr<std::vector<ValueId>> outputs =
      AddMulti(kind, std::move(operands), std::move(attrs));
  if (!outputs.ok()) return outputs.status();
  return outputs->front();
}

ValueId GraphRewriter::Scalar(double value, DType type) {
  Node node;
  node.kind = NodeKind::kConstant;
  node.range = range_;
  node.layer = layer_;
  node.data = ScalarData(type, value);
  NodeId id = graph_.AddNode(std::move(node), 1);
  Value& v = graph_.value(graph_.output(id));
  v.type.dtype = type;
  v.typed = true;
  return graph_.output(id);
}

void GraphRewriter::Replace(NodeId node,
                            const std::vector<ValueId>& replacements) {
  const std::vector<ValueId>& outputs = graph_.node(node).outputs;
  graph_.node(node).dead = true;
  for (size_t i = 0; i < outputs.size() && i < replacements.size(); ++i) {
    replacements_.push_back({outputs[i], replacements[i]});
  }
}

ValueId GraphRewriter::Resolve(ValueId value) const {
  for (int hops = 0; hops < 64; ++hops) {
    bool moved = false;
    for (auto it = replacements_.rbegin(); it != replacements_.rend(); ++it) {
      if (it->first == value) {
        value = it->second;
        moved = true;
        break;
      }
    }
    if (!moved) break;
  }
  return value;
}

void GraphRewriter::ApplyReplacements() {
  if (replacements_.empty()) return;
  std::vector<ValueId> map(graph_.num_values());
  for (ValueId v = 0; v < graph_.num_values(); ++v) map[v] = v;
  for (const auto& [from, to] : replacements_) map[from] = to;
  // A replacement may itself have been replaced later.
  for (ValueId v = 0; v < graph_.num_values(); ++v) {
    ValueId target = map[v];
    for (int hops = 0; map[target] != target && hops < 64; ++hops) {
      target = map[target];
    }
    map[v] = target;
  }
  for (NodeId id = 0; id < graph_.num_nodes(); ++id) {
    Node& n = graph_.node(id);
    if (n.dead) continue;
    for (ValueId& v : n.operands) {
      if (v != kNoValue) v = map[v];
    }
    if (n.inference_alias != kNoValue)
      n.inference_alias = map[n.inference_alias];
  }
  replacements_.clear();
}

}  // namespace webnnm::ir
