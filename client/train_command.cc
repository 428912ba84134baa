#include "client/train_command.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "client/format.h"
#include "client/metrics_json.h"
#include "client/progress.h"
#include "engine/api/threads.h"
#include "engine/base/strings.h"
#include "engine/train/run.h"

namespace webnnm::client {
namespace {

nlohmann::ordered_json NullOr(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

nlohmann::ordered_json Number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

// Ctrl-C: the first stops the run at the end of the current step, the
// second exits at once.
std::atomic<int> interrupts{0};

extern "C" void OnInterrupt(int) {
  if (interrupts.fetch_add(1) >= 1) _exit(130);
}

// SIGINT handled by OnInterrupt while alive.
class InterruptScope {
 public:
  InterruptScope() {
    interrupts = 0;
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    action.sa_flags = SA_RESTART;  // writes to the terminal go on
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_);
  }
  ~InterruptScope() { sigaction(SIGINT, &previous_, nullptr); }

 private:
  struct sigaction previous_ {};
};

void PrintResult(const train::TrainResult& result, const dag::Dag& dag,
                 bool json) {
  const train::Evaluation& test = result.test;
  const bool tested = test.samples > 0;
  if (!json) {
    std::cout << "trained " << result.epochs << " epochs (best "
              << result.best_epoch << "), "
              << static_cast<int64_t>(result.train_samples_per_second)
              << " samples/s in the training steps\n";
    if (tested) {
      std::cout << "test: " << test.samples << " samples, loss "
                << Fixed(test.loss, 4);
      if (test.accuracy) std::cout << ", accuracy " << Fixed(*test.accuracy, 4);
      std::cout << "\n";
    }
    return;
  }
  nlohmann::ordered_json out;
  out["epochs"] = result.epochs;
  out["bestEpoch"] = result.best_epoch;
  out["trainSamplesPerSecond"] = Number(result.train_samples_per_second);
  out["trainedSamples"] = result.state.trained_samples;
  out["finalTrainLoss"] = Number(result.final_train_loss);
  out["validationLoss"] = NullOr(result.validation_loss);
  out["testLoss"] = tested ? Number(test.loss) : nullptr;
  out["testAccuracy"] = tested ? NullOr(test.accuracy) : nullptr;
  nlohmann::ordered_json outputs = nlohmann::ordered_json::object();
  for (const dag::Endpoint& e : dag.outputs) {
    auto it = test.outputs.find(e.name);
    const bool has = tested && it != test.outputs.end();
    nlohmann::ordered_json o;
    o["testLoss"] = has ? Number(it->second.loss) : nullptr;
    o["testAccuracy"] = has ? NullOr(it->second.accuracy) : nullptr;
    outputs[e.name] = o;
  }
  out["outputs"] = outputs;
  nlohmann::ordered_json decisions = nlohmann::ordered_json::array();
  for (const train::Decision& d : result.decisions) {
    decisions.push_back({{"what", d.what}, {"why", d.why}});
  }
  out["decisions"] = decisions;
  out["warnings"] = result.warnings;
  out["testMetrics"] = TestMetricsJson(MetricsOf(test, dag));
  std::cout << out.dump() << "\n";
}

// A replica past the first: trains without a word (replica 0 reports),
// then writes its state when asked; 0, or 1 saying why on stderr.
int RunReplica(train::Run& run, dist::GlooCollective& collective,
               const ReplicaFlags& flags) {
  absl::StatusOr<train::TrainResult> result = run.Train({}, &collective);
  if (result.ok() && !flags.save_prefix.empty()) {
    absl::Status s = train::SaveModelSnapshot(
        StrCat(flags.save_prefix, ".", flags.rank, ".wnms"),
        run.Snapshot(result->state));
    if (!s.ok()) result = s;
  }
  if (!result.ok()) {
    std::cerr << "webnnmctl: replica " << flags.rank << ": "
              << result.status().message() << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

// Checks the replica flags and, on replica 0 of several, starts the others
// (they read the data meanwhile); an exit code.
int StartOthers(const TrainOptions& options, int replicas,
                std::unique_ptr<Replicas>& others) {
  const ReplicaFlags& flags = options.replica;
  if (flags.rank > 0 && (replicas <= flags.rank || flags.rendezvous.empty())) {
    std::cerr << "webnnmctl: --replica-rank is for the replicas train "
                 "--local --replicas starts\n";
    return kExitUsage;
  }
  if (replicas <= 1 || flags.rank > 0) return kExitOk;
  absl::StatusOr<std::unique_ptr<Replicas>> started =
      Replicas::Start(replicas, options.argv, flags);
  if (!started.ok()) return Fail(started.status());
  others = std::move(*started);
  return kExitOk;
}

// Meets the other replicas; replica 0 stops them when that fails.
absl::StatusOr<std::unique_ptr<dist::GlooCollective>> JoinReplicas(
    int replicas, const ReplicaFlags& flags, Replicas* others) {
  absl::StatusOr<std::unique_ptr<dist::GlooCollective>> joined = ConnectReplica(
      replicas, flags, others ? others->rendezvous() : flags.rendezvous);
  if (!joined.ok() && others) (void)others->Finish(/*kill=*/true);
  return joined;
}

}  // namespace

CLI::App* AddTrainCommand(CLI::App& app, TrainOptions& o) {
  CLI::App* cmd =
      app.add_subcommand("train", "Train a model on a dataset, then test it");
  cmd->add_option("FILE", o.file, "The model file (.wnm)")->required();
  cmd->add_flag("--local", o.local,
                "Train in this process (not on the daemon)");
  cmd->add_option("--save", o.save,
                  "Write the snapshot here (best parameters, and the state "
                  "to resume from)");
  cmd->add_option(
      "--resume", o.resume,
      "Continue the run a snapshot stopped: its hyperparameters, but "
      "--epochs (more: a warm restart), --lr, --patience and "
      "--time-budget may change");
  cmd->add_option("--stop-after-epoch", o.stop_after_epoch,
                  "Stop after this epoch, as if interrupted (resume later)")
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--name", o.run_name,
                  "On the daemon: the run's name (default: the model's)");
  cmd->add_option("--tag", o.tags,
                  "On the daemon: a tag KEY=VALUE (repeat for more)");
  cmd->add_option("--note", o.note, "On the daemon: a note on the run");
  AddTrainFlags(*cmd, o);
  AddResizeFlag(*cmd, o.data);
  cmd->add_option("--replica-timeout", o.replica.timeout_seconds,
                  "With --replicas: how long a replica waits for the others "
                  "(seconds) before the run fails")
      ->check(CLI::Range(1, 3600));
  // What replica 0 starts the others with (client/replicas.h).
  cmd->add_option("--replica-rank", o.replica.rank)
      ->group("")
      ->check(CLI::Range(1, 63));
  cmd->add_option("--rendezvous", o.replica.rendezvous)->group("");
  cmd->add_option("--replica-save", o.replica.save_prefix)->group("");
  return cmd;
}

void AddTrainFlags(CLI::App& cmd, TrainOptions& o) {
  AddDataOptions(cmd, o.data, /*standardize=*/true);
  cmd.add_option("--backend", o.backend, "Backend: cpu or vulkan");
  AddHyperparameterFlags(cmd, o.hyperparameters);
}

int RunTrain(const TrainOptions& options, bool json) {
  if (!options.run_name.empty() || !options.tags.empty() ||
      !options.note.empty()) {
    std::cerr << "webnnmctl: --name, --tag and --note label runs on the "
                 "daemon, not train --local\n";
    return kExitUsage;
  }
  absl::StatusOr<train::HyperparameterValues> given =
      ParseHyperparameterFlags(options.hyperparameters);
  if (!given.ok()) return Fail(given.status());
  absl::StatusOr<train::Hyperparameters> hyper =
      train::ResolveHyperparameters(*given);
  if (!hyper.ok()) return Fail(hyper.status());
  // Before anything touches OpenMP: passive waiting, the thread count.
  ConfigureComputeThreads(hyper->threads);
  const int replicas = hyper->replicas;
  const ReplicaFlags& flags = options.replica;
  std::unique_ptr<Replicas> others;  // replica 0's: started first
  if (int code = StartOthers(options, replicas, others); code != kExitOk) {
    return code;
  }
  LoadedModel model = LoadModel(options.file);
  if (model.exit_code != kExitOk) return model.exit_code;
  std::optional<train::ModelSnapshot> resume;
  if (!options.resume.empty()) {
    absl::StatusOr<train::ModelSnapshot> loaded =
        train::LoadModelSnapshot(options.resume);
    if (!loaded.ok()) return Fail(loaded.status());
    resume = *std::move(loaded);
  }
  absl::StatusOr<std::unique_ptr<train::Run>> run =
      train::Run::Prepare({.dag = &*model.check.dag,
                           .model_file = options.file,
                           .model_source = model.source,
                           .model_warnings = ModelWarnings(model.check),
                           .source = {.path = options.data.dataset,
                                      .label = options.data.label,
                                      .no_header = options.data.no_header,
                                      .resize = options.data.resize},
                           .dataset_name = options.data.dataset,
                           .split = options.data.split,
                           .standardize = options.data.standardize_mode(),
                           .impute = options.data.impute_mode(),
                           .hyperparameters = *hyper,
                           .given = *given,
                           .snapshot = resume ? &*resume : nullptr,
                           .backend = options.backend});
  if (!run.ok()) return Fail(run.status());
  std::unique_ptr<dist::GlooCollective> collective;
  if (replicas > 1) {
    absl::StatusOr<std::unique_ptr<dist::GlooCollective>> joined =
        JoinReplicas(replicas, flags, others.get());
    if (!joined.ok()) return Fail(joined.status());
    collective = std::move(*joined);
  }
  if (flags.rank > 0) return RunReplica(**run, *collective, flags);

  // Progress on stdout, or on stderr when stdout carries the JSON.
  Progress progress(json ? std::cerr : std::cout,
                    json ? STDERR_FILENO : STDOUT_FILENO);
  const int64_t samples_per_epoch = static_cast<int64_t>(
      (*run)->data().subset(train::Subset::kTraining).size());
  absl::Status save_status;
  auto save = [&](const train::TrainState& state) {
    absl::Status s =
        train::SaveModelSnapshot(options.save, (*run)->Snapshot(state));
    if (!s.ok() && save_status.ok()) save_status = s;
    return s.ok();
  };
  train::TrainCallbacks callbacks;
  callbacks.decision = [&](const train::Decision& d) {
    progress.Line(StrCat("decision: ", d.what, " (", d.why, ")"));
  };
  callbacks.warning = [&](const std::string& w) {
    progress.Line(StrCat("warning: ", w));
  };
  callbacks.epoch = [&](const train::EpochReport& r) {
    progress.Epoch(FiguresOf(r), samples_per_epoch);
  };
  callbacks.step = [&](const train::StepReport& r) {
    progress.Step(r);
    return interrupts.load() == 0;
  };
  auto last_save = std::chrono::steady_clock::now();
  bool stopped_by_interrupt = false;  // at an epoch's end, not a step's
  callbacks.checkpoint = [&](const train::TrainState& state) {
    if (interrupts.load() > 0 && state.epoch < state.hyper.epochs) {
      stopped_by_interrupt = true;
    }
    bool stop = (options.stop_after_epoch > 0 &&
                 state.epoch >= options.stop_after_epoch) ||
                interrupts.load() > 0;
    if (!options.save.empty() && !stop &&
        std::chrono::steady_clock::now() - last_save >
            std::chrono::seconds(10)) {
      if (!save(state)) return false;
      last_save = std::chrono::steady_clock::now();
    }
    return !stop;
  };
  absl::StatusOr<train::TrainResult> result;
  bool interrupted = false;
  {
    InterruptScope scope;
    result = (*run)->Train(callbacks, collective.get());
    // Stopped early by Ctrl-C (one during the final test changes nothing).
    interrupted = result.ok() && (result->interrupted || stopped_by_interrupt);
  }
  if (others) {
    // The others end with this one (killed when it failed).
    absl::Status ended = others->Finish(/*kill=*/!result.ok());
    if (result.ok() && !ended.ok()) result = ended;
  }
  if (result.ok() && !flags.save_prefix.empty()) {
    absl::Status s = train::SaveModelSnapshot(
        StrCat(flags.save_prefix, ".0.wnms"), (*run)->Snapshot(result->state));
    if (!s.ok()) result = s;
  }
  if (result.ok() && !options.save.empty() && save_status.ok()) {
    save(result->state);
  }
  progress.End();
  if (!result.ok()) {
    std::cerr << "webnnmctl: " << result.status().message() << "\n";
    return kExitFailure;
  }
  if (!save_status.ok()) {
    std::cerr << "webnnmctl: --save: " << save_status.message() << "\n";
    return kExitFailure;
  }
  if (interrupted) {
    std::cerr << "webnnmctl: interrupted: stopped after epoch "
              << result->state.epoch << " of " << result->state.hyper.epochs
              << (result->state.epoch == 0 ? " (nothing trained yet)" : "")
              << (options.save.empty() ? std::string()
                                       : " (saved to " + options.save +
                                             "; train --resume it to go on)")
              << "\n";
  }
  PrintResult(*result, *model.check.dag, json);
  return interrupted ? 130 : kExitOk;
}

}  // namespace webnnm::client
