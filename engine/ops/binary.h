// Element-wise operations with two broadcasting tensor operands `a` and `b`.
//
// ArithmeticOp: a result of the operands' type (add, sub, mul, div, max, min,
// pow); `b` may be a trainable parameter with one value per channel of `a`,
// initialised to `role` (zeros for add/sub/max/min, ones for mul/div/pow).
// ComparisonOp: a uint8 result (1 for true). LogicalOp: uint8 operands and a
// uint8 result.
#ifndef WEBNNM_ENGINE_OPS_BINARY_H_
#define WEBNNM_ENGINE_OPS_BINARY_H_

#include "engine/ir/gradient.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

ir::OpDef ArithmeticOp(ir::OpKind kind, const char* name, ir::ParamRole role);
ir::OpDef ComparisonOp(ir::OpKind kind, const char* name);
ir::OpDef LogicalOp(ir::OpKind kind, const char* name);

// The gradient of max (`wins` = kGreater) and min (kLesser): the operand
// that wins takes dy, ties share it equally (as PyTorch's maximum).
absl::Status ExtremeBinaryGradient(ir::GradientBuilder& g, ir::OpKind wins);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_BINARY_H_
