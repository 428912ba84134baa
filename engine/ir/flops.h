// How much arithmetic a typed graph does in its heavy operations — matmul,
// gemm, conv2d, convTranspose2d (recurrent layers unroll into matmuls in a
// training graph) — counting a multiply-add as two FLOPs. The rest
// (element-wise work, reductions, copies) is not counted: it is memory
// traffic more than arithmetic.
#ifndef WEBNNM_ENGINE_IR_FLOPS_H_
#define WEBNNM_ENGINE_IR_FLOPS_H_

#include <cstdint>

#include "engine/ir/graph.h"

namespace webnnm::ir {

// The FLOPs of one node (0 for an operation that is not heavy, a dead node
// or one that is not an operation).
int64_t HeavyFlops(const Graph& graph, const Node& node);

// The sum over the graph's live nodes.
int64_t HeavyFlops(const Graph& graph);

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_FLOPS_H_
