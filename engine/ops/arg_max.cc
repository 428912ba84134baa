// argMax: the index of the largest element along `axis` (ties: the
// first). See arg_min_max.h for operands, options and result.
#include "engine/ops/arg_min_max.h"

namespace webnnm::ops {

const ir::OpDef& ArgMaxOp() {
  static const ir::OpDef def = ArgReduceOp(ir::OpKind::kArgMax, "argMax");
  return def;
}

}  // namespace webnnm::ops
