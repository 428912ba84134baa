// argMin and argMax: the index of the smallest / largest element along
// `axis`.
//
// Operand: input (any numeric type). Options: axis (required),
// keepDimensions (default false), outputDataType (int32 or int64, default
// int32). Result: indices of type outputDataType, the input's shape without
// `axis` (or with it as 1).
#ifndef WEBNNM_ENGINE_OPS_ARG_MIN_MAX_H_
#define WEBNNM_ENGINE_OPS_ARG_MIN_MAX_H_

#include "engine/ops/rules.h"

namespace webnnm::ops {

ir::OpDef ArgReduceOp(ir::OpKind kind, const char* name);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_ARG_MIN_MAX_H_
