// relu: y = max(0, x), element-wise.
// Operand: input (float32, float16, int32, int8, int64). Result: the input's
// type and shape. Weights before it are initialised with He.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status ReluGradient(GradientBuilder& g) {
  ASSIGN_OR_RETURN(ValueId positive,
                   CompareScalar(g, OpKind::kGreater, g.x(0), 0));
  return g.Set(0, g.WhereOrZero(positive, g.dy()));
}

}  // namespace

const ir::OpDef& ReluOp() {
  static const ir::OpDef def =
      WithGradient(ActivationOp(ir::OpKind::kRelu, "relu", ir::kSignedTypes,
                                ir::WeightInit::kHe),
                   ReluGradient);
  return def;
}

}  // namespace webnnm::ops
