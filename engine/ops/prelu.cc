// prelu: y = x if x >= 0 else slope * x, element-wise; slope broadcasts to
// the input (unidirectionally).
// Operands: input, slope (float32, float16, int32, int8, int64; the same
// type). A trainable slope gets one value per channel of the input,
// initialised to zeros (prelu starts as relu). Result: the input's type and
// shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferPrelu(const InferContext& c) {
  absl::Status status = CheckUnidirectional(c.operand(1), c.operand(0).shape,
                                            1, "prelu slope");
  if (!status.ok()) return status;
  return InferSameAsInput(c);
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
