// dequantizeLinear: y = (x - zeroPoint) * scale, with scale and zeroPoint
// broadcast blockwise.
// Operands: input (uint8, int8, uint4, int4, int32, uint32), scale (float32,
// float16), zeroPoint (the input's type; the scale's shape).
// Result: scale's type, the input's shape.
#include "engine/ops/gradient_rules.h"
#include "engine/ops/quantize.h"

namespace webnnm::ops {

namespace {

absl::Status DequantizeLinearGradient(GradientBuilder& g) {
  // y = (x - zeroPoint) scale: dscale = the block sums of dy (x - zeroPoint).
  if (!g.wants(1)) return absl::OkStatus();
  DType dtype = g.type(g.x(1)).dtype;
  const std::vector<int64_t>& shape = g.shape(g.x(0));
  ASSIGN_OR_RETURN(ValueId x, g.Cast(g.x(0), dtype));
  ValueId centered = x;
  if (g.has(2)) {
    ASSIGN_OR_RETURN(ValueId zero_point, g.Cast(g.x(2), dtype));
    ASSIGN_OR_RETURN(ValueId spread, ExpandBlocks(g, zero_point, shape));
    ASSIGN_OR_RETURN(centered, g.Sub(x, spread));
  }
  ASSIGN_OR_RETURN(ValueId product, g.Mul(g.dy(), centered));
  return g.Set(1, SumBlocks(g, product, g.shape(g.x(1))));
}

absl::StatusOr<Types> InferDequantizeLinear(const InferContext& c) {
  absl::Status status = CheckBlockwise(c);
  if (!status.ok()) return status;
  return Result(c, SameShape(c, 0, c.operand(1).dtype));
}

}  // namespace

const ir::OpDef& DequantizeLinearOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kDequantizeLinear,
      .name = "dequantizeLinear",
      .category = ir::OpCategory::kCast,
      .operands = {{.name = "input", .types = kQuantizedTypes},
                   {.name = "scale",
                    .types = ir::kFloatTypes,
                    .in_type_group = false},
                   {.name = "zeroPoint", .types = kQuantizedTypes}},
      .infer = InferDequantizeLinear,
      .shape_preserving = true,
      .gradient = DequantizeLinearGradient};
  return def;
}

}  // namespace webnnm::ops
