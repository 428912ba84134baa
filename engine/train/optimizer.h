// The learning-rate optimizers (ERRATA 16), as graph operations: one
// update of a parameter w and its momentum m from its gradient g.
//
//   lion     c = β1 m + (1 − β1) g;  w ← w − lr·lrm·(sign(c) + wd·w);
//            m ← β2 m + (1 − β2) g                 [lr 1e-4, β1 0.9, β2 0.99,
//            wd 0.01]
//   rlion    as lion with softsign(α c) = α c / (1 + |α c|) for sign(c)
//                                                  [lr 5e-4, β1 0.9, β2 0.99, α
//                                                  10, wd 0.01]
//   nesterov g̃ = g + wd·w;  v ← μ v + g̃;  w ← w − lr·lrm·(g̃ + μ v)
//                                                  [lr 0.01, μ 0.9, wd 1e-4]
//   sgdm     g̃ = g + wd·w;  m ← μ m + g̃;  w ← w − lr·lrm·m
//                                                  [lr 1e-3, μ 0.9, wd 1e-4]
//
// lr is a graph input (the schedule changes it every step), lrm the
// parameter's freeze multiplier. When `apply` is given (a uint8 scalar),
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
};

// The defaults of ERRATA 16 for `kind`.
OptimizerParams DefaultOptimizerParams(OptimizerKind kind);

struct Update {
  ir::ValueId weight = ir::kNoValue;
  ir::ValueId momentum = ir::kNoValue;
};

absl::StatusOr<Update> BuildUpdate(ir::GraphOps& ops, OptimizerKind kind,
                                   const OptimizerParams& params, ir::ValueId w,
                                   ir::ValueId m, ir::ValueId g, ir::ValueId lr,
                                   double lrm, ir::ValueId apply);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_OPTIMIZER_H_
