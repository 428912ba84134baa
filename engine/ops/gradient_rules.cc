#include "engine/ops/gradient_rules.h"

namespace webnnm::ops {

absl::Status ZeroGradient(GradientBuilder&) { return absl::OkStatus(); }

absl::Status SetScaled(GradientBuilder& g, absl::StatusOr<ValueId> factor) {
  if (!factor.ok()) return factor.status();
  return g.Set(0, g.Mul(g.dy(), *factor));
}

std::vector<int> ReducedAxes(const GradientBuilder& g, int rank) {
  std::vector<int64_t> all;
  for (int i = 0; i < rank; ++i) all.push_back(i);
  std::vector<int> axes;
  for (int64_t a : g.attrs().GetInts("axes", all)) {
    axes.push_back(static_cast<int>(a < 0 ? a + rank : a));
  }
  return axes;
}

absl::StatusOr<ValueId> CompareScalar(GradientBuilder& g, OpKind kind,
                                      ValueId a, double scalar) {
  return g.CompareScalar(kind, a, scalar);
}

int64_t CountAt(const std::vector<int64_t>& shape,
                const std::vector<int>& axes) {
  int64_t count = 1;
  for (int axis : axes) count *= shape[axis];
  return count;
}

absl::StatusOr<ValueId> SumBlocks(GradientBuilder& g, ValueId a,
                                  const std::vector<int64_t>& target) {
  const std::vector<int64_t> from = g.shape(a);
  if (from == target) return a;
  if (from.size() != target.size()) return g.SumToShape(a, target);
  std::vector<int64_t> split;
  std::vector<int> block_axes;
  for (size_t i = 0; i < from.size(); ++i) {
    if (target[i] <= 0 || from[i] % target[i] != 0) {
      return absl::InternalError("block sizes do not divide the shape");
    }
    split.push_back(target[i]);
    split.push_back(from[i] / target[i]);
    block_axes.push_back(static_cast<int>(2 * i + 1));
  }
  ASSIGN_OR_RETURN(ValueId r, g.Reshape(a, split));
  ASSIGN_OR_RETURN(ValueId s, g.ReduceSum(r, block_axes, false));
  return g.Reshape(s, target);
}

absl::StatusOr<ValueId> ApplyTransposedAlongAxis(GradientBuilder& g, ValueId v,
                                                 int axis, ValueId matrix) {
  int rank = g.type(v).rank();
  if (rank == 1) {  // matmul takes rank 2 at least: [1, out] x [out, n]
    const int64_t n = g.type(matrix).shape[1];
    ASSIGN_OR_RETURN(ValueId row, g.Reshape(v, {1, g.type(v).shape[0]}));
    ASSIGN_OR_RETURN(ValueId product, g.Matmul(row, matrix));
    return g.Reshape(product, {n});
  }
  std::vector<int> perm(rank);
  for (int i = 0; i < rank; ++i) perm[i] = i;
  std::swap(perm[axis], perm[rank - 1]);
  ASSIGN_OR_RETURN(ValueId moved, g.Transpose(v, perm));
  ASSIGN_OR_RETURN(ValueId product, g.Matmul(moved, matrix));
  return g.Transpose(product, perm);
}

namespace {

absl::StatusOr<ValueId> Mean(GradientBuilder& g, ValueId v,
                             const std::vector<int>& axes) {
  ir::Attrs attrs;
  attrs.Set("axes", ir::ToInt64(axes));
  attrs.Set("keepDimensions", true);
  return g.Op(OpKind::kReduceMean, {v}, attrs);
}

}  // namespace

absl::StatusOr<Standardized> StandardizeGradient(GradientBuilder& g, ValueId x,
                                                 ValueId dy,
                                                 const std::vector<int>& axes,
                                                 double epsilon, ValueId scale,
                                                 bool want_dx) {
  Standardized r;
  ASSIGN_OR_RETURN(ValueId mean, Mean(g, x, axes));
  ASSIGN_OR_RETURN(ValueId centered, g.Sub(x, mean));
  ASSIGN_OR_RETURN(ValueId square, g.Mul(centered, centered));
  ASSIGN_OR_RETURN(ValueId variance, Mean(g, square, axes));
  ASSIGN_OR_RETURN(ValueId shifted,
                   g.Add(variance, g.ScalarLike(epsilon, variance)));
  ASSIGN_OR_RETURN(ValueId deviation, g.Op(OpKind::kSqrt, {shifted}));
  ASSIGN_OR_RETURN(ValueId inverse, g.Op(OpKind::kReciprocal, {deviation}));
  ASSIGN_OR_RETURN(r.xhat, g.Mul(centered, inverse));
  if (!want_dx) return r;
  ValueId dxhat = dy;
  if (scale != ir::kNoValue) {
    ASSIGN_OR_RETURN(dxhat, g.Mul(dy, scale));
  }
  ASSIGN_OR_RETURN(ValueId mean_dxhat, Mean(g, dxhat, axes));
  ASSIGN_OR_RETURN(ValueId product, g.Mul(dxhat, r.xhat));
  ASSIGN_OR_RETURN(ValueId mean_product, Mean(g, product, axes));
  ASSIGN_OR_RETURN(ValueId along, g.Mul(r.xhat, mean_product));
  ASSIGN_OR_RETURN(ValueId a, g.Sub(dxhat, mean_dxhat));
  ASSIGN_OR_RETURN(ValueId b, g.Sub(a, along));
  ASSIGN_OR_RETURN(r.dx, g.Mul(b, inverse));
  return r;
}

absl::StatusOr<ValueId> AlongAxis(GradientBuilder& g, ValueId values, int axis,
                                  int rank) {
  std::vector<int64_t> shape(rank, 1);
  shape[axis] = g.shape(values).empty() ? 1 : g.shape(values)[0];
  return g.Reshape(values, shape);
}

absl::StatusOr<ValueId> ExpandBlocks(GradientBuilder& g, ValueId v,
                                     const std::vector<int64_t>& shape) {
  const std::vector<int64_t> from = g.shape(v);
  if (from == shape) return v;
  if (from.size() != shape.size()) return g.Expand(v, shape);
  std::vector<int64_t> split, spread;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (from[i] <= 0 || shape[i] % from[i] != 0) {
      return absl::InternalError("block sizes do not divide the shape");
    }
    split.push_back(from[i]);
    split.push_back(1);
    spread.push_back(from[i]);
    spread.push_back(shape[i] / from[i]);
  }
  ASSIGN_OR_RETURN(ValueId r, g.Reshape(v, split));
  ASSIGN_OR_RETURN(ValueId e, g.Expand(r, spread));
  return g.Reshape(e, shape);
}

absl::StatusOr<ValueId> ExpandedDy(GradientBuilder& g,
                                   const std::vector<int>& axes) {
  return g.ExpandReduced(g.dy(), g.shape(g.x(0)), axes);
}

absl::StatusOr<ValueId> NormalizedIndices(GradientBuilder& g, ValueId indices,
                                          int64_t size) {
  bool is_signed = ir::IsSigned(g.type(indices).dtype);
  ASSIGN_OR_RETURN(ValueId i32, g.Cast(indices, DType::kInt32));
  if (!is_signed) return i32;
  ASSIGN_OR_RETURN(ValueId negative, CompareScalar(g, OpKind::kLesser, i32, 0));
  ASSIGN_OR_RETURN(ValueId wrapped, g.Add(i32, g.Scalar(size, DType::kInt32)));
  return g.Where(negative, wrapped, i32);
}

namespace {

absl::StatusOr<ValueId> Iota(GradientBuilder& g, int64_t size) {
  std::vector<int64_t> values(size);
  for (int64_t i = 0; i < size; ++i) values[i] = i;
  return g.IndexTensor({size}, values);
}

}  // namespace

absl::StatusOr<ValueId> OneHotKeepShape(GradientBuilder& g, ValueId indices,
                                        int64_t size, DType dtype) {
  ASSIGN_OR_RETURN(ValueId normalized, NormalizedIndices(g, indices, size));
  std::vector<int64_t> shape = g.shape(indices);
  shape.push_back(1);
  ASSIGN_OR_RETURN(ValueId column, g.Reshape(normalized, shape));
  ASSIGN_OR_RETURN(ValueId iota, Iota(g, size));
  ASSIGN_OR_RETURN(ValueId hit, g.Op(OpKind::kEqual, {column, iota}));
  return g.Cast(hit, dtype);
}

absl::StatusOr<ValueId> OneHot(GradientBuilder& g, ValueId indices,
                               int64_t size, DType dtype) {
  int64_t count = 1;
  for (int64_t d : g.shape(indices)) count *= d;
  ASSIGN_OR_RETURN(ValueId flat, g.Reshape(indices, {count}));
  return OneHotKeepShape(g, flat, size, dtype);
}

absl::StatusOr<FlatIndex> FlattenCoordinates(
    GradientBuilder& g, ValueId indices, const std::vector<int64_t>& shape) {
  const std::vector<int64_t> index_shape = g.shape(indices);
  int k = static_cast<int>(index_shape.back());
  FlatIndex flat;
  std::vector<int64_t> dims(shape.begin(), shape.begin() + k);
  std::vector<int64_t> strides(k, 1);
  for (int i = k - 1; i >= 0; --i) {
    strides[i] = flat.rows;
    flat.rows *= dims[i];
  }
  for (size_t i = k; i < shape.size(); ++i) flat.row_size *= shape[i];
  ASSIGN_OR_RETURN(ValueId i32, g.Cast(indices, DType::kInt32));
  ValueId coordinates = i32;
  if (ir::IsSigned(g.type(indices).dtype)) {
    ASSIGN_OR_RETURN(ValueId sizes, g.IndexTensor({k}, dims));
    ASSIGN_OR_RETURN(ValueId negative,
                     CompareScalar(g, OpKind::kLesser, i32, 0));
    ASSIGN_OR_RETURN(ValueId wrapped, g.Add(i32, sizes));
    ASSIGN_OR_RETURN(coordinates, g.Where(negative, wrapped, i32));
  }
  ASSIGN_OR_RETURN(ValueId weights, g.IndexTensor({k}, strides));
  ASSIGN_OR_RETURN(ValueId weighted, g.Mul(coordinates, weights));
  int last = static_cast<int>(index_shape.size()) - 1;
  ASSIGN_OR_RETURN(flat.index, g.ReduceSum(weighted, {last}, false));
  return flat;
}

}  // namespace webnnm::ops
