// layerNormalization: normalizes each sample over `axes`:
// y = (x - mean) / sqrt(variance + epsilon) * scale + bias.
// Operands: input (float32, float16), scale, bias (optional; the shape of
// the input's dimensions at `axes`, in that order). Options: axes (default:
// every axis but the first; the model language defaults to every feature
// axis), epsilon (default 1e-5). Result: the input's type and shape.
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

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
      .aliases = {"layerNorm"}};
  return def;
}

}  // namespace webnnm::ops
