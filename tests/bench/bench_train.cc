// webnnm-bench train: training throughput of our trainer next to PyTorch
// on the same workloads, one thread each (docs/performance.md).
//
// Workloads: the spec's basic-model (784-128-80-40-10), the small CNN
// (configs/models/fashion-cnn.wnm) and the LSTM over image rows
// (configs/models/fashion-lstm.wnm) for one epoch of Fashion-MNIST at batch
// 64 each, and the iris test-model (4-3-3) at batch 16,
// both with sgdm (lr 0.05, momentum 0.9, weight decay 1e-4). Our figure is
// the trainer's own trainSamplesPerSecond: training steps only (feeding,
// the step graph, reading back its scalars), no scouting or evaluation.
// The PyTorch figure comes from tests/bench/train_pytorch.py, run here with
// OMP_WAIT_POLICY=PASSIVE and OPENBLAS_CORETYPE=SkylakeX.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "engine/check.h"
#include "engine/train/dataset.h"
#include "engine/train/trainer.h"
#include "tests/bench/bench.h"

namespace webnnm::bench {
namespace {

using nlohmann::ordered_json;

struct Measured {
  double samples_per_second = 0, steps_per_second = 0;
  int64_t steps = 0;
};

absl::StatusOr<Measured> TrainOurs(const std::string& model_path,
                                   train::Dataset& data, bool fixed_test,
                                   int batch, int epochs,
                                   const std::string& backend_name) {
  std::ifstream in(model_path);
  if (!in) return absl::NotFoundError("cannot read " + model_path);
  std::stringstream text;
  text << in.rdbuf();
  CheckResult check = CheckModel(model_path, text.str());
  if (!check.ok) return absl::InvalidArgumentError(check.rendered);
  absl::Status split = data.Split(100, 0, 0, 1, fixed_test);
  if (!split.ok()) return split;
  train::Hyperparameters h;
  h.epochs = epochs;
  h.batch_size = batch;
  h.optimizer = train::OptimizerKind::kSgdm;
  h.lr = 0.05;
  h.momentum_factor = 0.9;
  h.seeds = 1;
  h.warmup_epochs = 1;
  h.threads = 1;
  h.regularization = train::Regularization::kOff;
  h.patience = epochs + 1;
  h.gradient_scaling = train::GradientScaling::kOff;
  h.gradient_clipping = train::GradientClipping::kOff;
  auto backend = backends::CreateBackend(backend_name);
  if (!backend.ok()) return backend.status();
  absl::StatusOr<train::TrainResult> result =
      train::Train(*check.dag, data, h, **backend);
  if (!result.ok()) return result.status();
  Measured m;
  const int64_t per_epoch =
      (static_cast<int64_t>(data.subset(train::Subset::kTraining).size()) +
       batch - 1) /
      batch;
  m.steps = per_epoch * epochs;
  m.samples_per_second = result->train_samples_per_second;
  m.steps_per_second = result->state.train_seconds > 0
                           ? m.steps / result->state.train_seconds
                           : 0;
  return m;
}

// Runs the PyTorch script; its JSON lines by workload.
std::map<std::string, ordered_json> RunPytorch(const std::string& script,
                                               const std::string& fashion,
                                               const std::string& iris,
                                               int iris_steps,
                                               const std::string& only) {
  std::map<std::string, ordered_json> lines;
  std::string command =
      "OMP_WAIT_POLICY=PASSIVE OPENBLAS_CORETYPE=SkylakeX OMP_NUM_THREADS=1 "
      "/usr/bin/python3 '" +
      script + "' --fashion '" + fashion + "' --iris '" + iris +
      "' --iris-steps " + std::to_string(iris_steps) +
      (only.empty() ? "" : " --only '" + only + "'");
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return lines;
  char buffer[4096];
  while (fgets(buffer, sizeof buffer, pipe)) {
    ordered_json line = ordered_json::parse(buffer, nullptr, false);
    if (line.is_object() && line.contains("workload")) {
      std::cout << line.dump() << "\n" << std::flush;
      lines[line["workload"].get<std::string>()] = line;
    }
  }
  int status = pclose(pipe);
  if (status != 0) {
    std::cerr << "webnnm-bench: the PyTorch script failed (status " << status
              << ")\n";
  }
  return lines;
}

}  // namespace

int RunTrain(const TrainBenchOptions& o) {
  absl::StatusOr<train::Dataset> fashion =
      o.only == "iris" ? train::Dataset() : train::LoadIdx(o.fashion);
  if (!fashion.ok()) {
    std::cerr << "webnnm-bench: " << fashion.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<train::Dataset> iris =
      train::LoadCsv(o.iris, {}, /*classification=*/true);
  if (!iris.ok()) {
    std::cerr << "webnnm-bench: " << iris.status().message() << "\n";
    return 2;
  }
  std::map<std::string, Measured> ours;
  struct Workload {
    std::string name, model;
    train::Dataset* data;
    bool fixed_test;  // IDX: train on the 60000 training samples only
    int batch, epochs;
  };
  const int iris_epochs = std::max(1, o.iris_steps / 10);  // 150 / 16 -> 10
  Workload workloads[] = {
      {"mlp784", o.models + "/fashion-mlp.wnm", &*fashion, true, 64, 1},
      {"cnn", o.models + "/fashion-cnn.wnm", &*fashion, true, 64, 1},
      {"lstm", o.models + "/fashion-lstm.wnm", &*fashion, true, 64, 1},
      {"iris", o.models + "/iris.wnm", &*iris, false, 16, iris_epochs}};
  for (Workload& w : workloads) {
    if (!o.only.empty() && o.only != w.name) continue;
    absl::StatusOr<Measured> m =
        TrainOurs(w.model, *w.data, w.fixed_test, w.batch, w.epochs, o.backend);
    if (!m.ok()) {
      std::cerr << "webnnm-bench: " << w.name << ": " << m.status().message()
                << "\n";
      return 1;
    }
    ours[w.name] = *m;
    ordered_json line;
    line["bench"] = "train";
    line["workload"] = w.name;
    line["framework"] = "webnnm";
    line["backend"] = o.backend;
    line["samplesPerSecond"] = m->samples_per_second;
    line["stepsPerSecond"] = m->steps_per_second;
    line["steps"] = m->steps;
    std::cout << line.dump() << "\n" << std::flush;
  }
  if (o.pytorch) {
    std::map<std::string, ordered_json> theirs =
        RunPytorch(o.pytorch_script, o.fashion, o.iris, iris_epochs * 10,
                   o.only);
    for (const auto& [name, m] : ours) {
      auto it = theirs.find(name);
      if (it == theirs.end()) continue;
      double p = it->second.value("stepsPerSecond", 0.0);
      ordered_json line;
      line["bench"] = "train";
      line["workload"] = name;
      line["compare"] = "webnnm/pytorch";
      line["webnnmStepsPerSecond"] = m.steps_per_second;
      line["pytorchStepsPerSecond"] = p;
      line["ratio"] = p > 0 ? m.steps_per_second / p : 0.0;
      std::cout << line.dump() << "\n" << std::flush;
    }
  }
  return 0;
}

}  // namespace webnnm::bench
