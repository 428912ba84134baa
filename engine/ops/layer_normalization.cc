// layerNormalization: normalizes each sample over `axes`:
// y = (x - mean) / sqrt(variance + epsilon) * scale + bias.
// Operands: input (float32, float16), scale, bias (optional; the shape of
// the input's dimensions at `axes`, in that order). Options: axes (default:
// every axis but the first; the model language defaults to every feature
// axis), epsilon (default 1e-5). Result: the input's type and shape.
#include <algorithm>
#include <cmath>

#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status LayerNormalizationGradient(GradientBuilder& g) {
  const std::vector<int64_t> shape = g.shape(g.x(0));
  int rank = static_cast<int>(shape.size());
  std::vector<int> axes = ReducedAxes(g, rank);
  if (!g.attrs().Has("axes")) {
    axes.clear();
    for (int i = 1; i < rank; ++i) axes.push_back(i);
  }
  double epsilon = g.attrs().GetFloat("epsilon", 1e-5);
  // scale and bias list the dimensions at `axes` in that order; to_sorted
  // brings them to the input's order.
  std::vector<int> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> to_sorted(axes.size());
  for (size_t j = 0; j < sorted.size(); ++j) {
    to_sorted[j] = static_cast<int>(
        std::find(axes.begin(), axes.end(), sorted[j]) - axes.begin());
  }
  std::vector<int64_t> kept(rank, 1);
  for (int axis : axes) kept[axis] = shape[axis];
  std::vector<int> others;
  for (int i = 0; i < rank; ++i) {
    if (std::find(axes.begin(), axes.end(), i) == axes.end())
      others.push_back(i);
  }
  ValueId scale = ir::kNoValue;
  if (g.has(1) && !axes.empty()) {
    ASSIGN_OR_RETURN(ValueId ordered, g.Transpose(g.x(1), to_sorted));
    ASSIGN_OR_RETURN(scale, g.Reshape(ordered, kept));
  }
  ASSIGN_OR_RETURN(
      Standardized parts,
      StandardizeGradient(g, g.x(0), g.dy(), axes, epsilon, scale, g.wants(0)));
  if (g.wants(0)) RETURN_IF_ERROR(g.Set(0, parts.dx));
  std::vector<int> from_sorted = ir::InversePermutation(to_sorted);
  if (g.wants(1)) {
    ASSIGN_OR_RETURN(ValueId product, g.Mul(g.dy(), parts.xhat));
    ASSIGN_OR_RETURN(ValueId sum, g.ReduceSum(product, others, false));
    RETURN_IF_ERROR(g.Set(1, g.Transpose(sum, from_sorted)));
  }
  if (g.wants(2)) {
    ASSIGN_OR_RETURN(ValueId sum, g.ReduceSum(g.dy(), others, false));
    RETURN_IF_ERROR(g.Set(2, g.Transpose(sum, from_sorted)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> NormalizedShape(const InferContext& c) {
  int rank = c.operand(0).rank();
  std::vector<int64_t> fallback;
  for (int i = 1; i < rank; ++i) fallback.push_back(i);
  absl::StatusOr<std::vector<int>> axes = AxesAttr(c, "axes", fallback, rank);
  if (!axes.ok()) return axes.status();
  std::vector<int64_t> shape;
  for (int axis : *axes) {
    absl::StatusOr<int64_t> d =
        ConcreteDim(c, 0, axis, "layerNormalization's scale and bias");
    if (!d.ok()) return AttrError("axes", d.status());
    shape.push_back(*d);
  }
  return shape;
}

absl::StatusOr<Types> InferLayerNormalization(const InferContext& c) {
  absl::StatusOr<std::vector<int64_t>> shape = NormalizedShape(c);
  if (!shape.ok()) return shape.status();
  for (int slot = 1; slot <= 2; ++slot) {
    if (!c.has(slot)) continue;
    absl::Status status = CheckShapeIs(c, slot, *shape);
    if (!status.ok()) return status;
  }
  return InferSameAsInput(c);
}

absl::StatusOr<TensorType> SolveLayerNormalization(const InferContext& c,
                                                   const TensorType*, int) {
  absl::StatusOr<std::vector<int64_t>> shape = NormalizedShape(c);
  if (!shape.ok()) return shape.status();
  TensorType p;
  p.shape = *std::move(shape);
  return p;
}

}  // namespace

const ir::OpDef& LayerNormalizationOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kLayerNormalization,
      .name = "layerNormalization",
      .category = ir::OpCategory::kNormalization,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   {.name = "scale",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kScale},
                   {.name = "bias",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kBias}},
      .attrs = {{.name = "axes",
                 .kind = ir::AttrKind::kAxes,
                 .language_default = ir::LanguageDefault::kAllFeatureAxes},
                {.name = "epsilon", .kind = ir::AttrKind::kFloat}},
      .infer = InferLayerNormalization,
      .solve = SolveLayerNormalization,
      .shape_preserving = true,
      .aliases = {"layerNorm"},
      .gradient = LayerNormalizationGradient};
  return def;
}

}  // namespace webnnm::ops
