#include "engine/autodiff/autodiff.h"

#include <utility>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/gradient.h"
#include "engine/ir/op_def.h"
#include "engine/ir/rewriter.h"

namespace webnnm::autodiff {

using ir::Graph;
using ir::kNoValue;
using ir::Node;
using ir::NodeId;
using ir::NodeKind;
using ir::ValueId;

namespace {

// Values that depend on a value of `wrt` (forward) and values that reach a
// seeded value (backward), indexed by value id.
struct Reach {
  std::vector<bool> from_wrt;
  std::vector<bool> to_seed;
};

absl::StatusOr<Reach> ComputeReach(const Graph& graph,
                                   const std::vector<Seed>& seeds,
                                   const std::vector<ValueId>& wrt,
                                   const std::vector<NodeId>& order) {
  Reach reach{std::vector<bool>(graph.num_values(), false),
              std::vector<bool>(graph.num_values(), false)};
  for (ValueId v : wrt) reach.from_wrt[v] = true;
  for (NodeId id : order) {
    const Node& node = graph.node(id);
    if (node.kind != NodeKind::kOp) continue;
    bool any = false;
    for (ValueId v : node.operands) any |= v != kNoValue && reach.from_wrt[v];
    if (!any) continue;
    for (ValueId out : node.outputs) {
      if (ir::IsFloat(graph.value(out).type.dtype)) reach.from_wrt[out] = true;
    }
  }
  for (const Seed& s : seeds) reach.to_seed[s.value] = true;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node& node = graph.node(*it);
    if (node.kind != NodeKind::kOp) continue;
    bool any = false;
    for (ValueId out : node.outputs) any |= reach.to_seed[out];
    if (!any) continue;
    for (ValueId v : node.operands) {
      if (v != kNoValue) reach.to_seed[v] = true;
    }
  }
  return reach;
}

// " (layer 3)" for nodes that come from a model layer.
std::string Where(const Node& node) {
  if (node.layer < 0) return "";
  return StrCat(" (layer ", node.layer, ")");
}

// Replaces recurrent operations on the differentiated path by their steps.
absl::Status Unroll(Graph& graph, const ir::Limits& limits,
                    std::vector<Seed>& seeds, std::vector<ValueId>& wrt) {
  ASSIGN_OR_RETURN(std::vector<NodeId> order, graph.TopologicalOrder());
  ASSIGN_OR_RETURN(Reach reach, ComputeReach(graph, seeds, wrt, order));
  ir::GraphRewriter rewriter(graph, limits);
  bool changed = false;
  for (NodeId id : order) {
    const Node& node = graph.node(id);
    if (node.kind != NodeKind::kOp || node.op->unroll == nullptr) continue;
    bool on_path = false;
    for (ValueId out : node.outputs) on_path |= reach.to_seed[out];
    bool depends = false;
    for (ValueId v : node.operands)
      depends |= v != kNoValue && reach.from_wrt[v];
    if (!on_path || !depends) continue;
    rewriter.SetOrigin(node.range, node.layer);
    absl::Status status = node.op->unroll(rewriter, id);
    if (!status.ok()) {
      return absl::InvalidArgumentError(StrCat(
          "cannot unroll ", graph.node(id).op->name, Where(graph.node(id)),
          " to differentiate it: ", status.message()));
    }
    changed = true;
  }
  if (!changed) return absl::OkStatus();
  for (Seed& s : seeds) s.value = rewriter.Resolve(s.value);
  for (ValueId& v : wrt) v = rewriter.Resolve(v);
  rewriter.ApplyReplacements();
  return absl::OkStatus();
}

// Sums the contributions to one value's gradient.
absl::StatusOr<ValueId> Sum(ir::GraphRewriter& rewriter,
                            const std::vector<ValueId>& parts) {
  ValueId total = parts.front();
  for (size_t i = 1; i < parts.size(); ++i) {
    ASSIGN_OR_RETURN(total, rewriter.Add(ir::OpKind::kAdd, {total, parts[i]}));
  }
  return total;
}

}  // namespace

absl::StatusOr<std::vector<ValueId>> Differentiate(Graph& graph,
                                                   const ir::Limits& limits,
                                                   std::vector<Seed>& seeds,
                                                   std::vector<ValueId>& wrt) {
  for (const Seed& s : seeds) {
    if (s.value == kNoValue || s.seed == kNoValue ||
        !graph.value(s.seed).type.SameShapeAndType(graph.value(s.value).type)) {
      return absl::InvalidArgumentError(
          "a gradient seed must have its value's type and shape");
    }
  }
  RETURN_IF_ERROR(Unroll(graph, limits, seeds, wrt));
  ASSIGN_OR_RETURN(std::vector<NodeId> order, graph.TopologicalOrder());
  ASSIGN_OR_RETURN(Reach reach, ComputeReach(graph, seeds, wrt, order));

  std::vector<std::vector<ValueId>> parts(graph.num_values());
  for (const Seed& s : seeds) parts[s.value].push_back(s.seed);

  ir::GraphRewriter rewriter(graph, limits);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    NodeId id = *it;
    if (graph.node(id).kind != NodeKind::kOp) continue;
    // Copies: the graph grows while the rule runs.
    const std::vector<ValueId> operands = graph.node(id).operands;
    const std::vector<ValueId> outputs = graph.node(id).outputs;
    const ir::OpDef& op = *graph.node(id).op;
    std::vector<bool> wanted(operands.size(), false);
    bool any_wanted = false;
    for (size_t i = 0; i < operands.size(); ++i) {
      ValueId v = operands[i];
      wanted[i] = v != kNoValue && reach.from_wrt[v] &&
                  ir::IsFloat(graph.value(v).type.dtype);
      any_wanted |= wanted[i];
    }
    if (!any_wanted) continue;
    std::vector<ValueId> output_grads(outputs.size(), kNoValue);
    bool any_grad = false;
    rewriter.SetOrigin(graph.node(id).range, graph.node(id).layer);
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (parts[outputs[i]].empty()) continue;
      ASSIGN_OR_RETURN(output_grads[i], Sum(rewriter, parts[outputs[i]]));
      any_grad = true;
    }
    if (!any_grad) continue;
    if (op.gradient == nullptr) {
      return absl::UnimplementedError(
          StrCat(op.name, Where(graph.node(id)),
                 " is not differentiable: no gradient flows through it"));
    }
    ir::GradientBuilder builder(rewriter, id, std::move(output_grads),
                                std::move(wanted));
    absl::Status status = op.gradient(builder);
    if (!status.ok()) {
      return absl::Status(
          status.code(), StrCat("differentiating ", op.name,
                                Where(graph.node(id)), ": ", status.message()));
    }
    parts.resize(graph.num_values());
    for (size_t i = 0; i < operands.size(); ++i) {
      if (builder.grads()[i] != kNoValue) {
        parts[operands[i]].push_back(builder.grads()[i]);
      }
    }
  }

  std::vector<ValueId> result;
  for (ValueId v : wrt) {
    if (!parts[v].empty()) {
      ASSIGN_OR_RETURN(ValueId g, Sum(rewriter, parts[v]));
      result.push_back(g);
      continue;
    }
    const ir::TensorType type = graph.value(v).type;
    ValueId zero = rewriter.Scalar(0, type.dtype);
    if (type.shape.empty()) {
      result.push_back(zero);
    } else {
      ir::Attrs attrs;
      attrs.Set("newShape", type.shape);
      ASSIGN_OR_RETURN(ValueId z,
                       rewriter.Add(ir::OpKind::kExpand, {zero}, attrs));
      result.push_back(z);
    }
  }
  return result;
}

}  // namespace webnnm::autodiff
