// 2-D pooling: averagePool2d, l2Pool2d, maxPool2d.
//
// Operand: input (4-D, nchw or nhwc). Options: windowDimensions [height,
// width] (default: the whole input height and width), padding [top, bottom,
// left, right], strides, dilations [height, width], layout (nchw | nhwc),
// outputShapeRounding (floor | ceil; also spelled roundingType),
// outputSizes [height, width] (when given: both the floor sizes or both
// the ceil sizes).
// Result: the input's type and layout, pooled height and width.
#ifndef WEBNNM_ENGINE_OPS_POOL_H_
#define WEBNNM_ENGINE_OPS_POOL_H_

#include "engine/ops/rules.h"

namespace webnnm::ops {

ir::OpDef PoolOp(ir::OpKind kind, const char* name, DTypeSet types);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_POOL_H_
