#include "engine/train/optimizer.h"

#include <cmath>

#include "engine/base/status_macros.h"

namespace webnnm::train {

using ir::OpKind;
using ir::ValueId;

OptimizerParams DefaultOptimizerParams(OptimizerKind kind) {
  OptimizerParams p;
  switch (kind) {
    case OptimizerKind::kLion:
      p.lr = 1e-4;
      p.weight_decay = 0.01;
      break;
    case OptimizerKind::kAuto:
    case OptimizerKind::kRLion:
      p.lr = 5e-4;
      p.weight_decay = 0.01;
      break;
    case OptimizerKind::kNesterov:
      p.lr = 0.01;
      p.weight_decay = 1e-4;
      break;
    case OptimizerKind::kSgdm:
      p.lr = 1e-3;
      p.weight_decay = 1e-4;
      break;
    case OptimizerKind::kAdam:
    case OptimizerKind::kAdamW:
      // torch.optim.Adam's and AdamW's defaults.
      p.lr = 1e-3;
      p.beta1 = 0.9;
      p.beta2 = 0.999;
      p.epsilon = 1e-8;
      p.weight_decay = kind == OptimizerKind::kAdamW ? 0.01 : 0;
      break;
  }
  return p;
}

bool IsAdam(OptimizerKind kind) {
  return kind == OptimizerKind::kAdam || kind == OptimizerKind::kAdamW;
}

int MomentumSlots(OptimizerKind kind) { return IsAdam(kind) ? 2 : 1; }

AdamBiasValues AdamBias(const OptimizerParams& params, int64_t t) {
  const double n = static_cast<double>(std::max<int64_t>(1, t));
  return {.bias1 = 1 - std::pow(params.beta1, n),
          .bias2_sqrt = std::sqrt(1 - std::pow(params.beta2, n))};
}

namespace {

// a·x + b·y
absl::StatusOr<ValueId> Blend(ir::GraphOps& ops, double a, ValueId x, double b,
                              ValueId y) {
  ASSIGN_OR_RETURN(ValueId ax, ops.MulScalar(x, a));
  ASSIGN_OR_RETURN(ValueId by, ops.MulScalar(y, b));
  return ops.Add(ax, by);
}

// Slot `k` of a stacked optimizer state [2, shape...], as `shape`.
absl::StatusOr<ValueId> SlotOf(ir::GraphOps& ops, ValueId state, int64_t k,
                               const std::vector<int64_t>& shape) {
  std::vector<int64_t> starts(shape.size() + 1, 0), sizes = {1};
  starts[0] = k;
  sizes.insert(sizes.end(), shape.begin(), shape.end());
  ASSIGN_OR_RETURN(ValueId slice, ops.Slice(state, starts, sizes));
  return ops.Reshape(slice, shape);
}

// Slots of `shape` stacked on a new first axis.
absl::StatusOr<ValueId> Stack(ir::GraphOps& ops,
                              const std::vector<ValueId>& slots,
                              const std::vector<int64_t>& shape) {
  std::vector<int64_t> one = {1};
  one.insert(one.end(), shape.begin(), shape.end());
  std::vector<ValueId> parts;
  for (ValueId s : slots) {
    ASSIGN_OR_RETURN(ValueId r, ops.Reshape(s, one));
    parts.push_back(r);
  }
  return ops.Concat(parts, 0);
}

// Adam and AdamW, as torch.optim's single-tensor step computes them.
absl::StatusOr<Update> AdamUpdate(ir::GraphOps& ops, OptimizerKind kind,
                                  const OptimizerParams& p, ValueId w,
                                  ValueId state, ValueId g, ValueId step,
                                  const UpdateScalars& s) {
  const std::vector<int64_t> shape = ops.shape(w);
  const ir::DType dtype = ops.type(w).dtype;
  ASSIGN_OR_RETURN(ValueId m, SlotOf(ops, state, 0, shape));
  ASSIGN_OR_RETURN(ValueId v, SlotOf(ops, state, 1, shape));
  ValueId decayed = w;  // AdamW: w·(1 − lr·lrm·wd) before the step
  ValueId grad = g;     // Adam: g + wd·w
  if (p.weight_decay != 0) {
    if (kind == OptimizerKind::kAdamW) {
      ASSIGN_OR_RETURN(ValueId rate, ops.MulScalar(step, p.weight_decay));
      ASSIGN_OR_RETURN(ValueId keep, ops.Sub(ops.ScalarLike(1, rate), rate));
      ASSIGN_OR_RETURN(decayed, ops.Mul(w, keep));
    } else {
      ASSIGN_OR_RETURN(ValueId decay, ops.MulScalar(w, p.weight_decay));
      ASSIGN_OR_RETURN(grad, ops.Add(g, decay));
    }
  }
  ASSIGN_OR_RETURN(ValueId m_new, Blend(ops, p.beta1, m, 1 - p.beta1, grad));
  ASSIGN_OR_RETURN(ValueId g2, ops.Mul(grad, grad));
  ASSIGN_OR_RETURN(ValueId v_new, Blend(ops, p.beta2, v, 1 - p.beta2, g2));
  ASSIGN_OR_RETURN(ValueId bias1, ops.Cast(s.adam_bias1, dtype));
  ASSIGN_OR_RETURN(ValueId bias2, ops.Cast(s.adam_bias2_sqrt, dtype));
  ASSIGN_OR_RETURN(ValueId root, ops.Unary(OpKind::kSqrt, v_new));
  ASSIGN_OR_RETURN(ValueId corrected, ops.Div(root, bias2));
  ASSIGN_OR_RETURN(ValueId denominator, ops.AddScalar(corrected, p.epsilon));
  ASSIGN_OR_RETURN(ValueId step_size, ops.Div(step, bias1));
  ASSIGN_OR_RETURN(ValueId ratio, ops.Div(m_new, denominator));
  ASSIGN_OR_RETURN(ValueId delta, ops.Mul(ratio, step_size));
  Update u;
  ASSIGN_OR_RETURN(u.weight, ops.Sub(decayed, delta));
  ASSIGN_OR_RETURN(u.momentum, Stack(ops, {m_new, v_new}, shape));
  return u;
}

}  // namespace

absl::StatusOr<Update> BuildUpdate(ir::GraphOps& ops, OptimizerKind kind,
                                   const OptimizerParams& p, ValueId w,
                                   ValueId m, ValueId g,
                                   const UpdateScalars& scalars, double lrm,
                                   ValueId apply) {
  ValueId step = scalars.lr;  // lr · lrm
  if (lrm != 1.0) {
    ASSIGN_OR_RETURN(step, ops.MulScalar(scalars.lr, lrm));
  }
  Update u;
  switch (kind) {
    case OptimizerKind::kAuto:
    case OptimizerKind::kLion:
    case OptimizerKind::kRLion: {
      ASSIGN_OR_RETURN(ValueId c, Blend(ops, p.beta1, m, 1 - p.beta1, g));
      ValueId direction;
      if (kind == OptimizerKind::kLion) {
        ASSIGN_OR_RETURN(direction, ops.Unary(OpKind::kSign, c));
      } else {
        ASSIGN_OR_RETURN(ValueId scaled, ops.MulScalar(c, p.alpha));
        ASSIGN_OR_RETURN(direction, ops.Unary(OpKind::kSoftsign, scaled));
      }
      ASSIGN_OR_RETURN(ValueId decay, ops.MulScalar(w, p.weight_decay));
      ASSIGN_OR_RETURN(ValueId total, ops.Add(direction, decay));
      ASSIGN_OR_RETURN(ValueId delta, ops.Mul(total, step));
      ASSIGN_OR_RETURN(u.weight, ops.Sub(w, delta));
      ASSIGN_OR_RETURN(u.momentum, Blend(ops, p.beta2, m, 1 - p.beta2, g));
      break;
    }
    case OptimizerKind::kNesterov:
    case OptimizerKind::kSgdm: {
      ValueId g_decayed = g;
      if (p.weight_decay != 0) {
        ASSIGN_OR_RETURN(ValueId decay, ops.MulScalar(w, p.weight_decay));
        ASSIGN_OR_RETURN(g_decayed, ops.Add(g, decay));
      }
      ASSIGN_OR_RETURN(ValueId mm, ops.MulScalar(m, p.momentum));
      ASSIGN_OR_RETURN(u.momentum, ops.Add(mm, g_decayed));
      ValueId direction = u.momentum;
      if (kind == OptimizerKind::kNesterov) {
        ASSIGN_OR_RETURN(ValueId ahead, ops.MulScalar(u.momentum, p.momentum));
        ASSIGN_OR_RETURN(direction, ops.Add(g_decayed, ahead));
      }
      ASSIGN_OR_RETURN(ValueId delta, ops.Mul(direction, step));
      ASSIGN_OR_RETURN(u.weight, ops.Sub(w, delta));
      break;
    }
    case OptimizerKind::kAdam:
    case OptimizerKind::kAdamW: {
      if (scalars.adam_bias1 == ir::kNoValue ||
          scalars.adam_bias2_sqrt == ir::kNoValue) {
        return absl::InternalError("adam's update needs its bias corrections");
      }
      ASSIGN_OR_RETURN(u, AdamUpdate(ops, kind, p, w, m, g, step, scalars));
      break;
    }
  }
  if (apply != ir::kNoValue) {
    ASSIGN_OR_RETURN(u.weight, ops.Where(apply, u.weight, w));
    ASSIGN_OR_RETURN(u.momentum, ops.Where(apply, u.momentum, m));
  }
  return u;
}

}  // namespace webnnm::train
