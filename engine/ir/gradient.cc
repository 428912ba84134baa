#include "engine/ir/gradient.h"

#include <numeric>
#include <utility>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/constant_data.h"

namespace webnnm::ir {

std::vector<int> InversePermutation(const std::vector<int>& perm) {
  std::vector<int> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[perm[i]] = static_cast<int>(i);
  return inverse;
}

std::vector<int64_t> ToInt64(const std::vector<int>& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

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
    : rewriter_(rewriter),
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

absl::StatusOr<ValueId> GradientBuilder::Op(OpKind kind,
                                            std::vector<ValueId> operands,
                                            Attrs attrs) {
  absl::StatusOr<ValueId> result =
      rewriter_.Add(kind, std::move(operands), std::move(attrs));
  if (!result.ok()) {
    return absl::InternalError(StrCat("gradient of ", node().op->name,
                                      ": building ", GetOp(kind).name, ": ",
                                      result.status().message()));
  }
  return result;
}

absl::StatusOr<std::vector<ValueId>> GradientBuilder::OpMulti(
    OpKind kind, std::vector<ValueId> operands, Attrs attrs) {
  absl::StatusOr<std::vector<ValueId>> result =
      rewriter_.AddMulti(kind, std::move(operands), std::move(attrs));
  if (!result.ok()) {
    return absl::InternalError(StrCat("gradient of ", node().op->name,
                                      ": building ", GetOp(kind).name, ": ",
                                      result.status().message()));
  }
  return result;
}

ValueId GradientBuilder::Scalar(double value, DType dtype) {
  return rewriter_.Scalar(value, dtype);
}

absl::StatusOr<ValueId> GradientBuilder::Fill(double value,
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

absl::StatusOr<ValueId> GradientBuilder::ConstantTensor(
    const std::vector<int64_t>& shape, DType dtype,
    const std::vector<double>& values) {
  auto data = std::make_shared<ConstantData>();
  for (double v : values) {
    RETURN_IF_ERROR(AppendNumber(*data, dtype, v, false, 0));
  }
  TensorType type{.dtype = dtype, .shape = shape};
  return AddConstant(rewriter_, std::move(type), std::move(data));
}

absl::StatusOr<ValueId> GradientBuilder::IndexTensor(
    const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
  auto data = std::make_shared<ConstantData>();
  for (int64_t v : values) {
    RETURN_IF_ERROR(
        AppendNumber(*data, DType::kInt32, static_cast<double>(v), true, v));
  }
  TensorType type{.dtype = DType::kInt32, .shape = shape};
  return AddConstant(rewriter_, std::move(type), std::move(data));
}

absl::StatusOr<ValueId> GradientBuilder::Add(ValueId a, ValueId b) {
  return Op(OpKind::kAdd, {a, b});
}
absl::StatusOr<ValueId> GradientBuilder::Sub(ValueId a, ValueId b) {
  return Op(OpKind::kSub, {a, b});
}
absl::StatusOr<ValueId> GradientBuilder::Mul(ValueId a, ValueId b) {
  return Op(OpKind::kMul, {a, b});
}
absl::StatusOr<ValueId> GradientBuilder::Div(ValueId a, ValueId b) {
  return Op(OpKind::kDiv, {a, b});
}
absl::StatusOr<ValueId> GradientBuilder::Neg(ValueId a) {
  return Op(OpKind::kNeg, {a});
}
absl::StatusOr<ValueId> GradientBuilder::MulScalar(ValueId a, double s) {
  return Mul(a, ScalarLike(s, a));
}

absl::StatusOr<ValueId> GradientBuilder::Where(ValueId condition, ValueId a,
                                               ValueId b) {
  return Op(OpKind::kWhere, {condition, a, b});
}

absl::StatusOr<ValueId> GradientBuilder::WhereOrZero(ValueId condition,
                                                     ValueId a) {
  return Where(condition, a, ScalarLike(0, a));
}

absl::StatusOr<ValueId> GradientBuilder::Cast(ValueId a, DType dtype) {
  if (type(a).dtype == dtype) return a;
  Attrs attrs;
  attrs.Set("type", std::string(DTypeName(dtype)));
  return Op(OpKind::kCast, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GradientBuilder::Reshape(
    ValueId a, const std::vector<int64_t>& shape) {
  if (type(a).shape == shape) return a;
  Attrs attrs;
  attrs.Set("newShape", shape);
  return Op(OpKind::kReshape, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GradientBuilder::Transpose(
    ValueId a, const std::vector<int>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == int(i);
  if (identity) return a;
  Attrs attrs;
  attrs.Set("permutation", ToInt64(perm));
  return Op(OpKind::kTranspose, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GradientBuilder::Expand(
    ValueId a, const std::vector<int64_t>& shape) {
  if (type(a).shape == shape) return a;
  Attrs attrs;
  attrs.Set("newShape", shape);
  return Op(OpKind::kExpand, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GradientBuilder::ReduceSum(ValueId a,
                                                   const std::vector<int>& axes,
                                                   bool keep_dimensions) {
  if (axes.empty()) return a;
  Attrs attrs;
  attrs.Set("axes", ToInt64(axes));
  attrs.Set("keepDimensions", keep_dimensions);
  return Op(OpKind::kReduceSum, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GradientBuilder::Slice(
    ValueId a, const std::vector<int64_t>& starts,
    const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  if (sizes == shape(a) && strides.empty()) return a;
  Attrs attrs;
  attrs.Set("starts", starts);
  attrs.Set("sizes", sizes);
  if (!strides.empty()) attrs.Set("strides", strides);
  return Op(OpKind::kSlice, {a}, std::move(attrs));
}

absl::StatusOr<ValueId> GradientBuilder::Matmul(ValueId a, ValueId b) {
  return Op(OpKind::kMatmul, {a, b});
}

absl::StatusOr<ValueId> GradientBuilder::TransposeLast2(ValueId a) {
  int rank = type(a).rank();
  std::vector<int> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return Transpose(a, perm);
}

absl::StatusOr<ValueId> GradientBuilder::SumToShape(
    ValueId a, const std::vector<int64_t>& target) {
  const std::vector<int64_t> from = shape(a);
  if (from == target) return a;
  int rank = static_cast<int>(from.size());
  int offset = rank - static_cast<int>(target.size());
  if (offset < 0) {
    return absl::InternalError(StrCat("gradient of ", node().op->name,
                                      ": cannot sum ", ShapeToString(from),
                                      " to ", ShapeToString(target)));
  }
  std::vector<int> axes;
  for (int i = 0; i < rank; ++i) {
    if (i < offset || (target[i - offset] == 1 && from[i] != 1)) {
      axes.push_back(i);
    } else if (target[i - offset] != from[i]) {
      return absl::InternalError(StrCat("gradient of ", node().op->name,
                                        ": cannot sum ", ShapeToString(from),
                                        " to ", ShapeToString(target)));
    }
  }
  ASSIGN_OR_RETURN(ValueId summed, ReduceSum(a, axes, false));
  return Reshape(summed, target);
}

absl::StatusOr<ValueId> GradientBuilder::ExpandReduced(
    ValueId reduced, const std::vector<int64_t>& target,
    const std::vector<int>& axes) {
  std::vector<int64_t> kept = target;
  for (int axis : axes) kept[axis] = 1;
  ASSIGN_OR_RETURN(ValueId r, Reshape(reduced, kept));
  return Expand(r, target);
}

}  // namespace webnnm::ir
