// batchNormalization: y = (x - mean) / sqrt(variance + epsilon) * scale +
// bias, with mean, variance, scale and bias taken along `axis`.
// Operands: input (float32, float16), mean, variance, scale (optional), bias
// (optional) — each 1-D with the size of input dimension `axis`.
// Options: axis (default 1; the model language defaults to the channel
// axis), epsilon (default 1e-5). Result: the input's type and shape.
//
// In the model language the positional operands are scale and bias
// (`batchNormalization(scale, bias)`); mean and variance are options. When
// they are absent the DAG builder adds the running mean and variance as
// non-trainable state (ERRATA 15b): training normalises with the batch's own
// statistics and updates them; testing and inference use them.
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferBatchNormalization(const InferContext& c) {
  int rank = c.operand(0).rank();
  if (rank == 0) {
    return OperandError(0,
                        "batchNormalization needs an input of rank 1 or "
                        "more");
  }
  absl::StatusOr<int> axis = AxisAttr(c, "axis", 1, rank);
  if (!axis.ok()) return axis.status();
  absl::StatusOr<int64_t> size =
      ConcreteDim(c, 0, *axis, "the normalized axis");
  if (!size.ok()) return AttrError("axis", size.status());
  for (int slot = 1; slot <= 4; ++slot) {
    if (!c.has(slot)) continue;
    absl::Status status = CheckShapeIs(c, slot, {*size});
    if (!status.ok()) return status;
  }
  return InferSameAsInput(c);
}

// mean, variance, scale and bias: [size of `axis`].
absl::StatusOr<TensorType> SolveBatchNormalization(const InferContext& c,
                                                   const TensorType*, int) {
  int rank = c.operand(0).rank();
  int64_t axis = c.attrs.GetInt("axis", 1);
  if (axis < 0 || axis >= rank || ir::IsSymbolic(c.operand(0).shape[axis])) {
    return absl::InvalidArgumentError(
        "batchNormalization cannot normalize along this axis");
  }
  TensorType p;
  p.shape = {c.operand(0).shape[axis]};
  if (c.operand(0).has_names()) p.names = {c.operand(0).names[axis]};
  return p;
}

}  // namespace

const ir::OpDef& BatchNormalizationOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kBatchNormalization,
      .name = "batchNormalization",
      .category = ir::OpCategory::kNormalization,
      .operands = {{.name = "input", .types = ir::kFloatTypes},
                   {.name = "mean",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kRunningMean},
                   {.name = "variance",
                    .types = ir::kFloatTypes,
                    .param = ir::ParamRole::kRunningVariance},
                   {.name = "scale",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kScale},
                   {.name = "bias",
                    .types = ir::kFloatTypes,
                    .optional = true,
                    .param = ir::ParamRole::kBias}},
      .attrs = {{.name = "axis",
                 .kind = ir::AttrKind::kAxis,
                 .language_default = ir::LanguageDefault::kChannelAxis},
                {.name = "epsilon", .kind = ir::AttrKind::kFloat}},
      .infer = InferBatchNormalization,
      .solve = SolveBatchNormalization,
      .shape_preserving = true,
      .language_operands = {3, 4},
      .aliases = {"batchNorm"}};
  return def;
}

}  // namespace webnnm::ops
