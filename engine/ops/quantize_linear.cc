// quantizeLinear: y = clamp(roundEven(x / scale) + zeroPoint) in the range
// of zeroPoint's type, with scale and zeroPoint broadcast blockwise.
// Operands: input (float32, float16), scale (the input's type), zeroPoint
// (uint8, int8, uint4, int4, int32, uint32; the scale's shape).
// Result: zeroPoint's type, the input's shape.
#include "engine/ops/quantize.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferQuantizeLinear(const InferContext& c) {
  absl::Status status = CheckBlockwise(c);
  if (!status.ok()) return status;
  return Result(c, SameShape(c, 0, c.operand(2).dtype));
}

}  // namespace

const ir::OpDef& QuantizeLinearOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kQuantizeLinear,
      .name = "quantizeLinear",
      .category = ir::OpCategory::kCast,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   {.name = "scale", .types = ir::kFloatTypes},
                   {.name = "zeroPoint",
                    .types = kQuantizedTypes,
                    .in_type_group = false}},
      .infer = InferQuantizeLinear,
      .shape_preserving = true};
  return def;
}

}  // namespace webnnm::ops
