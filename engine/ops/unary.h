// Element-wise operations with one tensor operand.
//
// UnaryOp: `input` of the given types; the result has the input's type.
// ActivationOp: the same, as an activation (with the weight initialisation
// it implies and its scalar options). PredicateOp: a float input and a uint8
// result of the same shape (isNaN, isInfinite).
#ifndef WEBNNM_ENGINE_OPS_UNARY_H_
#define WEBNNM_ENGINE_OPS_UNARY_H_

#include "engine/ops/rules.h"

namespace webnnm::ops {

ir::OpDef UnaryOp(ir::OpKind kind, const char* name, DTypeSet types);
ir::OpDef ActivationOp(ir::OpKind kind, const char* name, DTypeSet types,
                       ir::WeightInit init,
                       std::vector<ir::AttrSpec> attrs = {});
ir::OpDef PredicateOp(ir::OpKind kind, const char* name);

absl::StatusOr<Types> InferSameAsInput(const InferContext& c);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_UNARY_H_
