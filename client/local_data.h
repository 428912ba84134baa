// What `train --local`, `test --local` and `submit` share: reading the
// model file, the data flags, the hyperparameter flags (one per entry of
// the engine's table, engine/train/hyperparameters.h) and the exit code of
// an engine error.
#ifndef WEBNNM_CLIENT_LOCAL_DATA_H_
#define WEBNNM_CLIENT_LOCAL_DATA_H_

#include <map>
#include <set>
#include <string>

#include <CLI/CLI.hpp>

#include "absl/status/statusor.h"
#include "engine/check.h"
#include "engine/data/dataset.h"
#include "engine/train/hyperparameters.h"

namespace webnnm::client {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct DataOptions {
  std::string dataset;
  std::string label;
  bool no_header = false;
  bool resize = false;  // --resize: image folders' images to the model's size
  std::string split;    // empty: the default (70,15,15) or the snapshot's
  bool standardize = false;     // --standardize
  bool no_standardize = false;  // --no-standardize
  std::string impute = "auto";  // --impute auto|none|mean|median
  train::ImputeMode impute_mode() const {
    return train::ParseImputeMode(impute).value_or(train::ImputeMode::kAuto);
  }
  // The tri-state the flags say (neither: the expert system decides).
  train::StandardizeMode standardize_mode() const {
    return standardize      ? train::StandardizeMode::kOn
           : no_standardize ? train::StandardizeMode::kOff
                            : train::StandardizeMode::kAuto;
  }
};

// Adds --dataset (required), --label, --no-header, --split and, when
// `standardize`, --standardize, --no-standardize and --impute.
void AddDataOptions(CLI::App& cmd, DataOptions& options, bool standardize);

// Adds --resize (image folders: train/test/predict --local, submit and
// the daemon's predict).
void AddResizeFlag(CLI::App& cmd, DataOptions& options);

// The hyperparameter flags given, by the table's name, as typed.
using HyperparameterFlags = std::map<std::string, std::string>;

// Adds a flag per table entry (`--warmup-epochs` for warmupEpochs), or only
// those named in `only`; what the user gives lands in `given`.
void AddHyperparameterFlags(CLI::App& cmd, HyperparameterFlags& given,
                            const std::set<std::string>& only = {});

// The given flags as values of their types, or the table's refusal of a
// text that is no number ("hyperparameter epochs: 'x' is not an integer").
absl::StatusOr<train::HyperparameterValues> ParseHyperparameterFlags(
    const HyperparameterFlags& given);
// Those values over the table's defaults, checked; the table's refusal
// ("hyperparameter lr: must be a finite number") otherwise.
absl::StatusOr<train::Hyperparameters> HyperparametersFromFlags(
    const HyperparameterFlags& given);

// A model read and checked, or an exit code after printing why not.
struct LoadedModel {
  std::string source;
  CheckResult check;
  int exit_code = kExitOk;
};
LoadedModel LoadModel(const std::string& path);

// Prints "webnnmctl: MESSAGE" and returns the exit code of an engine error:
// 2 for a bad argument or a missing file (InvalidArgument, NotFound), 1
// otherwise.
int Fail(const absl::Status& status);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_LOCAL_DATA_H_
