// clamp: y = min(max(x, minValue), maxValue), element-wise.
// Operand: input (any numeric type). Options: minValue (default -infinity),
// maxValue (default +infinity; NaN also means no bound); minValue must not
// exceed maxValue once both are cast to the input's type. The model language
// also takes the specification's spellings min= and max=.
// Result: the input's type and shape.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status ClampGradient(GradientBuilder& g) {
  // The gradient passes where minValue <= x <= maxValue.
  double lo = g.attrs().GetFloat("minValue", -INFINITY);
  double hi = g.attrs().GetFloat("maxValue", INFINITY);
  ValueId grad = g.dy();
  if (std::isfinite(lo)) {
    ASSIGN_OR_RETURN(ValueId inside,
                     CompareScalar(g, OpKind::kGreaterOrEqual, g.x(0), lo));
    ASSIGN_OR_RETURN(grad, g.WhereOrZero(inside, grad));
  }
  if (std::isfinite(hi)) {
    ASSIGN_OR_RETURN(ValueId inside,
                     CompareScalar(g, OpKind::kLesserOrEqual, g.x(0), hi));
    ASSIGN_OR_RETURN(grad, g.WhereOrZero(inside, grad));
  }
  return g.Set(0, grad);
}

absl::StatusOr<Types> InferClamp(const InferContext& c) {
  double lo =
      c.attrs.GetFloat("minValue", -std::numeric_limits<double>::infinity());
  double hi =
      c.attrs.GetFloat("maxValue", std::numeric_limits<double>::infinity());
  // A NaN bound clamps nothing on its side (as WebNN's vectors expect).
  if (std::isnan(lo)) lo = -std::numeric_limits<double>::infinity();
  if (std::isnan(hi)) hi = std::numeric_limits<double>::infinity();
  DType type = c.operand(0).dtype;
  if (!ir::IsFloat(type)) {
    // The bounds are cast to the input's type before they are compared.
    auto cast = [&](double v) {
      v = std::trunc(v);
      return std::min(std::max(v, ir::MinValue(type)), ir::MaxValue(type));
    };
    lo = cast(lo);
    hi = cast(hi);
  }
  if (lo > hi) {
    return AttrError("minValue", StrCat("clamp minValue ", lo,
                                        " is greater than maxValue ", hi));
  }
  return InferSameAsInput(c);
}

}  // namespace

const ir::OpDef& ClampOp() {
  static const ir::OpDef def = WithGradient(
      [] {
        ir::OpDef d = ActivationOp(
            ir::OpKind::kClamp, "clamp", ir::kNumericTypes, ir::WeightInit::kHe,
            {{.name = "minValue", .kind = ir::AttrKind::kFloat, .alias = "min"},
             {.name = "maxValue",
              .kind = ir::AttrKind::kFloat,
              .alias = "max"}});
        d.infer = InferClamp;
        return d;
      }(),
      ClampGradient);
  return def;
}

}  // namespace webnnm::ops
