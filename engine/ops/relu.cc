// relu: y = max(0, x), element-wise.
// Operand: input (float32, float16, int32, int8, int64). Result: the input's
// type and shape. Weights before it are initialised with He.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

// Reads the result (y > 0 exactly where x > 0; a NaN is neither): the
// input need not live until the backward pass, and a layer's bias add and
// relu can run inside the kernel before them (backends/cpu/fusion.h).
absl::Status ReluGradient(GradientBuilder& g) {
  ASSIGN_OR_RETURN(ValueId positive,
                   CompareScalar(g, OpKind::kGreater, g.y(0), 0));
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
