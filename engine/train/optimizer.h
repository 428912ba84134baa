// The learning-rate optimizers (ERRATA 16, and Adam and AdamW beyond the
// specification), as graph operations: one update of a parameter w and its
// optimizer state m from its gradient g.
//
//   lion     c = β1 m + (1 − β1) g;  w ← w − lr·lrm·(sign(c) + wd·w);
//            m ← β2 m + (1 − β2) g                 [lr 1e-4, β1 0.9, β2 0.99,
//                                                  wd 0.01]
//   rlion    as lion with softsign(α c) = α c / (1 + |α c|) for sign(c)
//                                                  [lr 5e-4, β1 0.9, β2 0.99,
//                                                  α 10, wd 0.01]
//   nesterov g̃ = g + wd·w;  v ← μ v + g̃;  w ← w − lr·lrm·(g̃ + μ v)
//                                                  [lr 0.01, μ 0.9, wd 1e-4]
//   sgdm     g̃ = g + wd·w;  m ← μ m + g̃;  w ← w − lr·lrm·m
//                                                  [lr 1e-3, μ 0.9, wd 1e-4]
//   adam     g̃ = g + wd·w;  m ← β1 m + (1 − β1) g̃;  v ← β2 v + (1 − β2) g̃²;
//            w ← w − (lr·lrm / b1)·m / (√v / √b2 + ε)
//                                                  [lr 1e-3, β1 0.9, β2 0.999,
//                                                  ε 1e-8, wd 0]
//   adamw    w ← w·(1 − lr·lrm·wd), then adam's update without wd in g̃
//                                                  [as adam, wd 0.01]
//
// As torch.optim.Adam and AdamW compute them: b1 = 1 − β1^t and b2 = 1 −
// β2^t for the t-th update since the moments were zero (graph inputs
// "in:adamBias1" and "in:adamBias2Sqrt" = √b2, fed by the host each step:
// AdamBias()).
//
// lr is a graph input (the schedule changes it every step), lrm the
// parameter's freeze multiplier. The optimizer state of a parameter is
// MomentumSlots() tensors of its shape, stacked on a new first axis when
// there are two (adam's m and v). When `apply` is given (a uint8 scalar),
// w and m keep their old values where it is 0 — a step whose gradients
// overflowed changes nothing.
#ifndef WEBNNM_ENGINE_TRAIN_OPTIMIZER_H_
#define WEBNNM_ENGINE_TRAIN_OPTIMIZER_H_

#include <optional>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "engine/ir/graph_ops.h"
#include "engine/train/hyperparameters.h"

namespace webnnm::train {

struct OptimizerParams {
  double lr = 5e-4;  // the maximum learning rate
  double beta1 = 0.9;
  double beta2 = 0.99;
  double alpha = 10;  // rlion's softsign slope
  double weight_decay = 0.01;
  double momentum = 0.9;  // μ of nesterov and sgdm
  double epsilon = 1e-8;  // adam and adamw
};

// The defaults of ERRATA 16 for `kind` (and PyTorch's for adam and adamw);
// kAuto has rlion's.
OptimizerParams DefaultOptimizerParams(OptimizerKind kind);

// How many tensors of a parameter's shape its optimizer state holds: 2 for
// adam and adamw (m and v), else 1.
int MomentumSlots(OptimizerKind kind);
bool IsAdam(OptimizerKind kind);

// The bias corrections of adam's t-th update (t >= 1): 1 − β1^t and
// √(1 − β2^t), computed in double as PyTorch computes them.
struct AdamBiasValues {
  double bias1 = 1, bias2_sqrt = 1;
};
AdamBiasValues AdamBias(const OptimizerParams& params, int64_t t);

struct Update {
  ir::ValueId weight = ir::kNoValue;
  ir::ValueId momentum = ir::kNoValue;  // the whole state, stacked
};

// The graph's per-step scalars an update reads (float32 scalars; the
// adam ones only for adam and adamw).
struct UpdateScalars {
  ir::ValueId lr = ir::kNoValue;
  ir::ValueId adam_bias1 = ir::kNoValue;
  ir::ValueId adam_bias2_sqrt = ir::kNoValue;
};

absl::StatusOr<Update> BuildUpdate(ir::GraphOps& ops, OptimizerKind kind,
                                   const OptimizerParams& params, ir::ValueId w,
                                   ir::ValueId m, ir::ValueId g,
                                   const UpdateScalars& scalars, double lrm,
                                   ir::ValueId apply);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_OPTIMIZER_H_
