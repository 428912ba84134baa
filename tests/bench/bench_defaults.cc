// webnnm-bench defaults: what a newcomer gets with no hyperparameter at all
// (the dataset, its label column and the seed only), next to
// scikit-learn's MLPClassifier()/MLPRegressor() with its defaults
// (tests/bench/defaults_sklearn.py, run in the same invocation).
//
// The CSV sets train with --split 60,20,20 and seeds 1..5 (classification
// splits are stratified); Fashion-MNIST's MLP and CNN train once (seed 1)
// on the 60,000 training images split 60:20 into training and validation,
// tested on the 10,000 t10k images. Each set prints one JSON line per
// framework:
//   {"bench":"defaults","set":"iris","framework":"webnnm",
//    "metric":"accuracy","mean":0.97,"scores":[...],"seconds":0.4,
//    "epochs":[...]}
// `seconds`: the wall-clock of all of the set's trainings, reading,
// scouting, the range test and testing included. Ours adds the epochs each
// run trained (what the automatic length chose, or where it stopped).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/run.h"
#include "tests/bench/bench.h"

namespace webnnm::bench {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::ordered_json;

struct Set {
  std::string name, model, data, label;
  bool classification = true;
  int seeds = 5;
  std::string split = "60,20,20";
};

std::vector<Set> Sets(const DefaultsBenchOptions& o) {
  const std::string d = o.datasets + "/", m = o.models + "/";
  return {
      {"iris", m + "iris.wnm", d + "iris.csv", "species"},
      {"digits", m + "digits.wnm", d + "digits.csv", "digit"},
      {"wine", m + "wine.wnm", d + "wine.csv", "cultivar"},
      {"breast-cancer", m + "breast-cancer.wnm", d + "breast-cancer.csv",
       "diagnosis"},
      {"diabetes", m + "diabetes.wnm", d + "diabetes.csv", "progression",
       /*classification=*/false},
      {"fashion-mlp", m + "fashion-mlp.wnm", o.fashion, "", true, 1},
      {"fashion-cnn", m + "fashion-cnn.wnm", o.fashion, "", true, 1},
  };
}

bool Selected(const DefaultsBenchOptions& o, const std::string& name) {
  if (o.only.empty()) return true;
  std::stringstream list(o.only);
  for (std::string item; std::getline(list, item, ',');) {
    if (item == name) return true;
  }
  return false;
}

// One training with no hyperparameters but the seed: its test score
// (accuracy, or the first output's R²) and epochs.
absl::StatusOr<std::pair<double, int>> TrainOnce(const Set& set,
                                                 const dag::Dag& dag,
                                                 const std::string& source,
                                                 uint64_t seed) {
  train::Hyperparameters h;
  h.seed = seed;
  ASSIGN_OR_RETURN(std::unique_ptr<train::Run> run,
                   train::Run::Prepare({.dag = &dag,
                                        .model_file = set.model,
                                        .model_source = source,
                                        .source = {.path = set.data,
                                                   .label = set.label},
                                        .dataset_name = set.name,
                                        .split = set.split,
                                        .hyperparameters = h}));
  ASSIGN_OR_RETURN(train::TrainResult result, run->Train());
  double score = NAN;
  if (set.classification) {
    score = result.test.accuracy.value_or(NAN);
  } else if (!result.test.metrics.empty()) {
    const train::OutputMetrics& m = result.test.metrics.begin()->second;
    if (!m.regression.r2.empty()) score = m.regression.r2[0];
  }
  return std::make_pair(score, result.epochs);
}

double Round(double v) { return std::round(v * 10000) / 10000; }

int RunOurs(const Set& set) {
  std::ifstream in(set.model);
  std::stringstream text;
  text << in.rdbuf();
  CheckResult check = CheckModel(set.model, text.str());
  if (!in || !check.ok) {
    std::cerr << "webnnm-bench: " << set.model << " does not check\n"
              << check.rendered;
    return 1;
  }
  std::vector<double> scores;
  std::vector<int> epochs;
  const Clock::time_point start = Clock::now();
  for (int seed = 1; seed <= set.seeds; ++seed) {
    absl::StatusOr<std::pair<double, int>> r =
        TrainOnce(set, *check.dag, text.str(), seed);
    if (!r.ok()) {
      std::cerr << "webnnm-bench: " << set.name << " seed " << seed << ": "
                << r.status().message() << "\n";
      return 1;
    }
    scores.push_back(Round(r->first));
    epochs.push_back(r->second);
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  double mean = 0;
  for (double s : scores) mean += s / scores.size();
  ordered_json line;
  line["bench"] = "defaults";
  line["set"] = set.name;
  line["framework"] = "webnnm";
  line["metric"] = set.classification ? "accuracy" : "r2";
  line["mean"] = Round(mean);
  line["scores"] = scores;
  line["seconds"] = std::round(seconds * 1000) / 1000;
  line["epochs"] = epochs;
  std::cout << line.dump() << "\n" << std::flush;
  return 0;
}

int RunSklearn(const DefaultsBenchOptions& o, const std::vector<Set>& sets) {
  std::string command =
      "OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "
      "/usr/bin/python3 '" +
      o.sklearn_script + "'";
  int any = 0;
  for (const Set& s : sets) {
    if (s.split != "60,20,20" || s.label.empty()) continue;  // CSV sets only
    command += StrCat(" --set '", s.name, "' '", s.data, "' '", s.label, "' ",
                      s.classification ? "classification" : "regression");
    ++any;
  }
  if (any == 0) return 0;
  const int status = std::system(command.c_str());
  if (status != 0) {
    std::cerr << "webnnm-bench: the scikit-learn script failed (status "
              << status << "; is python3-sklearn installed?)\n";
    return 1;
  }
  return 0;
}

}  // namespace

int RunDefaults(const DefaultsBenchOptions& o) {
  std::vector<Set> chosen;
  for (const Set& s : Sets(o)) {
    if (Selected(o, s.name)) chosen.push_back(s);
  }
  if (chosen.empty()) {
    std::cerr << "webnnm-bench: --only names no set\n";
    return 2;
  }
  int failed = 0;
  std::vector<Set> csv;
  for (const Set& s : chosen) {
    failed |= RunOurs(s);
    if (!s.label.empty()) csv.push_back(s);
  }
  if (o.sklearn) failed |= RunSklearn(o, csv);
  return failed;
}

}  // namespace webnnm::bench
