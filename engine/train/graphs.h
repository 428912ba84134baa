// The graphs of training: one training step, and evaluation (validation and
// test), built from a model's DAG for one batch size (DESIGN.md §4).
//
// Training step — one executable: forward (dropout active) → each output's
// loss over the rows with data → the total (loss weights, or learned
// uncertainty weights s_i: Σ e^(-s_i)/2 · L_i + s_i/2) → × scale S →
// backward (engine/autodiff) → ÷ S → L1/L2 terms → the squared global norm,
// whose finiteness decides whether the step applies at all → clipping
// (global norm against the rolling μ + kσ threshold, or AGC per output
// unit) → the optimizer with each parameter's freeze multiplier.
//
//   inputs   every model input (by block name); "target:<output>"; "in:mask"
//            [B] (1 for rows with data); "in:lr", "in:scale", "in:clipMu",
//            "in:clipSigma", "in:clipK", "in:clipFirst" (scalars, float32;
//            the "in:" prefix keeps them apart from input blocks);
//            "in:stepMask" [T, B, 1] with ragged sequences; every
//            trainable parameter (by name) and "momentum:<name>"; with
//            uncertainty weighting "uncertainty:<output>" and its momentum
//            (updated s_i are clamped to [kUncertaintyMin,
//            kUncertaintyMax]).
//   outputs  "new:<name>" and "newMomentum:<name>" for each of those;
//            "loss" (the weighted total) and "loss:<output>" (means over the
//            batch's rows, before scaling); "correct:<output>" and
//            "scored:<output>" for classification (right and scored rows);
//            "gradNorm" (global norm of the unscaled gradients); "finite" (1
//            when the update applied); "clipMu", "clipSigma" (the rolling
//            statistics after the step); "new:<running mean>", "new:<running
//            variance>" of each batch normalization, which trains on the
//            batch's statistics (rows with data only) and moves its running
//            ones by momentum 0.9 (ERRATA 15b; the running statistics are
//            inputs by name).
//
// Evaluation — inputs: the model inputs, "target:<output>", "in:mask";
// outputs "lossSum:<output>", "lossCount:<output>" and, for
// classification, "correct:<output>" and "scored:<output>" (the rows
// scored; the host adds them over batches), plus each model output by its
// block name and as "value:<output>".
//
// A sequenced output ([B, T, ...]: a label or values per step) is scored
// per step: its loss is the mean over the steps that hold data (a ragged
// sample's padded steps are masked), its target [B, T, ...] ([B, T] int32
// for SCE), and "correct:"/"scored:" count steps.
#ifndef WEBNNM_ENGINE_TRAIN_GRAPHS_H_
#define WEBNNM_ENGINE_TRAIN_GRAPHS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/ir/graph.h"
#include "engine/train/loss.h"
#include "engine/train/optimizer.h"

namespace webnnm::train {

// How one model output is trained and scored.
struct OutputSpec {
  std::string name;  // the output block
  LossKind loss = LossKind::kMeanSquaredError;
  LossParams params;
  double weight = 1.0;  // with fixed loss weights
};

enum class Clipping { kOff, kGlobal, kAgc };

// Which part of the training step a graph is. Data parallelism
// (collective.h) splits the step at the gradients, which the replicas sum:
//   kGradients  forward, losses and backward over a replica's share of the
//               global batch. Each output's term is multiplied by the input
//               "in:share:<output>" (the replica's rows — steps, for a
//               ragged sequenced output — over the global batch's), so that
//               the replicas' sums are the global batch's mean. Outputs:
//               "grad:<name>" of every trained value (scaled by S, not
//               unscaled, regularized or clipped), "loss" (the shared
//               total), "loss:<output>", "correct:"/"scored:", and
//               "batchStat:<running>" (each running statistic moved by
//               this share's batch statistics, as "new:" would be).
//   kUpdate     the rest of the step from the summed gradients: inputs
//               "grad:<name>" and "batchStat:<running>" besides the
//               parameters, momenta and scalars of kWhole (no model input,
//               target or mask); outputs those of kWhole but the losses,
//               "correct:" and "scored:".
enum class StepPart { kWhole, kGradients, kUpdate };

// The range the training step keeps learned uncertainty weights s_i in:
// each output's weight e^(-s_i)/2 stays within [e^-10/2, e^2/2 ~ 3.7].
inline constexpr double kUncertaintyMin = -2.0;
inline constexpr double kUncertaintyMax = 10.0;

struct StepConfig {
  int64_t batch = 32;
  int64_t sequence = 1;  // the length of sequenced inputs (sequence.h)
  // Ragged sequences: the "in:stepMask" input masks the recurrent layers'
  // padded steps (LowerOptions::step_mask).
  bool step_mask = false;
  std::vector<OutputSpec> outputs;
  bool uncertainty_weights = false;  // learned s_i instead of `weight`
  OptimizerKind optimizer = OptimizerKind::kRLion;
  OptimizerParams optimizer_params;
  double lambda1 = 0, lambda2 = 0;  // on weights (not biases)
  Clipping clipping = Clipping::kOff;
  // Dynamic loss scaling: the loss's gradient seeded with "in:scale" and
  // every gradient multiplied by its reciprocal. Off, the graph never reads
  // "in:scale" (the seed is 1, the gradients stay as they are: x·(1/1) is
  // x to the bit), and a step costs a multiplication per parameter less.
  bool loss_scaling = true;
  double clip_alpha = 0.99;
  double agc_lambda = 0.01;
  // Freeze multiplier per parameter name (absent: 1).
  std::map<std::string, double> lrm;
  StepPart part = StepPart::kWhole;
  // A scouting graph instead: forward, loss and backward only, with the
  // outputs "loss", "gradNorm:<name>" (each parameter's unscaled gradient
  // norm) and "deadRatio" (the share of the deepest relu's units that are
  // zero for every row with data, or of the rows whose softmax output is
  // overconfident, max p >= 0.95, whichever is larger) and, per output
  // whose loss has one (loss.h ErrorMoments), the sums of its errors'
  // powers "errorPower1:<output>" … "errorPower4:<output>" and their
  // number, "errorCount:<output>".
  bool scouting = false;
};

// The trainable parameters of a DAG, in its order (name and node).
std::vector<std::pair<std::string, ir::NodeId>> TrainableParameters(
    const dag::Dag& dag);

// The activation before each output (by block name): the op of the last
// layer of the output's section, and the value it read.
OutputActivation ActivationOf(const dag::Dag& dag, const std::string& output);

// The target input's type for `output` under `loss`: the output's type, or
// [B] int32 for SCE ([B, T] for a sequenced output).
ir::TensorType TargetType(const ir::TensorType& output, LossKind loss,
                          bool sequenced = false);

absl::StatusOr<ir::Graph> BuildTrainingGraph(const dag::Dag& dag,
                                             const StepConfig& config,
                                             const ir::Limits& limits = {});

// `sequence`: the length of sequenced inputs (sequence.h); `step_mask`
// as in StepConfig.
absl::StatusOr<ir::Graph> BuildEvaluationGraph(
    const dag::Dag& dag, int64_t batch, int64_t sequence, bool step_mask,
    const std::vector<OutputSpec>& outputs, const ir::Limits& limits = {});

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_GRAPHS_H_
