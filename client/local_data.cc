#include "client/local_data.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "engine/base/strings.h"
#include "engine/train/expert.h"
#include "engine/train/trainer.h"

namespace webnnm::client {
namespace {

absl::StatusOr<std::vector<double>> ParseSplit(const std::string& text) {
  std::vector<double> parts;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0') {
      return absl::InvalidArgumentError(StrCat(
          "--split takes three percentages like 70,15,15, not '", text, "'"));
    }
    parts.push_back(v);
  }
  if (parts.size() != 3) {
    return absl::InvalidArgumentError(StrCat(
        "--split takes three percentages like 70,15,15, not '", text, "'"));
  }
  return parts;
}

}  // namespace

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
  const dag::Dag& dag = *model.check.dag;
  if (dag.outputs.size() != 1 || dag.inputs.size() != 1) {
    std::cerr << "webnnmctl: a dataset file feeds models with one input and "
                 "one output; this one has "
              << dag.inputs.size() << " inputs and " << dag.outputs.size()
              << " outputs\n";
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
  absl::StatusOr<std::vector<double>> split = ParseSplit(split_text);
  if (!split.ok()) return fail(split.status(), kExitUsage);
  absl::StatusOr<train::OutputSpec> spec =
      train::ChooseLoss(dag, dag.outputs[0].name, dag.outputs[0].loss, nullptr);
  if (!spec.ok()) return fail(spec.status(), kExitFailure);
  train::OutputActivation activation =
      train::ActivationOf(dag, dag.outputs[0].name);
  bool classification = train::IsClassification(spec->loss) ||
                        activation == train::OutputActivation::kSoftmax ||
                        activation == train::OutputActivation::kSigmoid;
  bool is_directory = std::filesystem::is_directory(options.dataset);
  absl::StatusOr<train::Dataset> data =
      is_directory ? train::LoadIdx(options.dataset)
                   : train::LoadCsv(
                         options.dataset,
                         {.label = options.label, .header = !options.no_header},
                         classification);
  if (!data.ok()) {
    return fail(data.status(),
                data.status().code() == absl::StatusCode::kNotFound
                    ? kExitUsage
                    : kExitFailure);
  }
  absl::Status status = data->Split((*split)[0], (*split)[1], (*split)[2], seed,
                                    /*fixed_test=*/is_directory);
  if (!status.ok()) return fail(status, kExitUsage);
  return data;
}

}  // namespace webnnm::client
