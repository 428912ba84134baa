// The training hyperparameters: one table (the specification's names,
// types, defaults, ranges or choices and a line of doc each) from which
// everything else that knows a hyperparameter is made — the one validation,
// the command line's flags, the wire and snapshot message
// (webnnm.v1.Hyperparameters), and the table in docs/training.md.
//
// Inside the engine the values are typed (enums for choices, a list for
// lossWeights). A value from outside — a flag's text, a proto field, a C++
// struct — enters through SetHyperparameter() / SetHyperparameterText() or
// is checked whole by ValidateHyperparameters(); all of them refuse a bad
// value with the same InvalidArgument message, "hyperparameter NAME: WHY"
// (NAME as the specification spells it).
//
// Thread-safety: the table is immutable; every function is thread-safe.
#ifndef WEBNNM_ENGINE_TRAIN_HYPERPARAMETERS_H_
#define WEBNNM_ENGINE_TRAIN_HYPERPARAMETERS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace webnnm::train {

// kAuto: the expert system's recipe chooses (expert/recipes.h); code that
// builds a step without it (MakeStepConfig) takes rlion for it.
enum class OptimizerKind {
  kAuto,
  kLion,
  kRLion,
  kNesterov,
  kSgdm,
  kAdam,
  kAdamW
};
enum class Regularization { kAuto, kL1, kL2, kL1L2, kOff };
enum class OptimizeFor { kSize, kEdge };
enum class GradientScaling { kAuto, kOn, kOff };
enum class GradientClipping { kAuto, kGlobal, kAgc, kOff };

// The specification's training hyperparameters (names as there), plus
// threads, replicas, batchSize, clipAlpha, agcLambda, timeBudget and
// epsilon (Adam's).
// Every member has the table's default; 'auto' is an unset optional, a 0
// where 0 is no valid value (epochs, patience, batchSize) or the optimizer's
// kAuto, and the optimizer's defaults stand behind weightDecay,
// momentumFactor, beta1, beta2 and epsilon. After the expert system (Advise)
// nothing is auto but lr, which training's range test resolves.
struct Hyperparameters {
  int epochs = 0;            // 0: auto (a budget that fits the data)
  std::optional<double> lr;  // unset: auto (a range test)
  int warmup_epochs = 0;     // 0: max(1, 5% of epochs)
  int seeds = 100;
  int patience = 0;  // 0: auto (500 with given epochs, else fits the budget)
  std::vector<double> loss_weights;  // empty: 'auto'
  OptimizerKind optimizer = OptimizerKind::kAuto;
  std::optional<double> weight_decay, momentum_factor, beta1, beta2, epsilon;
  double freeze = 0;
  Regularization regularization = Regularization::kAuto;
  double lambda1 = 0, lambda2 = 0;
  OptimizeFor optimize_for = OptimizeFor::kSize;
  GradientScaling gradient_scaling = GradientScaling::kAuto;
  GradientClipping gradient_clipping = GradientClipping::kAuto;
  double scale = 1000;
  int growth_interval = 1000;
  uint64_t seed = 1;
  int threads = 1;
  // Data-parallel replicas (trainer.h): processes or daemons that share
  // every global batch of batch_size.
  int replicas = 1;
  int batch_size = 0;  // 0: auto (from the training set's size)
  double clip_alpha = 0.99;
  double agc_lambda = 0.01;
  std::optional<double> time_budget;  // seconds; unset: none

  bool operator==(const Hyperparameters&) const = default;
};

// A value as it travels between the table and the outside: an integer, the
// seed, a real number, or a text (a choice's name; lossWeights as 'auto'
// or comma-separated weights).
using HyperValue = std::variant<int64_t, uint64_t, double, std::string>;

// Hyperparameters as a user gave them: values by the specification's name,
// not yet checked (what a request or the command line carries).
using HyperparameterValues = std::map<std::string, HyperValue>;

enum class HyperType {
  kInteger,  // int64_t within [min, max]
  kSeed,     // uint64_t, any
  kReal,     // double, finite, within [min, max] (or (min, max])
  kChoice,   // std::string, one of `choices`
  kWeights,  // std::string: 'auto' or non-negative finite weights
};

struct HyperparameterInfo {
  std::string_view name;  // the specification's: "warmupEpochs"
  HyperType type;
  std::string_view default_text;          // as docs show it: "20", "auto"
  double min = 0, max = 0;                // kInteger, kReal
  bool min_exclusive = false;             // kReal: the value must exceed min
  std::vector<std::string_view> choices;  // kChoice, in the spec's order
  std::string_view doc;                   // one line
  bool optional = false;  // may be unset (the optimizer's default then)
  // The member's accessors (use GetHyperparameter / SetHyperparameter): a
  // choice travels here as its index in `choices`; `set` takes only what
  // CheckHyperparameter() accepted.
  std::optional<HyperValue> (*get)(const Hyperparameters& h);
  void (*set)(Hyperparameters& h, const HyperValue& v);
};

// Every hyperparameter, in the specification's order (then seed, threads,
// replicas, batchSize, clipAlpha, agcLambda, timeBudget, epsilon).
std::span<const HyperparameterInfo> HyperparameterTable();
// The entry named `name` (the spec's spelling), or null.
const HyperparameterInfo* FindHyperparameter(std::string_view name);

// "warmupEpochs" -> "warmup-epochs" (the flag, without its dashes) and
// "warmup_epochs" (the proto field).
std::string FlagName(std::string_view name);
std::string ProtoFieldName(std::string_view name);

// The value of `info` in `h` (a choice by its name); nullopt for an
// optional member left unset.
std::optional<HyperValue> GetHyperparameter(const Hyperparameters& h,
                                            const HyperparameterInfo& info);

// The one validation: OK, or InvalidArgument "hyperparameter NAME: WHY".
absl::Status CheckHyperparameter(const HyperparameterInfo& info,
                                 const HyperValue& value);
// Checks `value` and stores it in `h`.
absl::Status SetHyperparameter(Hyperparameters& h,
                               const HyperparameterInfo& info,
                               const HyperValue& value);
// Parses a flag's text by the entry's type (an integer, a number, a name)
// and sets it; a text that is no number says so in the same form.
absl::Status SetHyperparameterText(Hyperparameters& h,
                                   const HyperparameterInfo& info,
                                   std::string_view text);
// Checks every member of `h` (a struct built in C++).
absl::Status ValidateHyperparameters(const Hyperparameters& h);

// A flag's text as a value of the entry's type (an integer, a number, a
// name), not range-checked yet; a text that is no number says so in the
// same form as the checks.
absl::StatusOr<HyperValue> ParseHyperValue(const HyperparameterInfo& info,
                                           std::string_view text);
// The given values over the defaults, each checked (the first refusal); an
// unknown name is refused too.
absl::StatusOr<Hyperparameters> ResolveHyperparameters(
    const HyperparameterValues& given);

// A value as text ("0.05", "sgdm", "auto", "1,0.5"): round-trips through
// SetHyperparameterText.
std::string FormatHyperValue(const HyperValue& value);

// The names of the choices, as the specification spells them.
const char* OptimizerName(OptimizerKind kind);
const char* RegularizationName(Regularization r);
const char* OptimizeForName(OptimizeFor o);
const char* GradientScalingName(GradientScaling s);
const char* GradientClippingName(GradientClipping c);
std::optional<OptimizerKind> ParseOptimizer(std::string_view name);
// lossWeights: "auto" -> {}; "1,0.5" -> {1, 0.5}; anything else: nullopt.
std::optional<std::vector<double>> ParseLossWeights(std::string_view text);
std::string LossWeightsText(const std::vector<double>& weights);

// The Markdown table of docs/training.md ("| name | type | default | range
// or choices | flag | what |" and a row per entry).
std::string HyperparameterTableMarkdown();

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_HYPERPARAMETERS_H_
