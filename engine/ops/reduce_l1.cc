// reduceL1: y = the sum of |x| over `axes`.
// Operand: input (float32, float16, int32, uint32, int64, uint64). Options:
// axes, keepDimensions (see reduce.h). Result: the input's type, reduced shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/reduce.h"

namespace webnnm::ops {

namespace {

absl::Status ReduceL1Gradient(GradientBuilder& g) {
  std::vector<int> axes = ReducedAxes(g, g.type(g.x(0)).rank());
  // d/dx sum |x| = sign(x)
  ASSIGN_OR_RETURN(ValueId spread, ExpandedDy(g, axes));
  ASSIGN_OR_RETURN(ValueId sign, g.Op(OpKind::kSign, {g.x(0)}));
  return g.Set(0, g.Mul(spread, sign));
}

}  // namespace

const ir::OpDef& ReduceL1Op() {
  static const ir::OpDef def = WithGradient(
      [] {
        ir::OpDef d =
            ReduceOp(ir::OpKind::kReduceL1, "reduceL1", kReduceSumTypes);
        d.aliases = {"reduce1"};  // the specification's prose spelling
        return d;
      }(),
      ReduceL1Gradient);
  return def;
}

}  // namespace webnnm::ops
