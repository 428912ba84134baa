// prelu: y = x if x >= 0 else slope * x, element-wise; x and slope
// broadcast together (WebNN allows either to be the larger).
// Operands: input, slope (float32, float16, int32, int8, int64; the same
// type). A trainable slope gets one value per channel of the input,
// initialised to zeros (prelu starts as relu). Result: the input's type,
// the broadcast shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status PreluGradient(GradientBuilder& g) {
  // x > 0: dx = dy; else dx = dy slope, dslope = dy x.
  ASSIGN_OR_RETURN(ValueId positive,
                   CompareScalar(g, OpKind::kGreater, g.x(0), 0));
  if (g.wants(0)) {
    ASSIGN_OR_RETURN(ValueId sloped, g.Mul(g.dy(), g.x(1)));
    RETURN_IF_ERROR(g.Set(0, g.Where(positive, g.dy(), sloped)));
  }
  if (g.wants(1)) {
    ASSIGN_OR_RETURN(ValueId product, g.Mul(g.dy(), g.x(0)));
    RETURN_IF_ERROR(
        g.Set(1, g.Where(positive, g.ScalarLike(0, product), product)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Types> InferPrelu(const InferContext& c) {
  absl::StatusOr<TensorType> out = Broadcast(c, 0, 1, c.operand(0).dtype);
  if (!out.ok()) return out.status();
  return Result(c, *std::move(out));
}

}  // namespace

const ir::OpDef& PreluOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kPrelu,
      .name = "prelu",
      .category = ir::OpCategory::kActivation,
      .operands = {{.name = "input", .types = ir::kSignedTypes},
                   {.name = "slope",
                    .types = ir::kSignedTypes,
                    .param = ir::ParamRole::kSlope}},
      .infer = InferPrelu,
      .shape_preserving = true,
      .weight_init = ir::WeightInit::kHe,
      .gradient = PreluGradient};
  return def;
}

}  // namespace webnnm::ops
