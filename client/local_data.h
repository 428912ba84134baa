// What `train --local` and `test --local` share: reading the model file,
// the data flags, and loading a dataset for a model (how labels are read
// follows the model's loss and output activation), split and seeded.
#ifndef WEBNNM_CLIENT_LOCAL_DATA_H_
#define WEBNNM_CLIENT_LOCAL_DATA_H_

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "engine/check.h"
#include "engine/train/dataset.h"

namespace webnnm::client {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct DataOptions {
  std::string dataset;
  std::string label;
  bool no_header = false;
  std::string split;  // empty: the default (70,15,15) or the snapshot's
  bool standardize = false;
};

// Adds --dataset (required), --label, --no-header, --split and, when
// `standardize`, --standardize.
void AddDataOptions(CLI::App& cmd, DataOptions& options, bool standardize);

// A model read and checked, or an exit code after printing why not.
struct LoadedModel {
  std::string source;
  CheckResult check;
  int exit_code = kExitOk;
};
LoadedModel LoadModel(const std::string& path);

// Loads and splits the dataset for the model's single input and output.
// On failure prints the reason and sets `exit_code` (2 for a missing file
// or bad flags, 1 for bad data).
absl::StatusOr<train::Dataset> LoadData(const DataOptions& options,
                                        const dag::Dag& dag,
                                        const std::string& split, uint64_t seed,
                                        int* exit_code);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_LOCAL_DATA_H_
