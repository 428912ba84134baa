// identity: y = x (a copy), element-wise.
// Operand: input (any). Result: the input's type and shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& IdentityOp() {
  static const ir::OpDef def =
      UnaryOp(ir::OpKind::kIdentity, "identity", ir::kAllTypes);
  return def;
}

}  // namespace webnnm::ops
