// prelu: y = x if x >= 0 else slope * x, element-wise; x and slope
// broadcast together (WebNN allows either to be the larger).
// Operands: input, slope (float32, float16, int32, int8, int64; the same
// type). A trainable slope gets one value per channel of the input,
// initialised to zeros (prelu starts as relu). Result: the input's type,
// the broadcast shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

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
      .weight_init = ir::WeightInit::kHe};
  return def;
}

}  // namespace webnnm::ops
