// Running an operation's rule: the checks every operation shares, then its
// own shape/type rule.
//
// InferOp checks the operand count (required operands present, no extras),
// each operand's data type against the OpDef's allowed types, that the
// operands of the type group agree, that every attribute is known and has
// the type its schema says, that required attributes are present, and then
// calls the OpDef's rule. Used alike for graphs built from the model
// language and from conformance vectors.
#ifndef WEBNNM_ENGINE_IR_INFER_H_
#define WEBNNM_ENGINE_IR_INFER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"
#include "engine/ir/op_def.h"

namespace webnnm::ir {

absl::StatusOr<std::vector<TensorType>> InferOp(
    const OpDef& op, const std::vector<const TensorType*>& operands,
    const Attrs& attrs, const Limits& limits);

// The attribute-schema part of InferOp alone.
absl::Status CheckAttrs(const OpDef& op, const Attrs& attrs);

// Runs the rule of operation node `node` of `graph` on its operands' types
// and checks that its results have the types the graph claims (backends
// check this before their kernels trust the types). The errors do not name
// the operation: callers prefix it.
absl::Status CheckNodeTypes(const Graph& graph, const Node& node,
                            const Limits& limits);

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_INFER_H_
