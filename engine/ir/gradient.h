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
#include "engine/ir/op_def.h"
#include "engine/ir/rewriter.h"

namespace webnnm::ir {

class GradientBuilder {
 public:
  // `output_grads` has one entry per output of `node` (kNoValue where no
  // gradient arrives); `wanted` one entry per operand slot.
  GradientBuilder(GraphRewriter& rewriter, NodeId node,
                  std::vector<ValueId> output_grads, std::vector<bool> wanted);

  // ---- what the rule reads -------------------------------------------------
  const Node& node() const { return rewriter_.graph().node(node_); }
  const Attrs& attrs() const { return attrs_; }
  // Operand `slot` (kNoValue when absent) and its type.
  ValueId x(int slot) const;
  bool has(int slot) const { return x(slot) != kNoValue; }
  // Result `index` and the gradient arriving at it (kNoValue when none).
  ValueId y(int index = 0) const { return node().outputs[index]; }
  ValueId dy(int index = 0) const { return output_grads_[index]; }
  // Copies: the graph's values move as operations are added.
  TensorType type(ValueId value) const { return rewriter_.Type(value); }
  std::vector<int64_t> shape(ValueId value) const {
    return rewriter_.Type(value).shape;
  }
  // Whether the pass needs the gradient of operand `slot`.
  bool wants(int slot) const {
    return slot < static_cast<int>(wanted_.size()) && wanted_[slot];
  }
  // The node's rule context, for the attribute readers of engine/ops/rules.h.
  const InferContext& context() const { return context_; }
  GraphRewriter& rewriter() { return rewriter_; }

  // ---- what the rule writes ------------------------------------------------
  // Records `grad` as (a contribution to) the gradient of operand `slot`:
  // summed over broadcast dimensions to the operand's shape, cast to its
  // data type. An error in `grad` is returned.
  absl::Status Set(int slot, absl::StatusOr<ValueId> grad);
  // The gradients set, one per operand slot (kNoValue where none).
  const std::vector<ValueId>& grads() const { return grads_; }

  // ---- building blocks (each adds type-checked operations) ---------------
  absl::StatusOr<ValueId> Op(OpKind kind, std::vector<ValueId> operands,
                             Attrs attrs = {});
  absl::StatusOr<std::vector<ValueId>> OpMulti(OpKind kind,
                                               std::vector<ValueId> operands,
                                               Attrs attrs = {});
  // A scalar constant of `dtype`.
  ValueId Scalar(double value, DType dtype);
  // A scalar of the type of `like`.
  ValueId ScalarLike(double value, ValueId like) {
    return Scalar(value, type(like).dtype);
  }
  // A tensor of `shape` and `dtype` filled with `value`.
  absl::StatusOr<ValueId> Fill(double value, const std::vector<int64_t>& shape,
                               DType dtype);
  // A constant tensor with the given float values (converted to `dtype`).
  absl::StatusOr<ValueId> ConstantTensor(const std::vector<int64_t>& shape,
                                         DType dtype,
                                         const std::vector<double>& values);
  // An int32 constant tensor.
  absl::StatusOr<ValueId> IndexTensor(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& values);

  absl::StatusOr<ValueId> Add(ValueId a, ValueId b);
  absl::StatusOr<ValueId> Sub(ValueId a, ValueId b);
  absl::StatusOr<ValueId> Mul(ValueId a, ValueId b);
  absl::StatusOr<ValueId> Div(ValueId a, ValueId b);
  absl::StatusOr<ValueId> Neg(ValueId a);
  absl::StatusOr<ValueId> MulScalar(ValueId a, double s);
  // where(condition, a, b) with broadcasting.
  absl::StatusOr<ValueId> Where(ValueId condition, ValueId a, ValueId b);
  // `a` where `condition`, else zero.
  absl::StatusOr<ValueId> WhereOrZero(ValueId condition, ValueId a);
  absl::StatusOr<ValueId> Cast(ValueId a, DType dtype);
  absl::StatusOr<ValueId> Reshape(ValueId a, const std::vector<int64_t>& shape);
  absl::StatusOr<ValueId> Transpose(ValueId a, const std::vector<int>& perm);
  absl::StatusOr<ValueId> Expand(ValueId a, const std::vector<int64_t>& shape);
  absl::StatusOr<ValueId> ReduceSum(ValueId a, const std::vector<int>& axes,
                                    bool keep_dimensions);
  absl::StatusOr<ValueId> Slice(ValueId a, const std::vector<int64_t>& starts,
                                const std::vector<int64_t>& sizes,
                                const std::vector<int64_t>& strides = {});
  absl::StatusOr<ValueId> Matmul(ValueId a, ValueId b);
  // Swaps the last two dimensions.
  absl::StatusOr<ValueId> TransposeLast2(ValueId a);
  // Sums `a` over the dimensions along which `shape` was broadcast to
  // a's shape, and reshapes it to `shape`.
  absl::StatusOr<ValueId> SumToShape(ValueId a,
                                     const std::vector<int64_t>& shape);
  // `reduced` (the result of reducing a tensor of `shape` over `axes`, with
  // or without kept dimensions) broadcast back to `shape`.
  absl::StatusOr<ValueId> ExpandReduced(ValueId reduced,
                                        const std::vector<int64_t>& shape,
                                        const std::vector<int>& axes);

 private:
  GraphRewriter& rewriter_;
  NodeId node_;
  std::vector<ValueId> output_grads_;
  std::vector<bool> wanted_;
  std::vector<ValueId> grads_;
  Attrs attrs_;                    // the node's, copied (see the .cc)
  std::vector<TensorType> types_;  // operand types, copied
  InferContext context_;
};

// The inverse of a permutation.
std::vector<int> InversePermutation(const std::vector<int>& perm);

// Axes as the attributes store them.
std::vector<int64_t> ToInt64(const std::vector<int>& values);

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_GRADIENT_H_
