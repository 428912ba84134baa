// Losses: the ten of the specification's table, as graph operations.
//
// BuildLoss adds to a training, validation or test graph the operations
// computing one output's loss over the rows of a batch that hold data: the
// padded rows of a short last batch have mask 0 and count for nothing. It
// returns the masked sum and the number it is averaged over, so that a
// training step takes the mean and an epoch's test adds sums and counts
// over batches.
//
// Cross-entropy after softmax (CCE, SCE, KLD, focal) reads the softmax's
// logits, and BCE after sigmoid its logit: log p = z - logsumexp(z) and
// BCE = softplus(z) - y z, whose gradients are p - y — the fused softmax +
// cross-entropy node of ERRATA 17, numerically stable. After logSoftmax the
// output already is log p; CCEL applies logSoftmax to logits itself.
// Elsewhere probabilities are clamped to [1e-7, 1] before the logarithm.
//
//   per element e(y, ŷ)                       averaged over
//   MSE   (y - ŷ)²                            rows × features
//   MAE   |y - ŷ|                             rows × features
//   BCE   -(y log p + (1 - y) log(1 - p))     rows × features
//   HIL   max(0, 1 - t ŷ), t = 2y - 1         rows × features
//   HUL   ½d² if |d| <= δ else δ(|d| - ½δ)    rows × features
//   CCE   -y log p                            rows (summed over classes)
//   CCEL  -y logSoftmax(ŷ)                    rows
//   SCE   -log p[label]                       rows
//   KLD   y (log y - log p), 0 where y = 0    rows
//   FOL   -α (1 - p_t)^γ log p_t              rows
// (hinge takes 0/1 targets and maps them to ±1; δ = model:delta, default 1;
// α, γ = model:alpha, model:gamma, defaults 0.25 and 2.)
#ifndef WEBNNM_ENGINE_TRAIN_LOSS_H_
#define WEBNNM_ENGINE_TRAIN_LOSS_H_

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/ir/graph_ops.h"

namespace webnnm::train {

enum class LossKind {
  kMeanSquaredError,
  kMeanAbsoluteError,
  kBinaryCrossEntropy,
  kCategoricalCrossEntropy,
  kCategoricalCrossEntropyWithLogits,
  kSparseCategoricalCrossEntropy,
  kHinge,
  kHuber,
  kKlDivergence,
  kFocal,
};

// The table's abbreviation (MSE, ...) or the camelCase long name (ERRATA 8).
std::optional<LossKind> ParseLoss(std::string_view name);
const char* LossAbbreviation(LossKind loss);  // "MSE"
const char* LossLongName(LossKind loss);      // "meanSquaredError"
// Classification losses take class labels (one-hot, or an index for SCE).
bool IsClassification(LossKind loss);

// The activation that produced a model output (its last layer).
enum class OutputActivation { kNone, kSoftmax, kSigmoid, kLogSoftmax, kOther };

struct LossParams {
  double alpha = 0.25;  // focal
  double gamma = 2.0;   // focal
  double delta = 1.0;   // Huber
};

struct LossInputs {
  ir::ValueId output = ir::kNoValue;  // [B, ...] the model's output
  // The softmax's or sigmoid's input when `activation` is one of them.
  ir::ValueId logits = ir::kNoValue;
  OutputActivation activation = OutputActivation::kNone;
  // The output's shape and type, or [B] int32 class indices for SCE.
  ir::ValueId target = ir::kNoValue;
  ir::ValueId mask = ir::kNoValue;  // [B], 1 for rows with data, else 0
};

struct LossValue {
  ir::ValueId sum = ir::kNoValue;    // scalar: masked sum of the losses
  ir::ValueId count = ir::kNoValue;  // scalar: what the sum is averaged over
  ir::ValueId mean = ir::kNoValue;   // scalar: sum / max(count, 1)
};

absl::StatusOr<LossValue> BuildLoss(ir::GraphOps& ops, LossKind loss,
                                    const LossParams& params,
                                    const LossInputs& inputs);

// The error the expert system reads at the scouted start (loss_tuning.h),
// over the rows with data: for a regression loss (MSE, MAE, Huber) each
// value's ŷ − y; for a classification loss one value a row, 1 − p_t, p_t
// the probability the output gives the true class (a one-unit output's
// after a sigmoid). Scalars float32: the sums of the errors' first four
// powers (`sums[k]` of e^(k+1)) and their count. Nullopt where there is no
// such error (hinge, a one-unit output without sigmoid, KLD).
struct ErrorMoments {
  ir::ValueId sums[4] = {ir::kNoValue, ir::kNoValue, ir::kNoValue,
                         ir::kNoValue};
  ir::ValueId count = ir::kNoValue;
};
absl::StatusOr<std::optional<ErrorMoments>> BuildErrorMoments(
    ir::GraphOps& ops, LossKind loss, const LossInputs& inputs);

// The number of rows (with data) whose prediction is right: the class with
// the largest output equals the target's (its index for SCE); for a
// one-unit output, (ŷ >= 0.5) == (y >= 0.5) (0 for logits). Scalar float32.
absl::StatusOr<ir::ValueId> BuildCorrectCount(ir::GraphOps& ops, LossKind loss,
                                              const LossInputs& inputs);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_LOSS_H_
