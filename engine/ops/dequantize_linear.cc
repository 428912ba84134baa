// dequantizeLinear: y = (x - zeroPoint) * scale, with scale and zeroPoint
// broadcast blockwise.
// Operands: input (uint8, int8, uint4, int4, int32, uint32), scale (float32,
// float16), zeroPoint (the input's type; the scale's shape).
// Result: scale's type, the input's shape.
#include "engine/ops/quantize.h"

namespace webnnm::ops {
namespace {

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
      .shape_preserving = true};
  return def;
}

}  // namespace webnnm::ops
