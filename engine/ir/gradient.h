// GradientBuilder: what an operation's gradient rule sees and writes.
//
// Reverse-mode differentiation is graph to graph (engine/autodiff): for each
// operation node on a path from the values being differentiated to the
// seeded values, in reverse order, the autodiff pass calls the op's
// OpDef::gradient with a GradientBuilder. The rule reads the node's operands,
// results and the gradients arriving at its results (dy), and adds
// operations to the graph that compute the gradient of each operand it is
// asked for (wants(slot)), handing each one to Set(). Set() sums a
// broadcast gradient down to the operand's shape and casts it to the
// operand's type, and the pass sums the contributions of every consumer of a
// value (fan-out, residual connections) — a rule never overwrites.
//
// A rule may leave an operand without a gradient when its gradient is zero
// (floor, sign, the indices of gather). Operands that are integers, or that
// no differentiated value reaches, are never wanted.
#ifndef WEBNNM_ENGINE_IR_GRADIENT_H_
#define WEBNNM_ENGINE_IR_GRADIENT_H_

#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"
#include "engine/ir/graph_ops.h"
#include "engine/ir/op_def.h"
#include "engine/ir/rewriter.h"

namespace webnnm::ir {

class GradientBuilder : public GraphOps {
 public:
  // `output_grads` has one entry per output of `node` (kNoValue where no
  // gradient arrives); `wanted` one entry per operand slot.
  GradientBuilder(GraphRewriter& rewriter, NodeId node,
                  std::vector<ValueId> output_grads, std::vector<bool> wanted);

  // ---- what the rule reads -------------------------------------------------
  const Node& node() const { return rewriter_.graph().node(node_); }
  const Attrs& attrs() const { return attrs_; }
  // Operand `slot` (kNoValue when absent).
  ValueId x(int slot) const;
  bool has(int slot) const { return x(slot) != kNoValue; }
  // Result `index` and the gradient arriving at it (kNoValue when none).
  ValueId y(int index = 0) const { return node().outputs[index]; }
  ValueId dy(int index = 0) const { return output_grads_[index]; }
  // Whether the pass needs the gradient of operand `slot`.
  bool wants(int slot) const {
    return slot < static_cast<int>(wanted_.size()) && wanted_[slot];
  }
  // The node's rule context, for the attribute readers of engine/ops/rules.h.
  const InferContext& context() const { return context_; }

  // ---- what the rule writes ------------------------------------------------
  // Records `grad` as (a contribution to) the gradient of operand `slot`:
  // summed over broadcast dimensions to the operand's shape, cast to its
  // data type. An error in `grad` is returned.
  absl::Status Set(int slot, absl::StatusOr<ValueId> grad);
  // The gradients set, one per operand slot (kNoValue where none).
  const std::vector<ValueId>& grads() const { return grads_; }

  // The building blocks (Add, Mul, Reshape, SumToShape, ...) are GraphOps'.

 private:
  NodeId node_;
  std::vector<ValueId> output_grads_;
  std::vector<bool> wanted_;
  std::vector<ValueId> grads_;
  Attrs attrs_;                    // the node's, copied (see the .cc)
  std::vector<TensorType> types_;  // operand types, copied
  InferContext context_;
};

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_GRADIENT_H_
