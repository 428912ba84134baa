#include "client/local_data.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "engine/base/strings.h"
#include "engine/train/data_source.h"

namespace webnnm::client {

void AddDataOptions(CLI::App& cmd, DataOptions& o, bool standardize) {
  cmd.add_option("--dataset", o.dataset,
                 "A CSV file, or a directory of IDX files")
      ->required();
  cmd.add_option("--label", o.label,
                 "The CSV label column (default: the last)");
  cmd.add_flag("--no-header", o.no_header,
               "The CSV has no header row (columns c0, c1, ...)");
  cmd.add_option("--split", o.split,
                 "Training, validation and test percentages (default "
                 "70,15,15)");
  if (standardize) {
    cmd.add_flag("--standardize", o.standardize,
                 "Standardize features with the training subset's "
                 "statistics");
  }
}

LoadedModel LoadModel(const std::string& path) {
  LoadedModel model;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "webnnmctl: cannot read '" << path << "'\n";
    model.exit_code = kExitUsage;
    return model;
  }
  std::stringstream text;
  text << in.rdbuf();
  model.source = text.str();
  model.check = CheckModel(path, model.source);
  if (!model.check.ok) {
    std::cerr << model.check.rendered;
    model.exit_code = kExitFailure;
    return model;
  }
  absl::Status single = train::CheckSingleInputOutput(*model.check.dag);
  if (!single.ok()) {
    std::cerr << "webnnmctl: " << single.message() << "\n";
    model.exit_code = kExitFailure;
  }
  return model;
}

absl::StatusOr<train::Dataset> LoadData(const DataOptions& options,
                                        const dag::Dag& dag,
                                        const std::string& split_text,
                                        uint64_t seed, int* exit_code) {
  auto fail = [&](const absl::Status& status, int code) {
    std::cerr << "webnnmctl: " << status.message() << "\n";
    *exit_code = code;
    return status;
  };
  absl::StatusOr<std::vector<double>> split = train::ParseSplit(split_text);
  if (!split.ok()) return fail(split.status(), kExitUsage);
  train::DataSource source{.path = options.dataset,
                           .label = options.label,
                           .no_header = options.no_header};
  absl::StatusOr<train::Dataset> data = train::ReadDataFor(dag, source);
  if (!data.ok()) {
    return fail(data.status(),
                data.status().code() == absl::StatusCode::kNotFound
                    ? kExitUsage
                    : kExitFailure);
  }
  absl::Status status = train::SplitData(*data, source, *split, seed);
  if (!status.ok()) return fail(status, kExitUsage);
  return data;
}

}  // namespace webnnm::client
