// Element-wise groups: connected sets of small element-wise operations that
// one kernel computes in one pass (kernels/fused_elementwise.h). A training
// step's optimizer update, loss scaling and clipping are dozens of
// operations on a few (iris) to a few thousand numbers each; run one by one,
// each costs a kernel call that takes longer than its arithmetic.
//
// A member is an operation the fused kernel computes exactly as its own
// kernel does (FusedElementwiseSupports), not already in a post-op chain
// (fusion.h), whose result has its group's shape and whose operands
// broadcast to it (by the operation's rule). From `streaming_from` elements
// on (a large parameter's optimizer update; at most 2^20 in any case, as a
// broadcast operand needs an index the size of the group), members must
// have float32 results and operands of the group's shape or of one
// element, so that the kernel streams through memory once, and must not be
// activations that run on oneDNN's eltwise at that size; smaller groups
// take any operand that broadcasts. An operation
// joins every unsealed group of its shape it reads from (merging them), or
// starts a group. A group is sealed as soon as an operation outside it reads
// one of its values, so it never grows past an outside reader: the executable
// runs the whole group at its last member's step, and every outside reader
// comes later. Graph outputs read after the run and do not seal. Groups of one
// member are dropped.
#ifndef WEBNNM_BACKENDS_CPU_ELEMENTWISE_GROUPS_H_
#define WEBNNM_BACKENDS_CPU_ELEMENTWISE_GROUPS_H_

#include <cstdint>
#include <vector>

#include "engine/ir/graph.h"

namespace webnnm::backends::cpu {

struct ElementwiseGroup {
  std::vector<ir::NodeId> members;  // in the executable's order
};

// The groups of `graph` run in `order`; `taken` marks nodes that belong to
// something else already (post-op chains).
std::vector<ElementwiseGroup> PlanElementwiseGroups(
    const ir::Graph& graph, const std::vector<ir::NodeId>& order,
    const std::vector<bool>& taken, int64_t streaming_from);

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_ELEMENTWISE_GROUPS_H_
