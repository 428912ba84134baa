// Reductions over a set of axes: reduceL1, reduceL2, reduceLogSum,
// reduceLogSumExp, reduceMax, reduceMean, reduceMin, reduceProduct,
// reduceSum, reduceSumSquare (and the high-level reduceVariance).
//
// Operand: input. Options: axes (default: every axis in WebNN; every feature
// axis in the model language), keepDimensions (default false: reduced axes
// are removed; true: kept with size 1).
#ifndef WEBNNM_ENGINE_OPS_REDUCE_H_
#define WEBNNM_ENGINE_OPS_REDUCE_H_

#include "engine/ir/gradient.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

// Integer-capable reductions take these types; the others take floats.
inline constexpr DTypeSet kReduceSumTypes = {DType::kFloat32, DType::kFloat16,
                                             DType::kInt32,   DType::kUint32,
                                             DType::kInt64,   DType::kUint64};

ir::OpDef ReduceOp(ir::OpKind kind, const char* name, DTypeSet types);

// The gradient rule of reduceMax and reduceMin: the elements equal to the
// result share dy equally.
absl::Status ExtremeReductionGradient(ir::GradientBuilder& g);

// The result type of reducing operand 0 over `axes`.
TensorType ReducedType(const TensorType& input, const std::vector<int>& axes,
                       bool keep_dimensions, DType dtype);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_REDUCE_H_
