// Post-op fusion: element-wise operations that follow a matmul run inside
// its oneDNN primitive (as post-ops) instead of as kernels of their own,
// saving a pass over memory each; a per-channel add and relu after a
// conv2d of one input channel run in our direct kernel's last pass
// (kernels/conv_single_channel.cc). (Other conv2d would be next, but oneDNN
// 2.6 runs convolutions on our plain layouts far slower with post-ops.)
//
// PlanFusion finds chains anchor → link 1 → link 2 ... (at most kMaxLinks)
// where the anchor is a float32 matmul large enough for oneDNN (at least
// `library_minimum_elements` multiply-adds) or a conv2d of one input
// channel (its links: relu and adds of one value per channel), each value
// along the chain is read by the next link only (not by a graph output or
// any other node), and each link is
//   - an activation oneDNN's eltwise computes (DnnlEltwiseFusible), or
//   - add, sub, mul or div of the chain's value with another tensor that
//     does not enlarge it (sub and div: the chain's value on the left),
//     the other tensor computed before the anchor.
// The executable then runs the whole chain at the anchor's step: every
// value a member produces or reads lives across the chain's steps
// (ExtendLifetimes), so the buffers stay apart whether or not the anchor's
// kernel accepts the links (a kernel may still decline, and the links then
// get kernels of their own).
#ifndef WEBNNM_BACKENDS_CPU_FUSION_H_
#define WEBNNM_BACKENDS_CPU_FUSION_H_

#include <cstdint>
#include <vector>

#include "engine/ir/graph.h"

namespace webnnm::backends::cpu {

inline constexpr int kMaxLinks = 4;

struct FusionChain {
  ir::NodeId anchor = -1;
  std::vector<ir::NodeId> links;  // in order; each reads the previous
};

// The chains of `graph` run in `order` (nodes of at most one chain each).
std::vector<FusionChain> PlanFusion(const ir::Graph& graph,
                                    const std::vector<ir::NodeId>& order,
                                    int64_t library_minimum_elements);

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_FUSION_H_
