#include "client/local_data.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "engine/base/strings.h"

namespace webnnm::client {

void AddDataOptions(CLI::App& cmd, DataOptions& o, bool standardize) {
  cmd.add_option("--dataset", o.dataset,
                 "A CSV file, a NumPy .npz archive, a directory of IDX files, "
                 "or an image folder (one subfolder per class of "
                 ".png/.jpg/.jpeg files) or a .zip of one (submit and "
                 "predict JOB: or the id of a dataset on the daemon)")
      ->required();
  cmd.add_option("--label", o.label,
                 "The CSV label column (default: the last)");
  cmd.add_flag("--no-header", o.no_header,
               "The CSV has no header row (columns c0, c1, ...)");
  cmd.add_option("--split", o.split,
                 "Training, validation and test percentages (default "
                 "70,15,15)");
  if (standardize) {
    CLI::Option* on = cmd.add_flag(
        "--standardize", o.standardize,
        "Standardize the features (and a linear output's regression "
        "targets) with the training subset's statistics (default: when they "
        "are far from unit scale)");
    CLI::Option* off = cmd.add_flag("--no-standardize", o.no_standardize,
                                    "Never standardize the data");
    on->excludes(off);
    cmd.add_option("--impute", o.impute,
                   "Fill missing CSV feature values (empty, NA, N/A, NaN, ?) "
                   "with the training subset's mean or median of each "
                   "feature, kept with the model for test and predict "
                   "(default auto: the median when any is missing; none "
                   "refuses them, naming the line and column)")
        ->check(CLI::IsMember({"auto", "none", "mean", "median"}));
  }
}

void AddResizeFlag(CLI::App& cmd, DataOptions& o) {
  cmd.add_flag("--resize", o.resize,
               "Image folders: resize images of another size to the model "
               "input's height and width (bilinear) instead of refusing them");
}

void AddHyperparameterFlags(CLI::App& cmd, HyperparameterFlags& given,
                            const std::set<std::string>& only) {
  for (const train::HyperparameterInfo& info : train::HyperparameterTable()) {
    std::string name(info.name);
    if (!only.empty() && !only.count(name)) continue;
    std::string help =
        StrCat(info.doc, " (", name, "; default ", info.default_text, ")");
    help[0] = static_cast<char>(std::toupper(help[0]));
    cmd.add_option_function<std::string>(
        StrCat("--", train::FlagName(name)),
        [&given, name](const std::string& v) { given[name] = v; }, help);
  }
}

absl::StatusOr<train::HyperparameterValues> ParseHyperparameterFlags(
    const HyperparameterFlags& given) {
  train::HyperparameterValues values;
  for (const auto& [name, text] : given) {
    absl::StatusOr<train::HyperValue> value =
        train::ParseHyperValue(*train::FindHyperparameter(name), text);
    if (!value.ok()) return value.status();
    values[name] = *std::move(value);
  }
  return values;
}

absl::StatusOr<train::Hyperparameters> HyperparametersFromFlags(
    const HyperparameterFlags& given) {
  absl::StatusOr<train::HyperparameterValues> values =
      ParseHyperparameterFlags(given);
  if (!values.ok()) return values.status();
  return train::ResolveHyperparameters(*values);
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
  }
  return model;
}

int Fail(const absl::Status& status) {
  std::cerr << "webnnmctl: " << status.message() << "\n";
  return status.code() == absl::StatusCode::kInvalidArgument ||
                 status.code() == absl::StatusCode::kNotFound
             ? kExitUsage
             : kExitFailure;
}

}  // namespace webnnm::client
