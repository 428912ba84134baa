#include "backends/cpu/fusion.h"

#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"

namespace webnnm::backends::cpu {
namespace {

bool IsAnchor(const ir::Graph& graph, const ir::Node& node,
              int64_t library_minimum_elements) {
  if (node.kind != ir::NodeKind::kOp) return false;
  // conv2d is an anchor only on our direct kernel of one input channel:
  // oneDNN 2.6 runs it on far slower code with any post-op on our plain
  // layouts (measured: 64x1x28x28 * 8x1x3x3 with bias and relu, 1.5 ms
  // fused against 0.28 ms as three kernels).
  if (node.op->kind == ir::OpKind::kConv2d) {
    return SingleChannelConv2dFuses(graph, node);
  }
  if (node.op->kind != ir::OpKind::kMatmul) return false;
  // A matmul too small for oneDNN runs on a plain loop without post-ops
  // (kernels/matmul.cc); its links are better in an element-wise group.
  const ir::TensorType& y = graph.value(node.outputs[0]).type;
  const ir::TensorType& a = graph.value(node.operands[0]).type;
  if (a.shape.empty() ||
      ElementCount(y.shape) * a.shape.back() < library_minimum_elements) {
    return false;
  }
  return y.dtype == ir::DType::kFloat32;
}

// Whether `node` can follow a chain whose current value is `v`, given the
// position of the anchor in the order and of every node.
bool IsLink(const ir::Graph& graph, const ir::Node& anchor,
            const ir::Node& node, ir::ValueId v, int anchor_position,
            const std::vector<int>& position) {
  if (node.kind != ir::NodeKind::kOp || node.outputs.size() != 1) return false;
  const ir::TensorType& value = graph.value(v).type;
  const ir::TensorType& out = graph.value(node.outputs[0]).type;
  if (!out.SameShapeAndType(value)) return false;
  if (anchor.op->kind == ir::OpKind::kConv2d &&
      !SingleChannelConv2dLink(graph, node, v)) {
    return false;
  }
  if (DnnlEltwiseFusible(node)) return node.operands[0] == v;
  switch (node.op->kind) {
    case ir::OpKind::kAdd:
    case ir::OpKind::kMul:
    case ir::OpKind::kSub:
    case ir::OpKind::kDiv:
      break;
    default:
      return false;
  }
  if (node.operands.size() != 2) return false;
  const bool commutes =
      node.op->kind == ir::OpKind::kAdd || node.op->kind == ir::OpKind::kMul;
  int slot = node.operands[0] == v ? 0 : 1;
  if (node.operands[slot] != v || node.operands[1 - slot] == v) return false;
  if (slot == 1 && !commutes) return false;
  ir::ValueId other = node.operands[1 - slot];
  if (graph.value(other).type.dtype != ir::DType::kFloat32) return false;
  // The other operand must exist when the anchor runs.
  ir::NodeId producer = graph.value(other).producer;
  return graph.node(producer).kind != ir::NodeKind::kOp ||
         position[producer] < anchor_position;
}

}  // namespace

std::vector<FusionChain> PlanFusion(const ir::Graph& graph,
                                    const std::vector<ir::NodeId>& order,
                                    int64_t library_minimum_elements) {
  std::vector<int> position(graph.num_nodes(), -1);
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  // Who reads each value (output nodes included), once per operand slot.
  std::vector<std::vector<ir::NodeId>> readers(graph.num_values());
  for (ir::NodeId id : order) {
    for (ir::ValueId v : graph.node(id).operands) {
      if (v != ir::kNoValue) readers[v].push_back(id);
    }
  }
  std::vector<bool> taken(graph.num_nodes(), false);
  std::vector<FusionChain> chains;
  for (ir::NodeId id : order) {
    const ir::Node& anchor = graph.node(id);
    if (taken[id] || !IsAnchor(graph, anchor, library_minimum_elements)) {
      continue;
    }
    FusionChain chain{id, {}};
    ir::ValueId v = anchor.outputs[0];
    while (static_cast<int>(chain.links.size()) < kMaxLinks &&
           readers[v].size() == 1) {
      ir::NodeId next = readers[v][0];
      if (taken[next] ||
          !IsLink(graph, anchor, graph.node(next), v, position[id], position)) {
        break;
      }
      chain.links.push_back(next);
      taken[next] = true;
      v = graph.node(next).outputs[0];
    }
    if (!chain.links.empty()) {
      taken[id] = true;
      chains.push_back(std::move(chain));
    }
  }
  return chains;
}

}  // namespace webnnm::backends::cpu
