#include "engine/ir/flops.h"

#include <vector>

namespace webnnm::ir {
namespace {

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// The channel axis of an image operand in `layout` (nchw or nhwc).
int ChannelAxis(const Attrs& attrs) {
  return attrs.GetString("inputLayout", "nchw") == "nhwc" ? 3 : 1;
}

}  // namespace

int64_t HeavyFlops(const Graph& graph, const Node& node) {
  if (node.kind != NodeKind::kOp || node.dead || node.outputs.empty()) {
    return 0;
  }
  auto shape = [&](int slot) -> const std::vector<int64_t>& {
    return graph.value(node.operands[slot]).type.shape;
  };
  const std::vector<int64_t>& out = graph.value(node.outputs[0]).type.shape;
  switch (node.op->kind) {
    case OpKind::kMatmul: {
      const std::vector<int64_t>& a = shape(0);
      return a.empty() ? 0 : 2 * Elements(out) * a.back();
    }
    case OpKind::kGemm: {
      const std::vector<int64_t>& a = shape(0);
      if (a.size() != 2) return 0;
      const int64_t k = node.attrs.GetBool("aTranspose", false) ? a[0] : a[1];
      return 2 * Elements(out) * k;
    }
    case OpKind::kConv2d: {
      // Each output element: (input channels / groups) x kh x kw
      // multiply-adds, which is the filter's size over the output channels.
      const int64_t oc = out[ChannelAxis(node.attrs)];
      return oc > 0 ? 2 * Elements(out) * (Elements(shape(1)) / oc) : 0;
    }
    case OpKind::kConvTranspose2d: {
      // Each input element spreads over (output channels / groups) x kh x
      // kw outputs: the filter's size over the input channels.
      const std::vector<int64_t>& in = shape(0);
      const int64_t ic = in[ChannelAxis(node.attrs)];
      return ic > 0 ? 2 * Elements(in) * (Elements(shape(1)) / ic) : 0;
    }
    default:
      return 0;
  }
}

int64_t HeavyFlops(const Graph& graph) {
  int64_t flops = 0;
  for (const Node& node : graph.nodes()) flops += HeavyFlops(graph, node);
  return flops;
}

}  // namespace webnnm::ir
