// logSoftmax: y_i = (x_i - M) - ln(sum_j e^(x_j - M)) along `axis`, with
// M = max_j x_j (the stable form, ERRATA 14a).
// Operand: input (float32, float16). Option: axis (default: the last
// dimension). Result: the input's type and shape.
//
// Decomposes into reduceMax, sub, exp, reduceSum, log and sub.
#include "engine/ir/rewriter.h"
#include "engine/ops/unary.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferLogSoftmax(const InferContext& c) {
  int rank = c.operand(0).rank();
  if (rank == 0) {
    return OperandError(0, "logSoftmax needs an input of rank 1 or more");
  }
  absl::StatusOr<int> axis = AxisAttr(c, "axis", rank - 1, rank);
  if (!axis.ok()) return axis.status();
  return InferSameAsInput(c);
}

absl::Status DecomposeLogSoftmax(ir::GraphRewriter& g, int node) {
  ir::ValueId x = g.Operand(node, 0);
  int64_t axis =
      g.graph().node(node).attrs.GetInt("axis", g.Type(x).rank() - 1);
  ir::Attrs reduce;
  reduce.Set("axes", std::vector<int64_t>{axis});
  reduce.Set("keepDimensions", true);
  absl::StatusOr<ir::ValueId> max = g.Add(ir::OpKind::kReduceMax, {x}, reduce);
  if (!max.ok()) return max.status();
  absl::StatusOr<ir::ValueId> shifted = g.Add(ir::OpKind::kSub, {x, *max});
  if (!shifted.ok()) return shifted.status();
  absl::StatusOr<ir::ValueId> e = g.Add(ir::OpKind::kExp, {*shifted});
  if (!e.ok()) return e.status();
  absl::StatusOr<ir::ValueId> sum = g.Add(ir::OpKind::kReduceSum, {*e}, reduce);
  if (!sum.ok()) return sum.status();
  absl::StatusOr<ir::ValueId> log = g.Add(ir::OpKind::kLog, {*sum});
  if (!log.ok()) return log.status();
  absl::StatusOr<ir::ValueId> y = g.Add(ir::OpKind::kSub, {*shifted, *log});
  if (!y.ok()) return y.status();
  g.Replace(node, {*y});
  return absl::OkStatus();
}

}  // namespace

const ir::OpDef& LogSoftmaxOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kLogSoftmax,
      .name = "logSoftmax",
      .category = ir::OpCategory::kHighLevel,
      .operands = {{.name = "input", .types = ir::kFloatTypes}},
      .attrs = {{.name = "axis",
                 .kind = ir::AttrKind::kAxis,
                 .language_default = ir::LanguageDefault::kLastAxis}},
      .infer = InferLogSoftmax,
      .shape_preserving = true,
      .weight_init = ir::WeightInit::kGlorot,
      .decompose = DecomposeLogSoftmax};
  return def;
}

}  // namespace webnnm::ops
