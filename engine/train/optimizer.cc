#include "engine/train/optimizer.h"

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
  }
  return p;
}

namespace {

// a·x + b·y
absl::StatusOr<ValueId> Blend(ir::GraphOps& ops, double a, ValueId x, double b,
                              ValueId y) {
  ASSIGN_OR_RETURN(ValueId ax, ops.MulScalar(x, a));
  ASSIGN_OR_RETURN(ValueId by, ops.MulScalar(y, b));
  return ops.Add(ax, by);
}

}  // namespace

absl::StatusOr<Update> BuildUpdate(ir::GraphOps& ops, OptimizerKind kind,
                                   const OptimizerParams& p, ValueId w,
                                   ValueId m, ValueId g, ValueId lr, double lrm,
                                   ValueId apply) {
  ValueId step = lr;  // lr · lrm
  if (lrm != 1.0) {
    ASSIGN_OR_RETURN(step, ops.MulScalar(lr, lrm));
  }
  Update u;
  switch (kind) {
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
  }
  if (apply != ir::kNoValue) {
    ASSIGN_OR_RETURN(u.weight, ops.Where(apply, u.weight, w));
    ASSIGN_OR_RETURN(u.momentum, ops.Where(apply, u.momentum, m));
  }
  return u;
}

}  // namespace webnnm::train
