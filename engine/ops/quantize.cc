#include "engine/ops/quantize.h"

namespace webnnm::ops {

absl::Status CheckBlockwise(const InferContext& c) {
  const TensorType& input = c.operand(0);
  const TensorType& scale = c.operand(1);
  const TensorType& zero_point = c.operand(2);
  if (scale.shape != zero_point.shape) {
    return OperandError(2, StrCat(c.op.name, " zeroPoint shape ",
                                  ir::ShapeToString(zero_point.shape),
                                  " differs from the scale shape ",
                                  ir::ShapeToString(scale.shape)));
  }
  if (scale.rank() > input.rank()) {
    return OperandError(1, StrCat(c.op.name, " scale has rank ", scale.rank(),
                                  ", more than the input's ", input.rank()));
  }
  for (int i = 0; i < scale.rank(); ++i) {
    int64_t s = scale.shape[scale.rank() - 1 - i];
    int64_t d = input.shape[input.rank() - 1 - i];
    bool ok = s == d || s == 1 ||
              (!ir::IsSymbolic(d) && !ir::IsSymbolic(s) && d % s == 0);
    if (!ok) {
      return OperandError(
          1, StrCat(c.op.name, " scale shape ", ir::ShapeToString(scale.shape),
                    " does not divide the input shape ",
                    ir::ShapeToString(input.shape), " into blocks"));
    }
  }
  return absl::OkStatus();
}

}  // namespace webnnm::ops
