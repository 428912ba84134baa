// Profile(): what the expert system reads of a model's DAG (expert.h).
#include <set>
#include <string>

#include "engine/expert/expert.h"
#include "engine/ir/op_def.h"

namespace webnnm::train {
namespace {

// Parameter-heavy operations: matmul, gemm and the convolutions.
bool Heavy(const ir::Node& node) {
  return node.kind == ir::NodeKind::kOp &&
         (node.op->category == ir::OpCategory::kMatrix ||
          node.op->category == ir::OpCategory::kConvolution);
}

}  // namespace

DagProfile Profile(const dag::Dag& dag) {
  DagProfile p;
  const ir::Graph& g = dag.graph;
  absl::StatusOr<std::vector<ir::NodeId>> order = g.TopologicalOrder();
  if (!order.ok()) return p;
  std::vector<int> depth(g.num_values(), 0);
  std::set<std::string> vulnerable;
  for (ir::NodeId id : *order) {
    const ir::Node& node = g.node(id);
    if (node.kind == ir::NodeKind::kParameter && node.parameter.trainable) {
      int64_t n = 1;
      for (int64_t d : g.value(node.outputs[0]).type.shape) n *= d;
      p.parameters += n;
    }
    if (node.kind == ir::NodeKind::kInput) {
      int64_t n = 1;
      for (int64_t d : g.value(node.outputs[0]).type.FeatureShape()) n *= d;
      p.input_size = std::max(p.input_size, n);
    }
    if (node.kind != ir::NodeKind::kOp) continue;
    int d = 0;
    for (ir::ValueId v : node.operands) {
      if (v != ir::kNoValue) d = std::max(d, depth[v]);
    }
    const ir::TensorType& out = g.value(node.outputs[0]).type;
    bool f16 = out.dtype == ir::DType::kFloat16;
    if (Heavy(node)) {
      ++d;
      ++p.heavy;
      if (f16) ++p.heavy_float16;
      for (ir::ValueId v : node.operands) {
        if (f16 || v == ir::kNoValue) continue;
        const ir::Node& producer = g.node(g.value(v).producer);
        if (producer.kind != ir::NodeKind::kParameter ||
            !producer.parameter.trainable) {
          continue;
        }
        int64_t n = 1;
        for (int64_t s : g.value(v).type.shape) n *= s;
        p.heavy_float32_parameters += n;
      }
      int64_t width = 1;
      for (int64_t s : out.FeatureShape()) width *= s;
      p.width = std::max(p.width, width);
    }
    if (node.op->category == ir::OpCategory::kNormalization) {
      p.normalization = true;
    }
    switch (node.op->kind) {
      case ir::OpKind::kLstm:
      case ir::OpKind::kLstmCell:
      case ir::OpKind::kGru:
      case ir::OpKind::kGruCell:
        p.recurrent = true;
        break;
      default:
        break;
    }
    if (f16) ++p.float16_ops;
    if (node.op->kind == ir::OpKind::kRandomUniform) ++p.dropout;
    if (f16 && ir::OverflowsFloat16(*node.op)) {
      vulnerable.insert(node.op->name);
    }
    for (ir::ValueId v : node.outputs) depth[v] = d;
    p.depth = std::max(p.depth, d);
  }
  p.dropout_density =
      p.heavy > 0 ? static_cast<double>(p.dropout) / p.heavy : 0.0;
  p.float16_vulnerable.assign(vulnerable.begin(), vulnerable.end());
  return p;
}

}  // namespace webnnm::train
