// Planning one operation node of a graph for the Vulkan backend: its
// dispatches, from the planner of its operation (kernels/kernel.h).
//
// A node on float16, int8 or uint8 tensors whose planner has only the
// 32-bit type (float32, int32, uint32) runs widened: its operands of that
// type are cast into 32-bit scratch, the planner runs on those, and its
// results are cast back — exactly what computing in float32 and rounding
// each result (the CPU backend's float16 rule) or keeping the low bits
// gives. Scratch lives after the graph's tensors and is reused by every
// node (nodes run one after another). On a device with 16-bit storage the
// element-wise operations run float16 directly instead (their shaders'
// half variants compute in float32 and round once: the same results).
#ifndef WEBNNM_BACKENDS_VULKAN_PLAN_NODE_H_
#define WEBNNM_BACKENDS_VULKAN_PLAN_NODE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/vulkan/kernels/kernel.h"

namespace webnnm::backends::vulkan {

struct NodePlan {
  std::vector<Dispatch> dispatches;
  uint64_t scratch_bytes = 0;  // from `scratch_base`, while the node runs
};

// What Supports() asks about for `node`: the type its rule checks first
// (the values' for where).
ir::DType CheckedType(const ir::Graph& graph, const ir::Node& node);

// Whether the backend runs `op` on `dtype`, directly or widened (the
// backend's Supports()).
bool RunsOn(ir::OpKind op, ir::DType dtype);

// Whether the backend runs `node` (directly or widened); when not, `why`
// names the (operation, type).
bool CanRun(const ir::Graph& graph, const ir::Node& node, std::string& why);

// `range[v]`: where value v lives; `io_limits`: the device's limits (an
// OpIO whose node and tensors are ignored).
absl::StatusOr<NodePlan> PlanNode(const ir::Graph& graph, const ir::Node& node,
                                  const std::vector<Range>& range,
                                  uint64_t scratch_base, const OpIO& limits);

}  // namespace webnnm::backends::vulkan

#endif  // WEBNNM_BACKENDS_VULKAN_PLAN_NODE_H_
