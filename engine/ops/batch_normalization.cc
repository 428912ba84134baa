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
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status BatchNormalizationGradient(GradientBuilder& g) {
  // The WebNN operation takes the mean and variance as operands, so each
  // gets its own gradient (training feeds the batch's statistics, computed
  // by WebNN operations that are differentiated in turn).
  const std::vector<int64_t> shape = g.shape(g.x(0));
  int rank = static_cast<int>(shape.size());
  int axis = static_cast<int>(g.attrs().GetInt("axis", 1));
  if (axis < 0) axis += rank;
  double epsilon = g.attrs().GetFloat("epsilon", 1e-5);
  std::vector<int> others;
  for (int i = 0; i < rank; ++i) {
    if (i != axis) others.push_back(i);
  }
  // Per-channel inverse deviation and scale, [C].
  ASSIGN_OR_RETURN(ValueId shifted,
                   g.Add(g.x(2), g.ScalarLike(epsilon, g.x(2))));
  ASSIGN_OR_RETURN(ValueId deviation, g.Op(OpKind::kSqrt, {shifted}));
  ASSIGN_OR_RETURN(ValueId inverse, g.Op(OpKind::kReciprocal, {deviation}));
  ValueId factor = inverse;  // inverse * scale
  if (g.has(3)) {
    ASSIGN_OR_RETURN(factor, g.Mul(inverse, g.x(3)));
  }
  ASSIGN_OR_RETURN(ValueId factor_x, AlongAxis(g, factor, axis, rank));
  ASSIGN_OR_RETURN(ValueId mean_x, AlongAxis(g, g.x(1), axis, rank));
  ASSIGN_OR_RETURN(ValueId centered, g.Sub(g.x(0), mean_x));
  if (g.wants(0)) RETURN_IF_ERROR(g.Set(0, g.Mul(g.dy(), factor_x)));
  ASSIGN_OR_RETURN(ValueId sum_dy, g.ReduceSum(g.dy(), others, false));
  if (g.wants(1)) {
    ASSIGN_OR_RETURN(ValueId scaled, g.Mul(sum_dy, factor));
    RETURN_IF_ERROR(g.Set(1, g.Neg(scaled)));
  }
  if (g.wants(2) || g.wants(3)) {
    ASSIGN_OR_RETURN(ValueId product, g.Mul(g.dy(), centered));
    ASSIGN_OR_RETURN(ValueId sum, g.ReduceSum(product, others, false));
    if (g.wants(2)) {
      // d/dvar (var + eps)^(-1/2) = -(1/2) inverse^3
      ASSIGN_OR_RETURN(ValueId square, g.Mul(inverse, inverse));
      ASSIGN_OR_RETURN(ValueId cube, g.Mul(square, factor));
      ASSIGN_OR_RETURN(ValueId slope, g.MulScalar(cube, -0.5));
      RETURN_IF_ERROR(g.Set(2, g.Mul(sum, slope)));
    }
    if (g.wants(3)) RETURN_IF_ERROR(g.Set(3, g.Mul(sum, inverse)));
  }
  if (g.wants(4)) RETURN_IF_ERROR(g.Set(4, sum_dy));
  return absl::OkStatus();
}

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
      .aliases = {"batchNorm"},
      .gradient = BatchNormalizationGradient};
  return def;
}

}  // namespace webnnm::ops
