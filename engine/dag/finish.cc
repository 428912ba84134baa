// The last passes: culling, decomposition, initialisation, and the result.
#include <algorithm>
#include <map>
#include <set>

#include "engine/base/strings.h"
#include "engine/dag/builder.h"

namespace webnnm::dag {
namespace {

// The weights' fan-in and fan-out from the operation that reads them.
std::pair<int64_t, int64_t> Fans(const ir::Node& consumer, int slot,
                                 const ir::TensorType& w) {
  const std::vector<int64_t>& s = w.shape;
  int r = w.rank();
  if (r == 0) return {1, 1};
  if (r == 1) return {s[0], s[0]};
  switch (consumer.op->kind) {
    case ir::OpKind::kMatmul:
      return {s[r - 2], s[r - 1]};
    case ir::OpKind::kGemm:
      if (consumer.attrs.GetBool("bTranspose", false)) return {s[1], s[0]};
      return {s[0], s[1]};
    case ir::OpKind::kConv2d:
    case ir::OpKind::kConvTranspose2d: {
      std::string layout = consumer.attrs.GetString(
          "filterLayout",
          consumer.op->kind == ir::OpKind::kConv2d ? "oihw" : "iohw");
      int64_t o = s[layout.find('o')], i = s[layout.find('i')];
      int64_t field = s[layout.find('h')] * s[layout.find('w')];
      if (consumer.op->kind == ir::OpKind::kConvTranspose2d) std::swap(o, i);
      return {i * field, o * field};
    }
    case ir::OpKind::kGru:
    case ir::OpKind::kGruCell:
    case ir::OpKind::kLstm:
    case ir::OpKind::kLstmCell:
      return {s[r - 1], s[r - 2]};
    default:
      (void)slot;
      return {s[0], s[r - 1]};
  }
}

}  // namespace

void DagBuilder::Cull() {
  const int n = graph_.num_nodes();
  std::vector<bool> from_input(n, false), reaches_output(n, false);
  absl::StatusOr<std::vector<ir::NodeId>> order = graph_.TopologicalOrder();
  if (!order.ok()) return;  // cycles were reported when layers were ordered
  for (ir::NodeId id : *order) {
    const ir::Node& node = graph_.node(id);
    bool in = node.kind == ir::NodeKind::kInput;
    for (ir::ValueId v : node.operands) {
      if (v != ir::kNoValue) in |= from_input[graph_.value(v).producer];
    }
    from_input[id] = in;
  }
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    const ir::Node& node = graph_.node(*it);
    if (node.kind == ir::NodeKind::kOutput) reaches_output[*it] = true;
    if (!reaches_output[*it]) continue;
    for (ir::ValueId v : node.operands) {
      if (v != ir::kNoValue) reaches_output[graph_.value(v).producer] = true;
    }
  }
  // Keep what lies on an input-to-output path, and everything feeding it
  // (parameters, constants, constant-only helpers such as zero states).
  std::vector<bool> keep(n, false);
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    const ir::Node& node = graph_.node(*it);
    bool on_path = node.kind == ir::NodeKind::kInput ||
                   (from_input[*it] && reaches_output[*it]);
    keep[*it] = keep[*it] || on_path;
    if (!keep[*it]) continue;
    for (ir::ValueId v : node.operands) {
      if (v != ir::kNoValue) keep[graph_.value(v).producer] = true;
    }
  }
  bool report = !culled_once_;
  culled_once_ = true;
  std::set<int> dropped_layers;
  for (ir::NodeId id = 0; id < n; ++id) {
    ir::Node& node = graph_.node(id);
    if (node.dead) continue;
    if (node.kind == ir::NodeKind::kOutput && !from_input[id]) {
      diagnostics_.Error(node.range, StrCat("output '", node.name,
                                            "' does not depend on any input"));
    }
    if (keep[id]) continue;
    node.dead = true;
    if (node.kind == ir::NodeKind::kOp && node.layer >= 0) {
      dropped_layers.insert(node.layer);
    }
  }
  if (!report) return;
  std::vector<std::vector<ir::NodeId>> readers = graph_.ConsumerMap();
  for (const Endpoint& input : inputs_) {
    if (readers[graph_.output(input.node)].empty()) {
      diagnostics_.Warning(input.range, StrCat("input '", input.name,
                                               "' is not used by any output"));
    }
  }
  std::map<int, size_t> dropped_per_section;
  for (int layer : dropped_layers) {
    ++dropped_per_section[model_.layers[layer].section];
  }
  std::set<int> warned_sections;
  for (int layer : dropped_layers) {
    const model::Layer& l = model_.layers[layer];
    const model::Section& section = model_.sections[l.section];
    bool whole = dropped_per_section[l.section] == section.layers.size();
    if (whole) {
      if (warned_sections.insert(l.section).second) {
        diagnostics_.Warning(section.range,
                             StrCat("block '", section.name,
                                    "' does not lead to any output; its "
                                    "layers are left out"));
      }
      continue;
    }
    diagnostics_.Warning(l.range, StrCat(l.op->name,
                                         " does not lead to any output and is "
                                         "left out",
                                         l.context));
  }
}

void DagBuilder::Decompose() {
  const int n = graph_.num_nodes();
  for (ir::NodeId id = 0; id < n; ++id) {
    const ir::Node& node = graph_.node(id);
    if (node.dead || node.kind != ir::NodeKind::kOp ||
        node.op->decompose == nullptr) {
      continue;
    }
    rewriter_.SetOrigin(node.range, node.layer);
    absl::Status status = node.op->decompose(rewriter_, id);
    if (!status.ok()) {
      diagnostics_.Error(graph_.node(id).range,
                         StrCat("cannot decompose ", graph_.node(id).op->name,
                                ": ", status.message()));
    }
  }
  rewriter_.ApplyReplacements();
}

void DagBuilder::AnnotateInit() {
  std::vector<std::vector<ir::NodeId>> readers = graph_.ConsumerMap();
  for (ir::NodeId id = 0; id < graph_.num_nodes(); ++id) {
    ir::Node& param = graph_.node(id);
    if (param.dead || param.kind != ir::NodeKind::kParameter) continue;
    ir::ValueId value = graph_.output(id);
    const std::vector<ir::NodeId>& consumers = readers[value];
    if (consumers.empty()) continue;
    const ir::Node& consumer = graph_.node(consumers.front());
    int slot = static_cast<int>(
        std::find(consumer.operands.begin(), consumer.operands.end(), value) -
        consumer.operands.begin());
    ir::ParamRole role = param.parameter.role;
    if (param.parameter.trainable && consumer.kind == ir::NodeKind::kOp) {
      role = consumer.op->operands[consumer.op->variadic() ? 0 : slot].param;
    }
    param.parameter.role = role;
    auto [fan_in, fan_out] = Fans(consumer, slot, graph_.value(value).type);
    param.parameter.fan_in = fan_in;
    param.parameter.fan_out = fan_out;
    switch (role) {
      case ir::ParamRole::kBias:
      case ir::ParamRole::kSlope:
      case ir::ParamRole::kRunningMean:
        param.parameter.init = ir::Init::kZeros;
        break;
      case ir::ParamRole::kScale:
      case ir::ParamRole::kRunningVariance:
        param.parameter.init = ir::Init::kOnes;
        break;
      case ir::ParamRole::kGlorotWeight:
      case ir::ParamRole::kNone:
        param.parameter.init = ir::Init::kGlorot;
        break;
      case ir::ParamRole::kWeight: {
        // He before the relu family, Glorot otherwise: follow the result
        // through element-wise and normalization steps to its activation.
        ir::Init init = ir::Init::kGlorot;
        ir::ValueId v = consumer.outputs[0];
        for (int step = 0; step < 16; ++step) {
          const std::vector<ir::NodeId>& next = readers[v];
          if (next.empty() || graph_.node(next[0]).kind != ir::NodeKind::kOp) {
            break;
          }
          const ir::OpDef& op = *graph_.node(next[0]).op;
          if (op.weight_init != ir::WeightInit::kNone) {
            init = op.weight_init == ir::WeightInit::kHe ? ir::Init::kHe
                                                         : ir::Init::kGlorot;
            break;
          }
          bool passes = op.category == ir::OpCategory::kElementwise ||
                        op.category == ir::OpCategory::kNormalization ||
                        op.category == ir::OpCategory::kCast ||
                        op.kind == ir::OpKind::kReshape ||
                        op.kind == ir::OpKind::kTranspose;
          if (!passes) break;
          v = graph_.output(next[0]);
        }
        param.parameter.init = init;
        break;
      }
    }
  }
}

Dag DagBuilder::Finish() {
  Dag dag;
  dag.name = model_.name;
  dag.declared_steps = declared_steps_;
  for (const auto& [node, layer] : widened_) {
    if (!graph_.node(node).dead) dag.widened.push_back(layer);
  }
  std::vector<ir::NodeId> map = graph_.Compact();
  for (Endpoint e : inputs_) {
    e.node = map[e.node];
    if (e.node >= 0) dag.inputs.push_back(e);
  }
  for (Endpoint e : outputs_) {
    e.node = map[e.node];
    if (e.node < 0) continue;
    int section = model_.FindSection(e.name);
    if (section >= 0) {
      const model::Section& s = model_.sections[section];
      e.loss = s.loss;
      e.alpha = s.alpha;
      e.delta = s.delta;
      e.gamma = s.gamma;
    }
    dag.outputs.push_back(e);
  }
  std::set<ir::NodeId> listed;
  for (const model::Parameter& p : model_.parameters) {
    auto it = parameters_.find(p.name);
    if (it == parameters_.end() || map[it->second] < 0) continue;
    dag.parameters.push_back(map[it->second]);
    listed.insert(map[it->second]);
  }
  for (ir::NodeId id = 0; id < graph_.num_nodes(); ++id) {
    if (graph_.node(id).kind == ir::NodeKind::kParameter && !listed.count(id)) {
      dag.parameters.push_back(id);
    }
  }
  std::set<int> kept_layers;
  for (const ir::Node& node : graph_.nodes()) {
    if (node.layer >= 0) kept_layers.insert(node.layer);
  }
  for (const model::Layer& layer : model_.layers) {
    if (!kept_layers.count(layer.id) || layer_results_[layer.id].empty()) {
      continue;
    }
    LayerInfo info;
    info.op = layer.op->name;
    info.names = layer.names;
    info.result = result_types_.count(layer.id) ? result_types_[layer.id]
                                                : ir::TensorType();
    info.range = layer.range;
    info.section = model_.sections[layer.section].name;
    dag.layers.push_back(std::move(info));
  }
  dag.graph = std::move(graph_);
  return dag;
}

}  // namespace webnnm::dag
