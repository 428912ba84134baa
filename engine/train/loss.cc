#include "engine/train/loss.h"

#include <optional>
#include <string>
#include <vector>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::train {

using ir::OpKind;
using ir::ValueId;

namespace {

struct LossName {
  LossKind kind;
  const char* abbreviation;
  const char* long_name;
};

constexpr LossName kLossNames[] = {
    {LossKind::kMeanSquaredError, "MSE", "meanSquaredError"},
    {LossKind::kMeanAbsoluteError, "MAE", "meanAbsoluteError"},
    {LossKind::kBinaryCrossEntropy, "BCE", "binaryCrossEntropy"},
    {LossKind::kCategoricalCrossEntropy, "CCE", "categoricalCrossEntropy"},
    {LossKind::kCategoricalCrossEntropyWithLogits, "CCEL",
     "categoricalCrossEntropyWithLogits"},
    {LossKind::kSparseCategoricalCrossEntropy, "SCE",
     "sparseCategoricalCrossEntropy"},
    {LossKind::kHinge, "HIL", "hinge"},
    {LossKind::kHuber, "HUL", "huber"},
    {LossKind::kKlDivergence, "KLD", "klDivergence"},
    {LossKind::kFocal, "FOL", "focal"},
};

const LossName& Name(LossKind loss) {
  for (const LossName& n : kLossNames) {
    if (n.kind == loss) return n;
  }
  return kLossNames[0];
}

// log p over the last axis of the output, for the cross-entropies.
absl::StatusOr<ValueId> LogProbabilities(ir::GraphOps& ops, LossKind loss,
                                         const LossInputs& in) {
  int last = ops.type(in.output).rank() - 1;
  auto log_softmax = [&](ValueId z) -> absl::StatusOr<ValueId> {
    ASSIGN_OR_RETURN(ValueId lse,
                     ops.Reduce(OpKind::kReduceLogSumExp, z, {last}, true));
    return ops.Sub(z, lse);
  };
  if (loss == LossKind::kCategoricalCrossEntropyWithLogits) {
    return log_softmax(in.output);
  }
  if (in.activation == OutputActivation::kSoftmax &&
      in.logits != ir::kNoValue) {
    return log_softmax(in.logits);
  }
  if (in.activation == OutputActivation::kLogSoftmax) return in.output;
  ir::Attrs clamp;
  clamp.Set("minValue", 1e-7);
  clamp.Set("maxValue", 1.0);
  ASSIGN_OR_RETURN(ValueId p, ops.Op(OpKind::kClamp, {in.output}, clamp));
  return ops.Unary(OpKind::kLog, p);
}

// The SCE target as one-hot rows of the output's type.
absl::StatusOr<ValueId> OneHotTarget(ir::GraphOps& ops, const LossInputs& in) {
  std::vector<int64_t> shape = ops.shape(in.output);
  int64_t classes = shape.back();
  std::vector<int64_t> column = ops.shape(in.target);
  column.push_back(1);
  ASSIGN_OR_RETURN(ValueId labels, ops.Cast(in.target, ir::DType::kInt32));
  ASSIGN_OR_RETURN(ValueId labels_column, ops.Reshape(labels, column));
  std::vector<int64_t> iota(classes);
  for (int64_t i = 0; i < classes; ++i) iota[i] = i;
  ASSIGN_OR_RETURN(ValueId range, ops.IndexTensor({classes}, iota));
  ASSIGN_OR_RETURN(ValueId hit, ops.Op(OpKind::kEqual, {labels_column, range}));
  return ops.Cast(hit, ops.type(in.output).dtype);
}

// The per-element (or per-class) loss e, of the output's shape.
absl::StatusOr<ValueId> ElementLoss(ir::GraphOps& ops, LossKind loss,
                                    const LossParams& params,
                                    const LossInputs& in, ValueId target) {
  ValueId y = target, out = in.output;
  switch (loss) {
    case LossKind::kMeanSquaredError: {
      ASSIGN_OR_RETURN(ValueId d, ops.Sub(out, y));
      return ops.Mul(d, d);
    }
    case LossKind::kMeanAbsoluteError: {
      ASSIGN_OR_RETURN(ValueId d, ops.Sub(out, y));
      return ops.Unary(OpKind::kAbs, d);
    }
    case LossKind::kBinaryCrossEntropy: {
      if (in.activation == OutputActivation::kSigmoid &&
          in.logits != ir::kNoValue) {
        // softplus(z) - y z = -(y log σ(z) + (1 - y) log(1 - σ(z)))
        ASSIGN_OR_RETURN(ValueId sp, ops.Unary(OpKind::kSoftplus, in.logits));
        ASSIGN_OR_RETURN(ValueId yz, ops.Mul(y, in.logits));
        return ops.Sub(sp, yz);
      }
      ir::Attrs clamp;
      clamp.Set("minValue", 1e-7);
      clamp.Set("maxValue", 1.0 - 1e-7);
      ASSIGN_OR_RETURN(ValueId p, ops.Op(OpKind::kClamp, {out}, clamp));
      ASSIGN_OR_RETURN(ValueId log_p, ops.Unary(OpKind::kLog, p));
      ASSIGN_OR_RETURN(ValueId q, ops.Sub(ops.ScalarLike(1, p), p));
      ASSIGN_OR_RETURN(ValueId log_q, ops.Unary(OpKind::kLog, q));
      ASSIGN_OR_RETURN(ValueId not_y, ops.Sub(ops.ScalarLike(1, y), y));
      ASSIGN_OR_RETURN(ValueId a, ops.Mul(y, log_p));
      ASSIGN_OR_RETURN(ValueId b, ops.Mul(not_y, log_q));
      ASSIGN_OR_RETURN(ValueId sum, ops.Add(a, b));
      return ops.Neg(sum);
    }
    case LossKind::kHinge: {
      // targets 0/1 -> -1/+1
      ASSIGN_OR_RETURN(ValueId twice, ops.MulScalar(y, 2));
      ASSIGN_OR_RETURN(ValueId t, ops.AddScalar(twice, -1));
      ASSIGN_OR_RETURN(ValueId margin, ops.Mul(t, out));
      ASSIGN_OR_RETURN(ValueId slack,
                       ops.Sub(ops.ScalarLike(1, margin), margin));
      return ops.Unary(OpKind::kRelu, slack);
    }
    case LossKind::kHuber: {
      double delta = params.delta;
      ASSIGN_OR_RETURN(ValueId d, ops.Sub(out, y));
      ASSIGN_OR_RETURN(ValueId a, ops.Unary(OpKind::kAbs, d));
      ASSIGN_OR_RETURN(ValueId square, ops.Mul(d, d));
      ASSIGN_OR_RETURN(ValueId quadratic, ops.MulScalar(square, 0.5));
      ASSIGN_OR_RETURN(ValueId shifted, ops.AddScalar(a, -0.5 * delta));
      ASSIGN_OR_RETURN(ValueId linear, ops.MulScalar(shifted, delta));
      ASSIGN_OR_RETURN(ValueId small,
                       ops.CompareScalar(OpKind::kLesserOrEqual, a, delta));
      return ops.Where(small, quadratic, linear);
    }
    case LossKind::kCategoricalCrossEntropy:
    case LossKind::kCategoricalCrossEntropyWithLogits:
    case LossKind::kSparseCategoricalCrossEntropy: {
      ASSIGN_OR_RETURN(ValueId log_p, LogProbabilities(ops, loss, in));
      ASSIGN_OR_RETURN(ValueId product, ops.Mul(y, log_p));
      return ops.Neg(product);
    }
    case LossKind::kKlDivergence: {
      ASSIGN_OR_RETURN(ValueId log_p, LogProbabilities(ops, loss, in));
      ASSIGN_OR_RETURN(ValueId positive,
                       ops.CompareScalar(OpKind::kGreater, y, 0));
      ASSIGN_OR_RETURN(ValueId safe_y,
                       ops.Where(positive, y, ops.ScalarLike(1, y)));
      ASSIGN_OR_RETURN(ValueId log_y, ops.Unary(OpKind::kLog, safe_y));
      ASSIGN_OR_RETURN(ValueId gap, ops.Sub(log_y, log_p));
      ASSIGN_OR_RETURN(ValueId product, ops.Mul(y, gap));
      return ops.WhereOrZero(positive, product);
    }
    case LossKind::kFocal: {
      // p_t = Σ y p over the classes (one-hot y); -α (1 - p_t)^γ log p_t,
      // kept per class as y · that so that the row sum is the loss.
      int last = ops.type(out).rank() - 1;
      ASSIGN_OR_RETURN(ValueId log_p, LogProbabilities(ops, loss, in));
      ASSIGN_OR_RETURN(ValueId y_log_p, ops.Mul(y, log_p));
      ASSIGN_OR_RETURN(ValueId log_pt, ops.ReduceSum(y_log_p, {last}, true));
      ASSIGN_OR_RETURN(ValueId pt, ops.Unary(OpKind::kExp, log_pt));
      ASSIGN_OR_RETURN(ValueId rest, ops.Sub(ops.ScalarLike(1, pt), pt));
      ir::Attrs clamp;
      clamp.Set("minValue", 0.0);
      ASSIGN_OR_RETURN(ValueId safe_rest,
                       ops.Op(OpKind::kClamp, {rest}, clamp));
      ASSIGN_OR_RETURN(ValueId focus,
                       ops.Op(OpKind::kPow,
                              {safe_rest, ops.ScalarLike(params.gamma, rest)}));
      ASSIGN_OR_RETURN(ValueId weighted, ops.Mul(focus, y_log_p));
      return ops.MulScalar(weighted, -params.alpha);
    }
  }
  return absl::InternalError("unknown loss");
}

bool PerRow(LossKind loss) {
  switch (loss) {
    case LossKind::kCategoricalCrossEntropy:
    case LossKind::kCategoricalCrossEntropyWithLogits:
    case LossKind::kSparseCategoricalCrossEntropy:
    case LossKind::kKlDivergence:
    case LossKind::kFocal:
      return true;
    default:
      return false;
  }
}

// The mask as [B, 1, ...] of the output's rank and type.
absl::StatusOr<ValueId> RowMask(ir::GraphOps& ops, const LossInputs& in) {
  std::vector<int64_t> shape(ops.type(in.output).rank(), 1);
  shape[0] = ops.shape(in.output)[0];
  ASSIGN_OR_RETURN(ValueId mask, ops.Cast(in.mask, ops.type(in.output).dtype));
  return ops.Reshape(mask, shape);
}

}  // namespace

std::optional<LossKind> ParseLoss(std::string_view name) {
  for (const LossName& n : kLossNames) {
    if (name == n.abbreviation || name == n.long_name) return n.kind;
  }
  return std::nullopt;
}

const char* LossAbbreviation(LossKind loss) { return Name(loss).abbreviation; }
const char* LossLongName(LossKind loss) { return Name(loss).long_name; }

bool IsClassification(LossKind loss) {
  return loss != LossKind::kMeanSquaredError &&
         loss != LossKind::kMeanAbsoluteError && loss != LossKind::kHuber;
}

absl::StatusOr<LossValue> BuildLoss(ir::GraphOps& ops, LossKind loss,
                                    const LossParams& params,
                                    const LossInputs& in) {
  ValueId target = in.target;
  if (loss == LossKind::kSparseCategoricalCrossEntropy) {
    ASSIGN_OR_RETURN(target, OneHotTarget(ops, in));
  } else if (ops.type(target).dtype != ops.type(in.output).dtype) {
    ASSIGN_OR_RETURN(target, ops.Cast(target, ops.type(in.output).dtype));
  }
  ASSIGN_OR_RETURN(ValueId e, ElementLoss(ops, loss, params, in, target));
  ASSIGN_OR_RETURN(ValueId mask, RowMask(ops, in));
  ASSIGN_OR_RETURN(ValueId masked, ops.Mul(e, mask));
  LossValue value;
  ASSIGN_OR_RETURN(value.sum, ops.SumAll(masked));
  ASSIGN_OR_RETURN(ValueId rows, ops.SumAll(mask));
  value.count = rows;
  if (!PerRow(loss)) {
    int64_t features = 1;
    std::vector<int64_t> shape = ops.shape(in.output);
    for (size_t i = 1; i < shape.size(); ++i) features *= shape[i];
    ASSIGN_OR_RETURN(value.count,
                     ops.MulScalar(rows, static_cast<double>(features)));
  }
  ir::Attrs at_least_one;
  at_least_one.Set("minValue", 1.0);
  ASSIGN_OR_RETURN(ValueId divisor,
                   ops.Op(OpKind::kClamp, {value.count}, at_least_one));
  ASSIGN_OR_RETURN(value.mean, ops.Div(value.sum, divisor));
  return value;
}

absl::StatusOr<std::optional<ErrorMoments>> BuildErrorMoments(
    ir::GraphOps& ops, LossKind loss, const LossInputs& in) {
  const std::vector<int64_t> shape = ops.shape(in.output);
  const int last = static_cast<int>(shape.size()) - 1;
  const ir::DType dtype = ops.type(in.output).dtype;
  ValueId error;
  int64_t per_row = 1;
  if (!IsClassification(loss)) {  // ŷ − y, each value
    ASSIGN_OR_RETURN(ValueId y, ops.Cast(in.target, dtype));
    ASSIGN_OR_RETURN(error, ops.Sub(in.output, y));
    for (size_t i = 1; i < shape.size(); ++i) per_row *= shape[i];
  } else if (loss == LossKind::kHinge || loss == LossKind::kKlDivergence ||
             shape.size() < 2) {
    return std::nullopt;
  } else if (shape.back() == 1 &&
             loss != LossKind::kSparseCategoricalCrossEntropy) {
    // One unit: p_t = y p + (1 - y)(1 - p) for a sigmoid's p.
    if (in.activation != OutputActivation::kSigmoid) return std::nullopt;
    ASSIGN_OR_RETURN(ValueId y, ops.Cast(in.target, dtype));
    ASSIGN_OR_RETURN(ValueId q,
                     ops.Sub(ops.ScalarLike(1, in.output), in.output));
    ASSIGN_OR_RETURN(ValueId not_y, ops.Sub(ops.ScalarLike(1, y), y));
    ASSIGN_OR_RETURN(ValueId a, ops.Mul(y, in.output));
    ASSIGN_OR_RETURN(ValueId b, ops.Mul(not_y, q));
    ASSIGN_OR_RETURN(ValueId pt, ops.Add(a, b));
    ASSIGN_OR_RETURN(ValueId row, ops.Reshape(pt, {shape[0]}));
    ASSIGN_OR_RETURN(error, ops.Sub(ops.ScalarLike(1, row), row));
  } else {  // 1 - p_t, p_t = exp(Σ y log p) for one-hot y
    ValueId y;
    if (loss == LossKind::kSparseCategoricalCrossEntropy) {
      ASSIGN_OR_RETURN(y, OneHotTarget(ops, in));
    } else {
      ASSIGN_OR_RETURN(y, ops.Cast(in.target, dtype));
    }
    ASSIGN_OR_RETURN(ValueId log_p, LogProbabilities(ops, loss, in));
    ASSIGN_OR_RETURN(ValueId y_log_p, ops.Mul(y, log_p));
    ASSIGN_OR_RETURN(ValueId log_pt, ops.ReduceSum(y_log_p, {last}, false));
    ASSIGN_OR_RETURN(ValueId pt, ops.Unary(OpKind::kExp, log_pt));
    ASSIGN_OR_RETURN(ValueId row, ops.Reshape(pt, {shape[0]}));
    ASSIGN_OR_RETURN(error, ops.Sub(ops.ScalarLike(1, row), row));
  }
  ASSIGN_OR_RETURN(error, ops.Cast(error, ir::DType::kFloat32));
  std::vector<int64_t> mask_shape(ops.type(error).rank(), 1);
  mask_shape[0] = shape[0];
  ASSIGN_OR_RETURN(ValueId mask32, ops.Cast(in.mask, ir::DType::kFloat32));
  ASSIGN_OR_RETURN(ValueId mask, ops.Reshape(mask32, mask_shape));
  ASSIGN_OR_RETURN(ValueId power, ops.Mul(error, mask));  // e, masked
  ErrorMoments m;
  for (int k = 0; k < 4; ++k) {
    if (k > 0) {
      ASSIGN_OR_RETURN(power, ops.Mul(power, error));
    }
    ASSIGN_OR_RETURN(m.sums[k], ops.SumAll(power));
  }
  ASSIGN_OR_RETURN(ValueId rows, ops.SumAll(mask32));
  ASSIGN_OR_RETURN(m.count, ops.MulScalar(rows, static_cast<double>(per_row)));
  return m;
}

absl::StatusOr<ValueId> BuildCorrectCount(ir::GraphOps& ops, LossKind loss,
                                          const LossInputs& in) {
  std::vector<int64_t> shape = ops.shape(in.output);
  int last = static_cast<int>(shape.size()) - 1;
  ir::DType dtype = ops.type(in.output).dtype;
  ValueId right;
  if (shape.size() >= 2 && shape.back() == 1 &&
      loss != LossKind::kSparseCategoricalCrossEntropy) {
    // One unit: a probability (threshold 0.5) or a logit (threshold 0).
    double threshold = in.activation == OutputActivation::kSigmoid ||
                               loss == LossKind::kBinaryCrossEntropy
                           ? 0.5
                           : 0.0;
    if (loss == LossKind::kHinge) threshold = 0.0;
    ASSIGN_OR_RETURN(
        ValueId predicted,
        ops.CompareScalar(OpKind::kGreaterOrEqual, in.output, threshold));
    ASSIGN_OR_RETURN(ValueId y, ops.Cast(in.target, dtype));
    ASSIGN_OR_RETURN(ValueId actual,
                     ops.CompareScalar(OpKind::kGreaterOrEqual, y, 0.5));
    ASSIGN_OR_RETURN(right, ops.Op(OpKind::kEqual, {predicted, actual}));
  } else {
    ir::Attrs arg;
    arg.Set("axis", int64_t{last});
    arg.Set("keepDimensions", false);
    arg.Set("outputDataType", std::string("int32"));
    ASSIGN_OR_RETURN(ValueId predicted,
                     ops.Op(OpKind::kArgMax, {in.output}, arg));
    ValueId actual;
    if (loss == LossKind::kSparseCategoricalCrossEntropy) {
      ASSIGN_OR_RETURN(actual, ops.Cast(in.target, ir::DType::kInt32));
    } else {
      ASSIGN_OR_RETURN(actual, ops.Op(OpKind::kArgMax, {in.target}, arg));
    }
    ASSIGN_OR_RETURN(right, ops.Op(OpKind::kEqual, {predicted, actual}));
  }
  ASSIGN_OR_RETURN(ValueId as_float, ops.Cast(right, ir::DType::kFloat32));
  // [B, ...] -> per row: all elements right (one unit: the one element).
  std::vector<int64_t> rs = ops.shape(as_float);
  if (rs.size() > 1) {
    std::vector<int> axes;
    for (size_t i = 1; i < rs.size(); ++i) axes.push_back(static_cast<int>(i));
    ASSIGN_OR_RETURN(as_float,
                     ops.Reduce(OpKind::kReduceMin, as_float, axes, false));
  }
  ASSIGN_OR_RETURN(ValueId mask, ops.Cast(in.mask, ir::DType::kFloat32));
  ASSIGN_OR_RETURN(ValueId counted, ops.Mul(as_float, mask));
  return ops.SumAll(counted);
}

}  // namespace webnnm::train
