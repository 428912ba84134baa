#include "client/train_command.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "backends/cpu/cpu_context.h"
#include "client/format.h"
#include "client/metrics_json.h"
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

// Progress: a bar on a terminal, plain lines otherwise (every 50 epochs,
// the first and the last); on stderr with -o json.
class Progress {
 public:
  Progress(bool json, int64_t samples_per_epoch)
      : out_(json ? std::cerr : std::cout),
        terminal_(isatty(json ? STDERR_FILENO : STDOUT_FILENO)),
        samples_per_epoch_(samples_per_epoch) {}

  void Line(const std::string& line) {
    if (terminal_) out_ << "\r\033[K";
    out_ << line << "\n";
  }
  void Epoch(const train::EpochReport& r) {
    std::string line = StrCat(
        "epoch ", r.epoch, "/", r.epochs, "  loss ", Fixed(r.train_loss, 4),
        r.train_accuracy ? StrCat("  acc ", Fixed(*r.train_accuracy, 4))
                         : std::string(),
        r.validation_loss ? StrCat("  val ", Fixed(*r.validation_loss, 4))
                          : std::string(),
        r.validation_accuracy
            ? StrCat("  val acc ", Fixed(*r.validation_accuracy, 4))
            : std::string(),
        "  lr ", Fixed(r.lr, 6), "  ",
        static_cast<int64_t>(r.samples_per_second), " samples/s");
    if (terminal_) {
      double fraction = static_cast<double>(r.epoch) / r.epochs;
      std::string bar(static_cast<size_t>(fraction * 20), '#');
      bar.resize(20, '.');
      double eta =
          r.samples_per_second > 0
              ? (r.epochs - r.epoch) * samples_per_epoch_ / r.samples_per_second
              : 0;
      out_ << "\r\033[K[" << bar << "] " << line << "  ETA " << Duration(eta)
           << std::flush;
    } else if (r.epoch == 1 || r.epoch % 50 == 0 || r.epoch == r.epochs) {
      out_ << line << "\n";
    }
  }
  void End() {
    if (terminal_) out_ << "\n";
  }

 private:
  std::ostream& out_;
  bool terminal_;
  int64_t samples_per_epoch_;
};

void PrintResult(const train::TrainResult& result, const dag::Dag& dag,
                 bool json) {
  const train::Evaluation& test = result.test;
  const bool tested = test.samples > 0;
  if (!json) {
    std::cout << "trained " << result.epochs << " epochs (best "
              << result.best_epoch << "), "
              << static_cast<int64_t>(result.train_samples_per_second)
              << " samples/s\n";
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
  cmd->add_option("--resume", o.resume,
                  "Continue the run a snapshot stopped: its hyperparameters, but "
                  "--epochs (more: a warm restart), --lr, --patience and "
                  "--time-budget may change");
  cmd->add_option("--stop-after-epoch", o.stop_after_epoch,
                  "Stop after this epoch, as if interrupted (resume later)")
      ->check(CLI::Range(1, 10000000));
  AddTrainFlags(*cmd, o);
  AddResizeFlag(*cmd, o.data);
  return cmd;
}

void AddTrainFlags(CLI::App& cmd, TrainOptions& o) {
  AddDataOptions(cmd, o.data, /*standardize=*/true);
  cmd.add_option("--backend", o.backend, "Backend: cpu or vulkan");
  AddHyperparameterFlags(cmd, o.hyperparameters);
}

int RunTrain(const TrainOptions& options, bool json) {
  if (!options.local) {
    std::cerr << "webnnmctl: train needs --local; to train on the daemon, "
                 "use submit (and watch)\n";
    return kExitUsage;
  }
  absl::StatusOr<train::HyperparameterValues> given =
      ParseHyperparameterFlags(options.hyperparameters);
  if (!given.ok()) return Fail(given.status());
  absl::StatusOr<train::Hyperparameters> hyper =
      train::ResolveHyperparameters(*given);
  if (!hyper.ok()) return Fail(hyper.status());
  // Before anything touches OpenMP: passive waiting, the thread count.
  backends::cpu::ConfigureThreads(hyper->threads);
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

  Progress progress(
      json, static_cast<int64_t>(
                (*run)->data().subset(train::Subset::kTraining).size()));
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
  callbacks.epoch = [&](const train::EpochReport& r) { progress.Epoch(r); };
  auto last_save = std::chrono::steady_clock::now();
  callbacks.checkpoint = [&](const train::TrainState& state) {
    bool stop =
        options.stop_after_epoch > 0 && state.epoch >= options.stop_after_epoch;
    if (!options.save.empty() && !stop &&
        std::chrono::steady_clock::now() - last_save >
            std::chrono::seconds(10)) {
      if (!save(state)) return false;
      last_save = std::chrono::steady_clock::now();
    }
    return !stop;
  };
  absl::StatusOr<train::TrainResult> result = (*run)->Train(callbacks);
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
  PrintResult(*result, *model.check.dag, json);
  return kExitOk;
}

}  // namespace webnnm::client
