// argMin: the index of the smallest element along `axis` (ties: the
// first). See arg_min_max.h for operands, options and result.
#include "engine/ops/arg_min_max.h"

namespace webnnm::ops {

const ir::OpDef& ArgMinOp() {
  static const ir::OpDef def = ArgReduceOp(ir::OpKind::kArgMin, "argMin");
  return def;
}

}  // namespace webnnm::ops
