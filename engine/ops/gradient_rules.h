// Shared pieces of the gradient rules in engine/ops (see ir/gradient.h).
//
// Each op file defines its own rule next to its shape rule; these helpers
// cover what several rules share: attaching a rule to a definition made by a
// factory, the zero gradient of piecewise-constant operations, the reduced
// axes of a reduction, and comparisons against a scalar.
#ifndef WEBNNM_ENGINE_OPS_GRADIENT_RULES_H_
#define WEBNNM_ENGINE_OPS_GRADIENT_RULES_H_

#include <vector>

#include "engine/base/status_macros.h"
#include "engine/ir/gradient.h"
#include "engine/ops/rules.h"

namespace webnnm::ops {

using ir::GradientBuilder;
using ir::OpKind;
using ir::ValueId;

// `def` with `gradient` as its rule.
inline ir::OpDef WithGradient(ir::OpDef def, ir::GradientFn gradient) {
  def.gradient = gradient;
  return def;
}

// The rule of piecewise-constant operations (ceil, floor, roundEven, sign):
// the gradient is zero almost everywhere, so nothing flows back.
absl::Status ZeroGradient(GradientBuilder& g);

// Sets operand 0's gradient to dy * factor.
absl::Status SetScaled(GradientBuilder& g, absl::StatusOr<ValueId> factor);

// The axes a reduction node reduces (every axis when `axes` is absent).
std::vector<int> ReducedAxes(const GradientBuilder& g, int rank);

// compare(a, scalar) as a uint8 mask, the scalar typed like `a`.
absl::StatusOr<ValueId> CompareScalar(GradientBuilder& g, OpKind kind,
                                      ValueId a, double scalar);

// The product of `shape`'s dimensions at `axes`.
int64_t CountAt(const std::vector<int64_t>& shape,
                const std::vector<int>& axes);

// Sums `a` (of some shape S) down to `target`, where each dimension of
// `target` divides S's (block-wise broadcast, as dequantizeLinear's scale):
// reshapes to [t0, S0/t0, t1, S1/t1, ...] and sums the block axes.
absl::StatusOr<ValueId> SumBlocks(GradientBuilder& g, ValueId a,
                                  const std::vector<int64_t>& target);

// `v` (of some shape T whose dimensions divide `shape`'s) repeated
// block-wise to `shape`; the inverse of SumBlocks.
absl::StatusOr<ValueId> ExpandBlocks(GradientBuilder& g, ValueId v,
                                     const std::vector<int64_t>& shape);

// dy of a reduction over `axes` (with or without kept dimensions), broadcast
// back to the input's shape.
absl::StatusOr<ValueId> ExpandedDy(GradientBuilder& g,
                                   const std::vector<int>& axes);

// Integer `indices` into a dimension of size `size`, as int32 with negative
// indices counted from the end.
absl::StatusOr<ValueId> NormalizedIndices(GradientBuilder& g, ValueId indices,
                                          int64_t size);
// The one-hot rows of the flattened indices: [count, size] of `dtype`.
absl::StatusOr<ValueId> OneHot(GradientBuilder& g, ValueId indices,
                               int64_t size, DType dtype);
// The one-hot vectors of the indices in place: indices.shape + [size].
absl::StatusOr<ValueId> OneHotKeepShape(GradientBuilder& g, ValueId indices,
                                        int64_t size, DType dtype);

// gatherND/scatterND coordinates (indices [..., k]) as row numbers of the
// input seen as [rows, row_size] (its first k dimensions flattened).
struct FlatIndex {
  ValueId index = ir::kNoValue;  // int32, indices.shape[:-1]
  int64_t rows = 1;
  int64_t row_size = 1;
};
absl::StatusOr<FlatIndex> FlattenCoordinates(GradientBuilder& g,
                                             ValueId indices,
                                             const std::vector<int64_t>& shape);

// Applies `matrix` ([out, in] constant) along `axis` of `v` (whose size
// there is `out`) the transposed way: r[.., i, ..] = Σ_j v[.., j, ..] m[j, i].
// The gradient of a linear map that acts along one axis (pad's edge and
// reflection modes, resampling, separable pooling).
absl::StatusOr<ValueId> ApplyTransposedAlongAxis(GradientBuilder& g, ValueId v,
                                                 int axis, ValueId matrix);

// For y = (x - mean) / sqrt(variance + epsilon) * scale + bias with the mean
// and (biased) variance of x over `axes`: xhat, and dx from dy (`scale`
// already broadcast to x's shape, or kNoValue for 1):
//   dx = (dxhat - mean(dxhat) - xhat mean(dxhat xhat)) / sqrt(var + eps),
//   dxhat = dy scale.
struct Standardized {
  ValueId xhat = ir::kNoValue;
  ValueId dx = ir::kNoValue;  // only when asked for
};
absl::StatusOr<Standardized> StandardizeGradient(GradientBuilder& g, ValueId x,
                                                 ValueId dy,
                                                 const std::vector<int>& axes,
                                                 double epsilon, ValueId scale,
                                                 bool want_dx);

// Reshapes per-channel `values` ([C]) to broadcast along `axis` of a
// rank-`rank` tensor ([1, C, 1, 1] for axis 1 of rank 4).
absl::StatusOr<ValueId> AlongAxis(GradientBuilder& g, ValueId values, int axis,
                                  int rank);

}  // namespace webnnm::ops

#endif  // WEBNNM_ENGINE_OPS_GRADIENT_RULES_H_
