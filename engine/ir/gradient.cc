#include "engine/ir/gradient.h"

#include <utility>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::ir {

namespace {

std::vector<const TensorType*> Pointers(const std::vector<TensorType>& types,
                                        const std::vector<ValueId>& operands) {
  std::vector<const TensorType*> pointers;
  for (size_t i = 0; i < operands.size(); ++i) {
    pointers.push_back(operands[i] == kNoValue ? nullptr : &types[i]);
  }
  return pointers;
}

std::vector<TensorType> OperandTypes(const Graph& graph, NodeId node) {
  std::vector<TensorType> types;
  for (ValueId v : graph.node(node).operands) {
    types.push_back(v == kNoValue ? TensorType{} : graph.value(v).type);
  }
  return types;
}

}  // namespace

// The node's attributes and operand types are copied: the graph's node and
// value vectors grow (and move) while the rule adds operations.
GradientBuilder::GradientBuilder(GraphRewriter& rewriter, NodeId node,
                                 std::vector<ValueId> output_grads,
                                 std::vector<bool> wanted)
    : GraphOps(rewriter,
               StrCat("gradient of ", rewriter.graph().node(node).op->name)),
      node_(node),
      output_grads_(std::move(output_grads)),
      wanted_(std::move(wanted)),
      grads_(rewriter.graph().node(node).operands.size(), kNoValue),
      attrs_(rewriter.graph().node(node).attrs),
      types_(OperandTypes(rewriter.graph(), node)),
      context_{*rewriter.graph().node(node).op,
               Pointers(types_, rewriter.graph().node(node).operands), attrs_,
               rewriter.limits()} {}

ValueId GradientBuilder::x(int slot) const {
  const std::vector<ValueId>& operands = node().operands;
  return slot < static_cast<int>(operands.size()) ? operands[slot] : kNoValue;
}

absl::Status GradientBuilder::Set(int slot, absl::StatusOr<ValueId> grad) {
  if (!grad.ok()) return grad.status();
  if (!wants(slot)) return absl::OkStatus();
  const TensorType& target = types_[slot];
  ValueId g = *grad;
  if (type(g).shape != target.shape) {
    ASSIGN_OR_RETURN(g, SumToShape(g, target.shape));
  }
  if (type(g).dtype != target.dtype) {
    ASSIGN_OR_RETURN(g, Cast(g, target.dtype));
  }
  if (grads_[slot] == kNoValue) {
    grads_[slot] = g;
  } else {
    ASSIGN_OR_RETURN(grads_[slot], Add(grads_[slot], g));
  }
  return absl::OkStatus();
}

}  // namespace webnnm::ir
