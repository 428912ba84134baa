#include "engine/train/batch_statistics.h"

#include <tuple>

#include "engine/base/status_macros.h"
#include "engine/ir/op_def.h"

namespace webnnm::train {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

absl::Status UseBatchStatistics(ir::Graph& graph, ir::GraphOps& ops,
                                ValueId mask,
                                std::vector<RunningUpdate>& running) {
  const int count = graph.num_nodes();
  for (ir::NodeId id = 0; id < count; ++id) {
    const ir::Node& node = graph.node(id);
    if (node.dead || node.kind != ir::NodeKind::kOp ||
        node.op->kind != OpKind::kBatchNormalization ||
        node.operands.size() < 3) {
      continue;
    }
    const ValueId x = node.operands[0];
    const ValueId running_mean = node.operands[1];
    const ValueId running_var = node.operands[2];
    const ir::Node& pm = graph.node(graph.value(running_mean).producer);
    const ir::Node& pv = graph.node(graph.value(running_var).producer);
    if (pm.kind != ir::NodeKind::kParameter ||
        pv.kind != ir::NodeKind::kParameter ||
        pm.parameter.role != ir::ParamRole::kRunningMean ||
        pv.parameter.role != ir::ParamRole::kRunningVariance) {
      continue;  // statistics the user gave
    }
    const std::string mean_name = pm.name, var_name = pv.name;
    const std::vector<int64_t> shape = ops.shape(x);
    const int rank = static_cast<int>(shape.size());
    int axis = static_cast<int>(node.attrs.GetInt("axis", 1));
    if (axis < 0) axis += rank;
    const DType dtype = ops.type(x).dtype;
    std::vector<int> others;
    int64_t per_row = 1;
    for (int i = 0; i < rank; ++i) {
      if (i == axis) continue;
      others.push_back(i);
      if (i != 0) per_row *= shape[i];
    }
    // The mask along the batch axis, broadcast over the rest.
    std::vector<int64_t> mask_shape(rank, 1);
    mask_shape[0] = shape[0];
    ASSIGN_OR_RETURN(ValueId m, ops.Reshape(mask, mask_shape));
    ASSIGN_OR_RETURN(m, ops.Cast(m, dtype));
    ASSIGN_OR_RETURN(ValueId rows, ops.SumAll(mask));
    ir::Attrs at_least_one;
    at_least_one.Set("minValue", 1.0);
    ASSIGN_OR_RETURN(rows, ops.Op(OpKind::kClamp, {rows}, at_least_one));
    ASSIGN_OR_RETURN(ValueId n,
                     ops.MulScalar(rows, static_cast<double>(per_row)));
    ASSIGN_OR_RETURN(ValueId inverse, ops.Unary(OpKind::kReciprocal, n));
    ASSIGN_OR_RETURN(inverse, ops.Cast(inverse, dtype));
    ASSIGN_OR_RETURN(ValueId masked, ops.Mul(x, m));
    ASSIGN_OR_RETURN(ValueId sum, ops.ReduceSum(masked, others, false));
    ASSIGN_OR_RETURN(ValueId mean, ops.Mul(sum, inverse));
    ASSIGN_OR_RETURN(ValueId mean_full, ops.ExpandReduced(mean, shape, others));
    ASSIGN_OR_RETURN(ValueId centered, ops.Sub(x, mean_full));
    ASSIGN_OR_RETURN(ValueId square, ops.Mul(centered, centered));
    ASSIGN_OR_RETURN(ValueId masked_square, ops.Mul(square, m));
    ASSIGN_OR_RETURN(ValueId square_sum,
                     ops.ReduceSum(masked_square, others, false));
    ASSIGN_OR_RETURN(ValueId variance, ops.Mul(square_sum, inverse));
    graph.node(id).operands[1] = mean;
    graph.node(id).operands[2] = variance;
    // Running statistics: 0.9 old + 0.1 batch (in the parameters' type).
    const DType state = ops.type(running_mean).dtype;
    for (auto [old, batch, name] :
         {std::tuple{running_mean, mean, mean_name},
          std::tuple{running_var, variance, var_name}}) {
      ASSIGN_OR_RETURN(ValueId b, ops.Cast(batch, state));
      ASSIGN_OR_RETURN(ValueId kept, ops.MulScalar(old, 0.9));
      ASSIGN_OR_RETURN(ValueId moved, ops.MulScalar(b, 0.1));
      ASSIGN_OR_RETURN(ValueId updated, ops.Add(kept, moved));
      running.push_back({name, old, updated});
    }
  }
  return absl::OkStatus();
}

}  // namespace webnnm::train
