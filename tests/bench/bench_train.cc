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
//
// Each side runs each workload in a process of its own, whose peak
// resident memory is reported ("peakRssBytes"). Our line also has the
// step's roofline (roofline.h): its FLOPs, the rate oneDNN reaches on the
// step's own GEMM and convolution shapes measured in the same run, and our
// fraction of that roofline ("rooflineFraction").
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "engine/base/status_macros.h"
#include "engine/check.h"
#include "engine/collectives/gloo_collective.h"
#include "engine/data/dataset.h"
#include "engine/train/trainer.h"
#include "tests/bench/bench.h"
#include "tests/bench/roofline.h"

namespace webnnm::bench {
namespace {

using nlohmann::ordered_json;

struct Measured {
  double samples_per_second = 0, steps_per_second = 0;
  int64_t steps = 0;
  int64_t floats = 0;  // the model's parameters and statistics
};

// The DAG of the model file at `path`.
absl::StatusOr<dag::Dag> ReadModel(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  CheckResult check = CheckModel(path, text.str());
  if (!check.ok) return absl::InvalidArgumentError(check.rendered);
  return *std::move(check.dag);
}

absl::StatusOr<Measured> TrainOurs(const dag::Dag& dag, train::Dataset& data,
                                   bool fixed_test, int batch, int epochs,
                                   const std::string& backend_name, int threads,
                                   train::Collective* collective = nullptr) {
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
  h.threads = threads;
  h.regularization = train::Regularization::kOff;
  h.patience = epochs + 1;
  h.gradient_scaling = train::GradientScaling::kOff;
  h.gradient_clipping = train::GradientClipping::kOff;
  auto backend = backends::CreateBackend(backend_name);
  if (!backend.ok()) return backend.status();
  absl::StatusOr<train::TrainResult> result =
      train::Train(dag, data, h, **backend, {}, nullptr, collective);
  if (!result.ok()) return result.status();
  Measured m;
  for (const auto& [name, values] : result->state.params) {
    m.floats += static_cast<int64_t>(values.size());
  }
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
  for (ordered_json& line : RunPytorchScript(
           script, "--fashion '" + fashion + "' --iris '" + iris +
                       "' --iris-steps " + std::to_string(iris_steps) +
                       (only.empty() ? "" : " --only '" + only + "'"))) {
    if (line.contains("workload")) {
      const std::string key = line["workload"].get<std::string>();
      lines[key] = std::move(line);  // the key first: `line` is moved from
    }
  }
  return lines;
}

// The roofline of the workload's training step (roofline.h) as JSON
// fields, with our fraction of it at `steps_per_second`.
absl::StatusOr<ordered_json> RooflineOf(const dag::Dag& dag,
                                        const train::Dataset& data, int batch,
                                        const std::string& backend_name,
                                        int threads, double steps_per_second) {
  ASSIGN_OR_RETURN(ir::Graph step, StepGraph(dag, data, batch));
  ASSIGN_OR_RETURN(std::unique_ptr<backends::Backend> backend,
                   backends::CreateBackend(backend_name));
  ASSIGN_OR_RETURN(Roofline r, MeasureRoofline(step, *backend, threads));
  ordered_json out;
  out["flopsPerStep"] = r.flops;
  out["rooflineGflopsPerSecond"] = r.rate() / 1e9;
  const double roofline_steps = r.seconds > 0 ? 1 / r.seconds : 0;
  out["rooflineStepsPerSecond"] = roofline_steps;
  out["rooflineFraction"] =
      roofline_steps > 0 ? steps_per_second / roofline_steps : 0;
  // The heavy operations by shape: how many, their FLOPs and rate alone.
  std::map<std::string, std::pair<int, HeavyOp>> by_shape;
  for (const HeavyOp& op : r.ops) {
    auto& [count, sum] = by_shape[op.what];
    ++count;
    sum.flops += op.flops;
    sum.seconds += op.seconds;
  }
  ordered_json heavy = ordered_json::array();
  for (const auto& [what, entry] : by_shape) {
    const auto& [count, sum] = entry;
    heavy.push_back({{"op", what},
                     {"count", count},
                     {"gflopsPerSecond",
                      sum.seconds > 0 ? sum.flops / sum.seconds / 1e9 : 0}});
  }
  out["heavyOps"] = heavy;
  out["otherOps"] = r.other_ops;
  return out;
}

// A workload of the benchmark.
struct Workload {
  std::string name, model;
  bool fashion;  // IDX, training on the 60000 training samples only
  int batch, epochs;
};

// Our side of `w`: the training run, the roofline of its step, as a JSON
// line (in the child process that MeasureInChild starts).
ordered_json OurLine(const TrainBenchOptions& o, const Workload& w) {
  ordered_json line;
  line["bench"] = "train";
  line["workload"] = w.name;
  line["framework"] = "webnnm";
  line["backend"] = o.backend;
  line["threads"] = o.threads;
  absl::StatusOr<dag::Dag> dag = ReadModel(w.model);
  if (!dag.ok()) {
    line["error"] = std::string(dag.status().message());
    return line;
  }
  absl::StatusOr<train::Dataset> data =
      w.fashion ? train::LoadIdx(o.fashion)
                : train::LoadCsv(o.iris, {}, /*classification=*/true);
  if (!data.ok()) {
    line["error"] = std::string(data.status().message());
    return line;
  }
  absl::StatusOr<Measured> m = TrainOurs(*dag, *data, w.fashion, w.batch,
                                         w.epochs, o.backend, o.threads);
  if (!m.ok()) {
    line["error"] = std::string(m.status().message());
    return line;
  }
  line["samplesPerSecond"] = m->samples_per_second;
  line["stepsPerSecond"] = m->steps_per_second;
  line["steps"] = m->steps;
  absl::StatusOr<ordered_json> roofline = RooflineOf(
      *dag, *data, w.batch, o.backend, o.threads, m->steps_per_second);
  if (!roofline.ok()) {
    line["rooflineError"] = std::string(roofline.status().message());
  } else {
    for (auto& [key, value] : roofline->items()) line[key] = value;
  }
  return line;
}

// Runs OurLine in a child process, so that its peak resident memory is the
// workload's own (the dataset it reads, the run): the line with
// "peakRssBytes" added.
absl::StatusOr<ordered_json> MeasureInChild(const TrainBenchOptions& o,
                                            const Workload& w) {
  int fds[2];
  if (::pipe(fds) != 0) return absl::InternalError("pipe failed");
  std::cout << std::flush;
  const pid_t pid = ::fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    const std::string text = OurLine(o, w).dump() + "\n";
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::_exit(done == text.size() ? 0 : 1);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  ordered_json line = ordered_json::parse(text, nullptr, false);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !line.is_object()) {
    return absl::InternalError(w.name + ": the measuring process failed");
  }
  line["peakRssBytes"] = static_cast<int64_t>(usage.ru_maxrss) * 1024;
  return line;
}

// `w` on o.replicas processes of one thread each (Gloo on loopback, a file
// store in a temporary folder): replica 0's line, with the seconds a step
// spent summing ("communicationSecondsPerStep").
absl::StatusOr<ordered_json> MeasureReplicas(const TrainBenchOptions& o,
                                             const Workload& w) {
  char folder[] = "/tmp/webnnm-bench-replicas-XXXXXX";
  if (::mkdtemp(folder) == nullptr) return absl::InternalError("mkdtemp");
  int fds[2];
  if (::pipe(fds) != 0) return absl::InternalError("pipe failed");
  std::cout << std::flush;
  std::vector<pid_t> children;
  for (int rank = 0; rank < o.replicas; ++rank) {
    const pid_t pid = ::fork();
    if (pid < 0) return absl::InternalError("fork failed");
    if (pid > 0) {
      children.push_back(pid);
      continue;
    }
    ::close(fds[0]);
    ordered_json line = {{"bench", "train"},      {"workload", w.name},
                         {"framework", "webnnm"}, {"backend", o.backend},
                         {"threads", 1},          {"replicas", o.replicas}};
    absl::Status status = [&]() -> absl::Status {
      ASSIGN_OR_RETURN(dag::Dag dag, ReadModel(w.model));
      ASSIGN_OR_RETURN(train::Dataset data,
                       w.fashion ? train::LoadIdx(o.fashion)
                                 : train::LoadCsv(o.iris, {}, true));
      ASSIGN_OR_RETURN(
          std::unique_ptr<dist::GlooCollective> c,
          dist::GlooCollective::Connect({.rank = rank,
                                         .size = o.replicas,
                                         .timeout = std::chrono::seconds(120),
                                         .folder = folder,
                                         .prefix = "bench-" + w.name}));
      ASSIGN_OR_RETURN(Measured m, TrainOurs(dag, data, w.fashion, w.batch,
                                             w.epochs, o.backend, 1, c.get()));
      line["samplesPerSecond"] = m.samples_per_second;
      line["stepsPerSecond"] = m.steps_per_second;
      line["steps"] = m.steps;
      line["allreduceFloatsPerStep"] = m.floats;
      line["communicationSecondsPerStep"] =
          m.steps > 0 ? c->seconds() / m.steps : 0.0;
      return absl::OkStatus();
    }();
    if (!status.ok()) line["error"] = std::string(status.message());
    const std::string text = line.dump() + "\n";
    if (rank == 0 || !status.ok()) {
      (void)!::write(fds[1], text.data(), text.size());
    }
    ::_exit(status.ok() ? 0 : 1);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  for (pid_t pid : children) ::waitpid(pid, nullptr, 0);
  std::error_code ec;
  std::filesystem::remove_all(folder, ec);
  ordered_json line =
      ordered_json::parse(text.substr(0, text.find('\n')), nullptr, false);
  if (!line.is_object()) {
    return absl::InternalError(w.name + ": the replicas failed");
  }
  return line;
}

// --replicas N: each workload on N replicas of one thread, next to one
// process of one thread and one of N threads.
int RunReplicated(TrainBenchOptions o, const Workload& w) {
  std::map<int, double> alone;
  for (int threads : {1, o.replicas}) {
    o.threads = threads;
    absl::StatusOr<ordered_json> line = MeasureInChild(o, w);
    if (!line.ok()) {
      std::cerr << "webnnm-bench: " << line.status().message() << "\n";
      return 1;
    }
    std::cout << line->dump() << "\n" << std::flush;
    alone[threads] = line->value("samplesPerSecond", 0.0);
  }
  absl::StatusOr<ordered_json> replicated = MeasureReplicas(o, w);
  if (!replicated.ok()) {
    std::cerr << "webnnm-bench: " << replicated.status().message() << "\n";
    return 1;
  }
  std::cout << replicated->dump() << "\n" << std::flush;
  if (replicated->contains("error")) {
    std::cerr << "webnnm-bench: " << w.name << ": "
              << (*replicated)["error"].get<std::string>() << "\n";
    return 1;
  }
  const double r = replicated->value("samplesPerSecond", 0.0);
  ordered_json line = {
      {"bench", "train"},
      {"workload", w.name},
      {"compare", "replicas/one-process"},
      {"replicas", o.replicas},
      {"replicasSamplesPerSecond", r},
      {"oneThreadSamplesPerSecond", alone[1]},
      {"threadsSamplesPerSecond", alone[o.replicas]},
      {"ratioToOneThread", alone[1] > 0 ? r / alone[1] : 0.0},
      {"ratioToThreads", alone[o.replicas] > 0 ? r / alone[o.replicas] : 0.0},
      {"communicationSecondsPerStep",
       replicated->value("communicationSecondsPerStep", 0.0)}};
  std::cout << line.dump() << "\n" << std::flush;
  return 0;
}

}  // namespace

int RunTrain(const TrainBenchOptions& o) {
  const int iris_epochs = std::max(1, o.iris_steps / 10);  // 150 / 16 -> 10
  const Workload workloads[] = {
      {"mlp784", o.models + "/fashion-mlp.wnm", true, 64, 1},
      {"cnn", o.models + "/fashion-cnn.wnm", true, 64, 1},
      {"lstm", o.models + "/fashion-lstm.wnm", true, 64, 1},
      {"iris", o.models + "/iris.wnm", false, 16, iris_epochs}};
  for (const Workload& w : workloads) {
    if (!o.only.empty() && o.only != w.name) continue;
    if (o.replicas > 1) {
      if (int code = RunReplicated(o, w); code != 0) return code;
      continue;
    }
    absl::StatusOr<ordered_json> ours = MeasureInChild(o, w);
    if (!ours.ok()) {
      std::cerr << "webnnm-bench: " << ours.status().message() << "\n";
      return 1;
    }
    std::cout << ours->dump() << "\n" << std::flush;
    if (ours->contains("error")) {
      std::cerr << "webnnm-bench: " << w.name << ": "
                << (*ours)["error"].get<std::string>() << "\n";
      return 1;
    }
    if (!o.pytorch) continue;
    // One process a workload on their side too (its own peak memory).
    std::map<std::string, ordered_json> theirs = RunPytorch(
        o.pytorch_script, o.fashion, o.iris, iris_epochs * 10, w.name);
    auto it = theirs.find(w.name);
    if (it == theirs.end()) continue;
    const double mine = ours->value("stepsPerSecond", 0.0);
    const double p = it->second.value("stepsPerSecond", 0.0);
    const double my_rss = ours->value("peakRssBytes", 0.0);
    const double their_rss = it->second.value("peakRssBytes", 0.0);
    ordered_json line;
    line["bench"] = "train";
    line["workload"] = w.name;
    line["compare"] = "webnnm/pytorch";
    line["webnnmStepsPerSecond"] = mine;
    line["pytorchStepsPerSecond"] = p;
    line["ratio"] = p > 0 ? mine / p : 0.0;
    line["rooflineFraction"] = ours->value("rooflineFraction", 0.0);
    line["webnnmPeakRssBytes"] = my_rss;
    line["pytorchPeakRssBytes"] = their_rss;
    line["rssRatio"] = their_rss > 0 ? my_rss / their_rss : 0.0;
    std::cout << line.dump() << "\n" << std::flush;
  }
  return 0;
}

}  // namespace webnnm::bench
