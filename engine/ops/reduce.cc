#include "engine/ops/reduce.h"

#include "engine/ops/gradient_rules.h"

#include <algorithm>

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferReduce(const InferContext& c) {
  int rank = c.operand(0).rank();
  std::vector<int64_t> all(rank);
  for (int i = 0; i < rank; ++i) all[i] = i;
  absl::StatusOr<std::vector<int>> axes = AxesAttr(c, "axes", all, rank);
  if (!axes.ok()) return axes.status();
  bool keep = c.attrs.GetBool("keepDimensions", false);
  return Result(c, ReducedType(c.operand(0), *axes, keep, c.operand(0).dtype));
}

}  // namespace

TensorType ReducedType(const TensorType& input, const std::vector<int>& axes,
                       bool keep_dimensions, DType dtype) {
  TensorType out;
  out.dtype = dtype;
  for (int i = 0; i < input.rank(); ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (reduced && !keep_dimensions) continue;
    out.shape.push_back(reduced ? 1 : input.shape[i]);
    if (input.has_names()) out.names.push_back(input.names[i]);
  }
  if (keep_dimensions) out.channel_axis = input.channel_axis;
  return out;
}

ir::OpDef ReduceOp(ir::OpKind kind, const char* name, DTypeSet types) {
  return ir::OpDef{
      .kind = kind,
      .name = name,
      .category = ir::OpCategory::kReduction,
      .operands = {{.name = "input", .types = types}},
      .attrs = {{.name = "axes",
                 .kind = ir::AttrKind::kAxes,
                 .language_default = ir::LanguageDefault::kAllFeatureAxes},
                {.name = "keepDimensions", .kind = ir::AttrKind::kBool}},
      .infer = InferReduce};
}

absl::Status ExtremeReductionGradient(ir::GradientBuilder& g) {
  // The extreme elements share the gradient equally (PyTorch's amax/amin).
  std::vector<int> axes = ReducedAxes(g, g.type(g.x(0)).rank());
  const std::vector<int64_t> shape = g.shape(g.x(0));
  ASSIGN_OR_RETURN(ValueId spread, ExpandedDy(g, axes));
  ASSIGN_OR_RETURN(ValueId extreme, g.ExpandReduced(g.y(), shape, axes));
  ASSIGN_OR_RETURN(ValueId hit, g.Op(OpKind::kEqual, {g.x(0), extreme}));
  ASSIGN_OR_RETURN(ValueId mask, g.Cast(hit, g.type(g.x(0)).dtype));
  ASSIGN_OR_RETURN(ValueId count, g.ReduceSum(mask, axes, true));
  ASSIGN_OR_RETURN(ValueId shared, g.Div(spread, count));
  return g.Set(0, g.Mul(shared, mask));
}

}  // namespace webnnm::ops
