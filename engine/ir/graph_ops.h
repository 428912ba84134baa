// GraphOps: adds type-checked operations to a graph, a few at a time, with
// short names for the common ones — the building blocks of gradient rules
// (gradient.h), losses and the training graph (engine/train).
//
// Every operation goes through its rule (GraphRewriter::Add), so what this
// builds is as well-typed as a graph built from a model; an error names the
// operation being built and `context` (what was being built when it failed).
// Values' types are returned as copies: the graph's vectors move as
// operations are added.
#ifndef WEBNNM_ENGINE_IR_GRAPH_OPS_H_
#define WEBNNM_ENGINE_IR_GRAPH_OPS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"
#include "engine/ir/op_def.h"
#include "engine/ir/rewriter.h"

namespace webnnm::ir {

class GraphOps {
 public:
  GraphOps(GraphRewriter& rewriter, std::string context)
      : rewriter_(rewriter), context_(std::move(context)) {}
  virtual ~GraphOps() = default;

  GraphRewriter& rewriter() { return rewriter_; }
  Graph& graph() { return rewriter_.graph(); }
  TensorType type(ValueId value) const { return rewriter_.Type(value); }
  std::vector<int64_t> shape(ValueId value) const {
    return rewriter_.Type(value).shape;
  }

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
  // A constant tensor with the given values (converted to `dtype`).
  absl::StatusOr<ValueId> ConstantTensor(const std::vector<int64_t>& shape,
                                         DType dtype,
                                         const std::vector<double>& values);
  // An int32 constant tensor.
  absl::StatusOr<ValueId> IndexTensor(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& values);
  // A graph input called `name`.
  ValueId Input(const std::string& name, TensorType type);
  // Marks `value` as the graph output called `name`.
  void Output(const std::string& name, ValueId value);

  absl::StatusOr<ValueId> Add(ValueId a, ValueId b);
  absl::StatusOr<ValueId> Sub(ValueId a, ValueId b);
  absl::StatusOr<ValueId> Mul(ValueId a, ValueId b);
  absl::StatusOr<ValueId> Div(ValueId a, ValueId b);
  absl::StatusOr<ValueId> Neg(ValueId a);
  absl::StatusOr<ValueId> MulScalar(ValueId a, double s);
  absl::StatusOr<ValueId> AddScalar(ValueId a, double s);
  absl::StatusOr<ValueId> Unary(OpKind kind, ValueId a) {
    return Op(kind, {a});
  }
  // where(condition, a, b) with broadcasting.
  absl::StatusOr<ValueId> Where(ValueId condition, ValueId a, ValueId b);
  // `a` where `condition`, else zero.
  absl::StatusOr<ValueId> WhereOrZero(ValueId condition, ValueId a);
  // compare(a, scalar) as a uint8 mask, the scalar typed like `a`.
  absl::StatusOr<ValueId> CompareScalar(OpKind kind, ValueId a, double scalar);
  absl::StatusOr<ValueId> Cast(ValueId a, DType dtype);
  absl::StatusOr<ValueId> Reshape(ValueId a, const std::vector<int64_t>& shape);
  absl::StatusOr<ValueId> Transpose(ValueId a, const std::vector<int>& perm);
  absl::StatusOr<ValueId> Expand(ValueId a, const std::vector<int64_t>& shape);
  absl::StatusOr<ValueId> Reduce(OpKind kind, ValueId a,
                                 const std::vector<int>& axes,
                                 bool keep_dimensions);
  absl::StatusOr<ValueId> ReduceSum(ValueId a, const std::vector<int>& axes,
                                    bool keep_dimensions) {
    if (axes.empty()) return a;
    return Reduce(OpKind::kReduceSum, a, axes, keep_dimensions);
  }
  // The sum of every element, as a scalar.
  absl::StatusOr<ValueId> SumAll(ValueId a);
  // Σ a² over every dimension, as one reduceSumSquare (one pass over a).
  absl::StatusOr<ValueId> SumSquaresAll(ValueId a);
  absl::StatusOr<ValueId> Slice(ValueId a, const std::vector<int64_t>& starts,
                                const std::vector<int64_t>& sizes,
                                const std::vector<int64_t>& strides = {});
  absl::StatusOr<ValueId> Concat(const std::vector<ValueId>& parts,
                                 int64_t axis);
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

 protected:
  absl::Status Failed(OpKind kind, const absl::Status& status) const;

  GraphRewriter& rewriter_;
  std::string context_;
};

// The inverse of a permutation.
std::vector<int> InversePermutation(const std::vector<int>& perm);

// Axes as the attributes store them.
std::vector<int64_t> ToInt64(const std::vector<int>& values);

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_GRAPH_OPS_H_
