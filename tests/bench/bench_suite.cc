// webnnm-bench defaults --suite: the benchmark of real data sets
// (tests/bench/suite: its manifest, README and the halves), each trained
// with no hyperparameter at all — the model `webnnmctl init` writes for it,
// the label column, --split 60,20,20 and the seed only — over seeds 1..5,
// next to scikit-learn's MLP and HistGradientBoosting defaults on the SAME
// rows (tests/bench/suite_sklearn.py reads our splits). One JSON line per
// set and framework, then a summary line per half:
//   {"bench":"defaults","summary":"held-out","sets":13,"webnnm":0.85,
//    "sklearn-mlp":0.80,"sklearn-hgb":0.84,"best-of-sklearn":0.86,
//    "below-mlp":[{"set":"zoo","by":0.02}],"met":false}
// "met": our mean is at least the best-of-sklearn mean and no set is more
// than 0.01 below scikit-learn's MLP (the expert-system issue's target).
// Accuracy for classification and R² for regression are averaged alike.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/expert/starter_model.h"
#include "engine/train/run.h"
#include "tests/bench/bench.h"

namespace webnnm::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;
using nlohmann::ordered_json;

double Round(double v) { return std::round(v * 10000) / 10000; }

bool Listed(const std::string& list, const std::string& name) {
  if (list.empty()) return true;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (item == name) return true;
  }
  return false;
}

// The CSV files, made by scripts/make-suite-datasets when missing.
int EnsureData(const SuiteBenchOptions& o, const json& manifest) {
  bool missing = false;
  for (const json& set : manifest) {
    missing |= !fs::exists(fs::path(o.data) / set["file"].get<std::string>());
  }
  if (!missing) return 0;
  std::cerr << "webnnm-bench: making the suite's files in " << o.data
            << " (" << o.make_script << ")\n";
  const std::string command =
      "'" + o.make_script + "' '" + o.data + "' >&2";
  if (std::system(command.c_str()) != 0) {
    std::cerr << "webnnm-bench: " << o.make_script
              << " failed (scripts/bootstrap installs R and its data)\n";
    return 1;
  }
  return 0;
}

struct SetResult {
  std::string name, half;
  double ours = NAN;
  std::map<std::string, double> theirs;  // by framework
};

// Our side of one set: its line, and the splits it used (written to
// `splits`).
absl::StatusOr<double> RunOurs(const SuiteBenchOptions& o, const json& set,
                               const std::string& splits) {
  const std::string path =
      (fs::path(o.data) / set["file"].get<std::string>()).string();
  const std::string name = set["name"];
  const std::string label = set["label"];
  const bool classification = set["task"] == "classification";
  train::StarterOptions starter{.label = label, .name = name};
  if (o.starter_layers >= 0) {
    starter.shape = std::make_pair(o.starter_width, o.starter_layers);
  }
  ASSIGN_OR_RETURN(train::StarterModel model,
                   train::WriteStarterModel(path, starter));
  CheckResult check = CheckModel(name + ".wnm", model.text);
  if (!check.ok) {
    return absl::InternalError(StrCat("the starter model of ", name,
                                      " does not check:\n", check.rendered));
  }
  std::vector<double> scores;
  std::vector<int> epochs;
  json seeds = json::array();
  const Clock::time_point start = Clock::now();
  for (int seed = 1; seed <= o.seeds; ++seed) {
    train::Hyperparameters h;
    h.seed = seed;
    for (const auto& [key, value] : o.hyperparameters) {
      const train::HyperparameterInfo* info = train::FindHyperparameter(key);
      if (info == nullptr) {
        return absl::InvalidArgumentError(
            StrCat("unknown hyperparameter '", key, "'"));
      }
      RETURN_IF_ERROR(train::SetHyperparameterText(h, *info, value));
    }
    ASSIGN_OR_RETURN(std::unique_ptr<train::Run> run,
                     train::Run::Prepare({.dag = &*check.dag,
                                          .model_file = name + ".wnm",
                                          .model_source = model.text,
                                          .source = {.path = path,
                                                     .label = label},
                                          .dataset_name = name,
                                          .split = "60,20,20",
                                          .hyperparameters = h}));
    const train::Dataset& data = run->data();
    seeds.push_back(
        {{"seed", seed},
         {"train", data.subset(train::Subset::kTraining)},
         {"validation", data.subset(train::Subset::kValidation)},
         {"test", data.subset(train::Subset::kTest)}});
    ASSIGN_OR_RETURN(train::TrainResult result, run->Train());
    double score = NAN;
    if (classification) {
      score = result.test.accuracy.value_or(NAN);
    } else if (!result.test.metrics.empty()) {
      const train::OutputMetrics& m = result.test.metrics.begin()->second;
      if (!m.regression.r2.empty()) score = m.regression.r2[0];
    }
    scores.push_back(Round(score));
    epochs.push_back(result.epochs);
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  double mean = 0;
  for (double s : scores) mean += s / scores.size();
  std::ofstream(splits) << json{{"seeds", seeds}}.dump() << "\n";
  ordered_json line;
  line["bench"] = "defaults";
  line["set"] = name;
  line["half"] = set["half"];
  line["framework"] = "webnnm";
  line["metric"] = classification ? "accuracy" : "r2";
  line["mean"] = Round(mean);
  line["scores"] = scores;
  line["seconds"] = std::round(seconds * 1000) / 1000;
  line["epochs"] = epochs;
  line["model"] = model.notes;
  if (!o.hyperparameters.empty()) {
    ordered_json given;
    for (const auto& [key, value] : o.hyperparameters) given[key] = value;
    line["hyperparameters"] = given;
  }
  std::cout << line.dump() << "\n" << std::flush;
  return Round(mean);
}

void Summarize(const std::string& half, const std::vector<SetResult>& all) {
  double ours = 0, mlp = 0, hgb = 0, best = 0;
  int n = 0;
  ordered_json below = ordered_json::array();
  for (const SetResult& r : all) {
    if (r.half != half || !r.theirs.count("sklearn-mlp") ||
        !r.theirs.count("sklearn-hgb")) {
      continue;
    }
    const double m = r.theirs.at("sklearn-mlp"), g = r.theirs.at("sklearn-hgb");
    ours += r.ours;
    mlp += m;
    hgb += g;
    best += std::max(m, g);
    ++n;
    if (r.ours < m - 0.01) {
      below.push_back({{"set", r.name}, {"by", Round(m - r.ours)}});
    }
  }
  if (n == 0) return;
  ordered_json line;
  line["bench"] = "defaults";
  line["summary"] = half;
  line["sets"] = n;
  line["webnnm"] = Round(ours / n);
  line["sklearn-mlp"] = Round(mlp / n);
  line["sklearn-hgb"] = Round(hgb / n);
  line["best-of-sklearn"] = Round(best / n);
  line["below-mlp"] = below;
  line["met"] = ours >= best && below.empty();
  std::cout << line.dump() << "\n" << std::flush;
}

}  // namespace

int RunSuite(const SuiteBenchOptions& o) {
  std::ifstream in(o.manifest);
  const json manifest = json::parse(in, nullptr, false);
  if (!manifest.is_array()) {
    std::cerr << "webnnm-bench: " << o.manifest << " is not the suite's "
              << "manifest (a JSON list)\n";
    return 2;
  }
  std::vector<json> chosen;
  for (const json& set : manifest) {
    if (!o.half.empty() && set["half"] != o.half) continue;
    if (!Listed(o.only, set["name"])) continue;
    chosen.push_back(set);
  }
  if (chosen.empty()) {
    std::cerr << "webnnm-bench: --half/--only name no set\n";
    return 2;
  }
  if (EnsureData(o, chosen) != 0) return 1;
  int failed = 0;
  std::vector<SetResult> results;
  const std::string splits =
      (fs::temp_directory_path() /
       StrCat("webnnm-suite-splits-", getpid(), ".json"))
          .string();
  for (const json& set : chosen) {
    SetResult r{.name = set["name"], .half = set["half"]};
    absl::StatusOr<double> ours = RunOurs(o, set, splits);
    if (!ours.ok()) {
      std::cerr << "webnnm-bench: " << r.name << ": " << ours.status().message()
                << "\n";
      failed = 1;
      continue;
    }
    r.ours = *ours;
    if (o.sklearn) {
      const std::string path =
          (fs::path(o.data) / set["file"].get<std::string>()).string();
      for (const ordered_json& line : RunPytorchScript(
               o.sklearn_script,
               StrCat("--csv '", path, "' --label '",
                      set["label"].get<std::string>(), "' --task ",
                      set["task"].get<std::string>(), " --name '", r.name,
                      "' --splits '", splits, "'"))) {
        if (line.contains("framework") && line.contains("mean")) {
          r.theirs[line["framework"]] = line["mean"];
        }
      }
    }
    results.push_back(std::move(r));
  }
  std::remove(splits.c_str());
  for (const std::string half : {"fitting", "held-out"}) {
    Summarize(half, results);
  }
  return failed;
}

}  // namespace webnnm::bench
