#include "engine/ir/graph_ops.h"

#include <numeric>
#include <utility>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/constant_data.h"

namespace webnnm::ir {

std::vector<int> InversePermutation(const std::vector<int>& perm) {
  std::vector<int> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    inverse[perm[i]] = static_cast<int>(i);
  }
  return inverse;
}

std::vector<int64_t> ToInt64(const std::vector<int>& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

absl::Status GraphOps::Failed(OpKind kind, const absl::Status& status) const {
  return absl::InternalError(StrCat(context_, ": building ", GetOp(kind).name,
                                    ": ", status.message()));
}

absl::StatusOr<ValueId> GraphOps::Op(OpKind kind, std::vector<ValueId> operands,
                                     Attrs attrs) {
  absl::StatusOr<ValueId> result =
      rewriter_.Add(kind, std::move(operands), std::move(attrs));
  if (!result.ok()) return Failed(kind, result.status());
  return result;
}

absl::StatusOr<std::vector<ValueId>> GraphOps::OpMulti(
    OpKind kind, std::vector<ValueId> operands, Attrs attrs) {
  absl::StatusOr<std::vector<ValueId>> result =
      rewriter_.AddMulti(kind, std::move(operands), std::move(attrs));
  if (!result.ok()) return Failed(kind, result.status());
  return result;
}

ValueId GraphOps::Scalar(double value, DType dtype) {
  return rewriter_.Scalar(value, dtype);
}

absl::StatusOr<ValueId> GraphOps::Fill(double value,
                                       const std::vector<int64_t>& shape,
                                       DType dtype) {
  ValueId scalar = Scalar(value, dtype);
  if (shape.empty()) return scalar;
  return Expand(scalar, shape);
}

namespace {

ValueId AddConstant(GraphRewriter& rewriter, TensorType type,
                    std::shared_ptr<const ConstantData> data) {
  Node node;
  node.kind = NodeKind::kConstant;
  node.data = std::move(data);
  NodeId id = rewriter.graph().AddNode(std::move(node), 1);
  Value& value = rewriter.graph().value(rewriter.graph().output(id));
  value.type = std::move(type);
  FillDefaultNames(value.type);
  value.typed = true;
  return rewriter.graph().output(id);
}

}  // namespace

absl::StatusOr<ValueId> GraphOps::ConstantTensor(
    const std::vector<int64_t>& shape, DType dtype,
    const std::vector<double>& values) {
  auto data = std::make_shared<ConstantData>();
  for (double v : values) {
    RETURN_IF_ERROR(AppendNumber(*data, dtype, v, false, 0));
  }
  TensorType type{.dtype = dtype, .shape = shape};
  return AddConstant(rewriter_, std::move(type), std::move(data));
}

absl::StatusOr<ValueId> GraphOps::IndexTensor(
    const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
  auto data = std::make_shared<ConstantData>();
  for (int64_t v : values) {
    RETURN_IF_ERROR(
        AppendNumber(*data, DType::kInt32, static_cast<double>(v), true, v));
  }
  TensorType type{.dtype = DType::kInt32, .shape = shape};
  return AddConstant(rewriter_, std::move(type), std::move(data));
}

ValueId GraphOps::Input(const std::string& name, TensorType type) {
  Node node;
  node.kind = NodeKind::kInput;
  node.name = name;
  NodeId id = graph().AddNode(std::move(node), 1);
  Value& value = graph().value(graph().output(id));
  value.type = std::move(type);
  FillDefaultNames(value.type);
  value.typed = true;
  return graph().output(id);
}

void GraphOps::Output(const std::string& name, ValueId value) {
  Node node;
  node.kind = NodeKind::kOutput;
  node.name = name;
  node.operands = {value};
  TensorType type = graph().value(value).type;
  NodeId id = graph().AddNode(std::move(node), 1);
  Value& out = graph().value(graph().output(id));
  out.type = std::move(type);
  out.typed = true;
}

absl::StatusOr<ValueId> GraphOps::Add(ValueId a, ValueId b) {
  return Op(OpKind::kAdd, {a, b});
}
absl::StatusOr<ValueId> GraphOps::Sub(ValueId a, ValueId b) {
  return Op(OpKind::kSub, {a, b});
}
absl::StatusOr<ValueId> GraphOps::Mul(ValueId a, ValueId b) {
  return Op(OpKind::kMul, {a, b});
}
absl::StatusOr<ValueId> GraphOps::Div(ValueId a, ValueId b) {
  return Op(OpKind::kDiv, {a, b});
}
absl::StatusOr<ValueId> GraphOps::Neg(ValueId a) {
  return Op(OpKind::kNeg, {a});
}
absl::StatusOr<ValueId> GraphOps::MulScalar(ValueId a, double s) {
  return Mul(a, ScalarLike(s, a));
}
absl::StatusOr<ValueId> GraphOps::AddScalar(ValueId a, double s) {
  return Add(a, ScalarLike(s, a));
}

absl::StatusOr<ValueId> GraphOps::Where(ValueId condition, ValueId a,
                                        ValueId b) {
  return Op(OpKind::kWhere, {condition, a, b});
}

absl::StatusOr<ValueId> GraphOps::WhereOrZero(ValueId condition, ValueId a) {
  return Where(condition, a, ScalarLike(0, a));
}

absl::StatusOr<ValueId> GraphOps::CompareScalar(OpKind kind, ValueId a,
                                                double scalar) {
  return Op(kind, {a, ScalarLike(scalar, a)});
}

absl::StatusOr<ValueId> GraphOps::Cast(ValueId a, DType dtype) {
  if (type(a).dtype == dtype) return a;
  Attrs attrs;
  attrs.Set("type", std::string(DTypeName(dtype)));
  return Op(OpKind::kCast, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GraphOps::Reshape(ValueId a,
                                          const std::vector<int64_t>& shape) {
  if (type(a).shape == shape) return a;
  Attrs attrs;
  attrs.Set("newShape", shape);
  return Op(OpKind::kReshape, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GraphOps::Transpose(ValueId a,
                                            const std::vector<int>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == int(i);
  if (identity) return a;
  Attrs attrs;
  attrs.Set("permutation", ToInt64(perm));
  return Op(OpKind::kTranspose, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GraphOps::Expand(ValueId a,
                                         const std::vector<int64_t>& shape) {
  if (type(a).shape == shape) return a;
  Attrs attrs;
  attrs.Set("newShape", shape);
  return Op(OpKind::kExpand, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GraphOps::Reduce(OpKind kind, ValueId a,
                                         const std::vector<int>& axes,
                                         bool keep_dimensions) {
  Attrs attrs;
  attrs.Set("axes", ToInt64(axes));
  attrs.Set("keepDimensions", keep_dimensions);
  return Op(kind, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GraphOps::SumSquaresAll(ValueId a) {
  const int rank = type(a).rank();
  if (rank == 0) return Mul(a, a);
  std::vector<int> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  return Reduce(OpKind::kReduceSumSquare, a, axes, false);
}

absl::StatusOr<ValueId> GraphOps::SumAll(ValueId a) {
  int rank = type(a).rank();
  if (rank == 0) return a;
  std::vector<int> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  return Reduce(OpKind::kReduceSum, a, axes, false);
}

absl::StatusOr<ValueId> GraphOps::Slice(ValueId a,
                                        const std::vector<int64_t>& starts,
                                        const std::vector<int64_t>& sizes,
                                        const std::vector<int64_t>& strides) {
  if (sizes == shape(a) && strides.empty()) return a;
  Attrs attrs;
  attrs.Set("starts", starts);
  attrs.Set("sizes", sizes);
  if (!strides.empty()) attrs.Set("strides", strides);
  return Op(OpKind::kSlice, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GraphOps::Concat(const std::vector<ValueId>& parts,
                                         int64_t axis) {
  if (parts.size() == 1) return parts[0];
  Attrs attrs;
  attrs.Set("axis", axis);
  return Op(OpKind::kConcat, parts, std::move(attrs));
}

absl::StatusOr<ValueId> GraphOps::Matmul(ValueId a, ValueId b) {
  return Op(OpKind::kMatmul, {a, b});
}

absl::StatusOr<ValueId> GraphOps::TransposeLast2(ValueId a) {
  int rank = type(a).rank();
  std::vector<int> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return Transpose(a, perm);
}

absl::StatusOr<ValueId> GraphOps::SumToShape(
    ValueId a, const std::vector<int64_t>& target) {
  const std::vector<int64_t> from = shape(a);
  if (from == target) return a;
  int rank = static_cast<int>(from.size());
  int offset = rank - static_cast<int>(target.size());
  auto mismatch = [&] {
    return absl::InternalError(StrCat(context_, ": cannot sum ",
                                      ShapeToString(from), " to ",
                                      ShapeToString(target)));
  };
  if (offset < 0) return mismatch();
  std::vector<int> axes;
  for (int i = 0; i < rank; ++i) {
    if (i < offset || (target[i - offset] == 1 && from[i] != 1)) {
      axes.push_back(i);
    } else if (target[i - offset] != from[i]) {
      return mismatch();
    }
  }
  ASSIGN_OR_RETURN(ValueId summed, ReduceSum(a, axes, false));
  return Reshape(summed, target);
}

absl::StatusOr<ValueId> GraphOps::ExpandReduced(
    ValueId reduced, const std::vector<int64_t>& target,
    const std::vector<int>& axes) {
  std::vector<int64_t> kept = target;
  for (int axis : axes) kept[axis] = 1;
  ASSIGN_OR_RETURN(ValueId r, Reshape(reduced, kept));
  return Expand(r, target);
}

}  // namespace webnnm::ir
