// instanceNormalization: normalizes each channel of each sample over its
// height and width: y = (x - mean) / sqrt(variance + epsilon) * scale + bias.
// Operands: input (float32, float16; 4-D), scale, bias (optional; 1-D with
// the channel count). Options: epsilon (default 1e-5), layout (nchw | nhwc,
// default nchw). Result: the input's type and shape.
#include <algorithm>
#include <cmath>

#include "engine/ops/conv.h"
#include "engine/ops/gradient_rules.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {

namespace {

absl::Status InstanceNormalizationGradient(GradientBuilder& g) {
  ASSIGN_OR_RETURN(ImageAxes in, InputLayoutAxes(g.context(), "layout"));
  double epsilon = g.attrs().GetFloat("epsilon", 1e-5);
  std::vector<int> spatial = {in.height, in.width};
  std::vector<int> others = {0, in.height, in.width};
  std::sort(others.begin(), others.end());
  ValueId scale = ir::kNoValue;
  if (g.has(1)) {
    ASSIGN_OR_RETURN(scale, AlongAxis(g, g.x(1), in.channels, 4));
  }
  ASSIGN_OR_RETURN(Standardized parts,
                   StandardizeGradient(g, g.x(0), g.dy(), spatial, epsilon,
                                       scale, g.wants(0)));
  if (g.wants(0)) RETURN_IF_ERROR(g.Set(0, parts.dx));
  if (g.wants(1)) {
    ASSIGN_OR_RETURN(ValueId product, g.Mul(g.dy(), parts.xhat));
    RETURN_IF_ERROR(g.Set(1, g.ReduceSum(product, others, false)));
  }
  if (g.wants(2)) RETURN_IF_ERROR(g.Set(2, g.ReduceSum(g.dy(), others, false)));
  return absl::OkStatus();
}

absl::StatusOr<Types> InferInstanceNormalization(const InferContext& c) {
  absl::Status status = CheckRankIs(c, 0, 4);
  if (!status.ok()) return status;
  absl::StatusOr<ImageAxes> axes = InputLayoutAxes(c, "layout");
  if (!axes.ok()) return axes.status();
  absl::StatusOr<int64_t> channels =
      ConcreteDim(c, 0, axes->channels, "instanceNormalization");
  if (!channels.ok()) return channels.status();
  for (int slot = 1; slot <= 2; ++slot) {
    if (!c.has(slot)) continue;
    status = CheckShapeIs(c, slot, {*channels});
    if (!status.ok()) return status;
  }
  TensorType out = SameShape(c, 0, c.operand(0).dtype);
  out.channel_axis = axes->channels;
  return Result(c, std::move(out));
}

absl::StatusOr<TensorType> SolveInstanceNormalization(const InferContext& c,
                                                      const TensorType*, int) {
  if (c.operand(0).rank() != 4) {
    return absl::InvalidArgumentError(
        "instanceNormalization needs a 4-D input");
  }
  absl::StatusOr<ImageAxes> axes = InputLayoutAxes(c, "layout");
  if (!axes.ok()) return axes.status();
  TensorType p;
  p.shape = {c.operand(0).shape[axes->channels]};
  return p;
}

}  // namespace

const ir::OpDef& InstanceNormalizationOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kInstanceNormalization,
      .name = "instanceNormalization",
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
      .attrs = {{.name = "epsilon", .kind = ir::AttrKind::kFloat},
                {.name = "layout",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"nchw", "nhwc"}}},
      .infer = InferInstanceNormalization,
      .solve = SolveInstanceNormalization,
      .shape_preserving = true,
      .aliases = {"instanceNorm"},
      .gradient = InstanceNormalizationGradient};
  return def;
}

}  // namespace webnnm::ops
