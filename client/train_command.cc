#include "client/train_command.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "client/format.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "engine/train/dataset.h"
#include "engine/train/expert.h"

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
                  "Continue the run a snapshot stopped (its hyperparameters)");
  cmd->add_option("--stop-after-epoch", o.stop_after_epoch,
                  "Stop after this epoch, as if interrupted (resume later)")
      ->check(CLI::Range(1, 10000000));
  AddTrainFlags(*cmd, o);
  return cmd;
}

void AddTrainFlags(CLI::App& app, TrainOptions& o) {
  CLI::App* cmd = &app;
  AddDataOptions(*cmd, o.data, /*standardize=*/true);
  cmd->add_option("--backend", o.backend, "Backend: cpu");
  cmd->add_option("--threads", o.hyper.threads, "Compute threads")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--seed", o.hyper.seed, "Seed of every random choice");
  cmd->add_option("--epochs", o.hyper.epochs, "Maximum epochs")
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--optimizer", o.hyper.optimizer,
                  "lion, rlion, nesterov or sgdm")
      ->check(CLI::IsMember({"lion", "rlion", "nesterov", "sgdm"}));
  cmd->add_option("--lr", o.lr, "Maximum learning rate");
  cmd->add_option("--batch-size", o.hyper.batch_size, "Batch size")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--seeds", o.hyper.seeds, "Starting points to scout")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--patience", o.hyper.patience,
                  "Epochs without improvement before stopping")
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--warmup-epochs", o.hyper.warmup_epochs,
                  "Warmup epochs (0: 5% of epochs, at least 1)")
      ->check(CLI::Range(0, 10000000));
  cmd->add_option("--loss-weights", o.hyper.loss_weights,
                  "'auto' or weights of the outputs");
  cmd->add_option("--weight-decay", o.weight_decay, "Weight decay");
  cmd->add_option("--momentum-factor", o.momentum_factor,
                  "Momentum of sgdm and nesterov");
  cmd->add_option("--beta1", o.beta1, "beta1 of lion and rlion");
  cmd->add_option("--beta2", o.beta2, "beta2 of lion and rlion");
  cmd->add_option("--freeze", o.hyper.freeze,
                  "Proportion of layers to freeze (0 to 1)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--regularization", o.hyper.regularization,
                  "auto, L1, L2, L1+L2 or off")
      ->check(CLI::IsMember({"auto", "L1", "L2", "L1+L2", "off"}));
  cmd->add_option("--lambda1", o.hyper.lambda1, "L1 weight");
  cmd->add_option("--lambda2", o.hyper.lambda2, "L2 weight");
  cmd->add_option("--optimize-for", o.hyper.optimize_for, "size or edge")
      ->check(CLI::IsMember({"size", "edge"}));
  cmd->add_option("--gradient-scaling", o.hyper.gradient_scaling,
                  "auto, on or off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->add_option("--gradient-clipping", o.hyper.gradient_clipping,
                  "auto, global, agc or off")
      ->check(CLI::IsMember({"auto", "global", "agc", "off"}));
  cmd->add_option("--scale", o.hyper.scale, "Initial gradient scale");
  cmd->add_option("--growth-interval", o.hyper.growth_interval,
                  "Clean batches before the scale doubles")
      ->check(CLI::Range(1, 1 << 30));
  cmd->add_option("--clip-alpha", o.hyper.clip_alpha,
                  "Decay of the clipping statistics")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--agc-lambda", o.hyper.agc_lambda, "AGC threshold");
}

int RunTrain(const TrainOptions& options, bool json) {
  if (!options.local) {
    std::cerr << "webnnmctl: train needs --local; to train on the daemon, "
                 "use submit (and watch)\n";
    return kExitUsage;
  }
  LoadedModel model = LoadModel(options.file);
  if (model.exit_code != kExitOk) return model.exit_code;
  const dag::Dag& dag = *model.check.dag;

  std::optional<train::ModelSnapshot> resume;
  if (!options.resume.empty()) {
    absl::StatusOr<train::ModelSnapshot> loaded =
        train::LoadModelSnapshot(options.resume);
    if (!loaded.ok()) {
      std::cerr << "webnnmctl: " << loaded.status().message() << "\n";
      return loaded.status().code() == absl::StatusCode::kNotFound
                 ? kExitUsage
                 : kExitFailure;
    }
    absl::Status fits = train::CheckSnapshotFits(*loaded, dag);
    if (!fits.ok()) {
      std::cerr << "webnnmctl: " << options.resume << ": " << fits.message()
                << "\n";
      return kExitFailure;
    }
    resume = std::move(*loaded);
  }
  const uint64_t seed = resume ? resume->state.hyper.seed : options.hyper.seed;
  const std::string split = !options.data.split.empty() ? options.data.split
                            : resume && !resume->split.empty()
                                ? resume->split
                                : std::string("70,15,15");
  int exit_code = kExitOk;
  absl::StatusOr<train::Dataset> data =
      LoadData(options.data, dag, split, seed, &exit_code);
  if (!data.ok()) return exit_code;
  std::optional<train::Decision> standardized;
  if (resume) {
    absl::Status applied = data->ApplyStandardization(resume->standardization);
    if (!applied.ok()) {
      std::cerr << "webnnmctl: " << applied.message() << "\n";
      return kExitFailure;
    }
  } else {
    standardized =
        train::AdviseStandardization(*data, options.data.standardize);
  }

  train::Hyperparameters hyper = options.hyper;
  hyper.lr = options.lr;
  hyper.weight_decay = options.weight_decay;
  hyper.momentum_factor = options.momentum_factor;
  hyper.beta1 = options.beta1;
  hyper.beta2 = options.beta2;

  absl::StatusOr<std::unique_ptr<backends::Backend>> backend =
      backends::CreateBackend(options.backend);
  if (!backend.ok()) {
    std::cerr << "webnnmctl: " << backend.status().message() << "\n";
    return kExitUsage;
  }

  // The snapshot: everything but the state, which the loop supplies.
  train::ModelSnapshot snapshot;
  snapshot.model_name = dag.name;
  snapshot.model_file = options.file;
  snapshot.model_source = model.source;
  snapshot.dataset = options.data.dataset;
  snapshot.classes = data->classes();
  snapshot.split = split;
  snapshot.standardization = data->standardization();
  snapshot.shapes = train::ParameterShapes(dag);
  absl::Status save_status;
  auto save = [&](const train::TrainState& state) {
    snapshot.state = state;
    if (standardized) {
      snapshot.state.decisions.insert(snapshot.state.decisions.begin(),
                                      *standardized);
    }
    absl::Status s = train::SaveModelSnapshot(options.save, snapshot);
    if (!s.ok() && save_status.ok()) save_status = s;
    return s.ok();
  };

  // Progress: a bar on a terminal, plain lines otherwise (every 50 epochs,
  // the first and the last); on stderr with -o json.
  std::ostream& progress = json ? std::cerr : std::cout;
  bool terminal = isatty(json ? STDERR_FILENO : STDOUT_FILENO);
  train::TrainCallbacks callbacks;
  callbacks.decision = [&](const train::Decision& d) {
    if (terminal) progress << "\r\033[K";
    progress << "decision: " << d.what << " (" << d.why << ")\n";
  };
  callbacks.warning = [&](const std::string& w) {
    if (terminal) progress << "\r\033[K";
    progress << "warning: " << w << "\n";
  };
  callbacks.epoch = [&](const train::EpochReport& r) {
    std::string line = StrCat(
        "epoch ", r.epoch, "/", r.epochs, "  loss ", Fixed(r.train_loss, 4),
        r.validation_loss ? StrCat("  val ", Fixed(*r.validation_loss, 4))
                          : std::string(),
        "  lr ", Fixed(r.lr, 6), "  ",
        static_cast<int64_t>(r.samples_per_second), " samples/s");
    if (terminal) {
      double fraction = static_cast<double>(r.epoch) / r.epochs;
      int filled = static_cast<int>(fraction * 20);
      std::string bar(filled, '#');
      bar.resize(20, '.');
      double eta = 0;
      if (r.samples_per_second > 0) {
        int64_t per_epoch =
            static_cast<int64_t>(data->subset(train::Subset::kTraining).size());
        eta = (r.epochs - r.epoch) * per_epoch / r.samples_per_second;
      }
      progress << "\r\033[K[" << bar << "] " << line << "  ETA "
               << Duration(eta) << std::flush;
    } else if (r.epoch == 1 || r.epoch % 50 == 0 || r.epoch == r.epochs) {
      progress << line << "\n";
    }
  };
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
  if (standardized) callbacks.decision(*standardized);
  absl::StatusOr<train::TrainResult> result =
      train::Train(dag, *data, hyper, **backend, callbacks,
                   resume ? &resume->state : nullptr);
  if (result.ok() && !options.save.empty() && save_status.ok()) {
    save(result->state);
  }
  if (result.ok() && standardized) {
    result->decisions.insert(result->decisions.begin(), *standardized);
  }
  if (terminal) progress << "\n";
  if (!result.ok()) {
    std::cerr << "webnnmctl: " << result.status().message() << "\n";
    return kExitFailure;
  }
  if (!save_status.ok()) {
    std::cerr << "webnnmctl: --save: " << save_status.message() << "\n";
    return kExitFailure;
  }
  const train::Evaluation& test = result->test;
  if (json) {
    nlohmann::ordered_json out;
    out["epochs"] = result->epochs;
    out["bestEpoch"] = result->best_epoch;
    out["trainSamplesPerSecond"] = Number(result->train_samples_per_second);
    out["finalTrainLoss"] = Number(result->final_train_loss);
    out["validationLoss"] = NullOr(result->validation_loss);
    bool tested = test.samples > 0;
    out["testLoss"] = tested ? Number(test.loss) : nullptr;
    out["testAccuracy"] = tested ? NullOr(test.accuracy) : nullptr;
    nlohmann::ordered_json outputs = nlohmann::ordered_json::object();
    for (const dag::Endpoint& e : dag.outputs) {
      auto it = test.outputs.find(e.name);
      nlohmann::ordered_json o;
      o["testLoss"] = tested && it != test.outputs.end()
                          ? Number(it->second.loss)
                          : nlohmann::ordered_json(nullptr);
      o["testAccuracy"] = tested && it != test.outputs.end()
                              ? NullOr(it->second.accuracy)
                              : nlohmann::ordered_json(nullptr);
      outputs[e.name] = o;
    }
    out["outputs"] = outputs;
    nlohmann::ordered_json decisions = nlohmann::ordered_json::array();
    for (const train::Decision& d : result->decisions) {
      nlohmann::ordered_json item;
      item["what"] = d.what;
      item["why"] = d.why;
      decisions.push_back(item);
    }
    out["decisions"] = decisions;
    out["warnings"] = result->warnings;
    std::cout << out.dump() << "\n";
  } else {
    std::cout << "trained " << result->epochs << " epochs (best "
              << result->best_epoch << "), "
              << static_cast<int64_t>(result->train_samples_per_second)
              << " samples/s\n";
    if (test.samples > 0) {
      std::cout << "test: " << test.samples << " samples, loss "
                << Fixed(test.loss, 4);
      if (test.accuracy) std::cout << ", accuracy " << Fixed(*test.accuracy, 4);
      std::cout << "\n";
    }
  }
  return kExitOk;
}

}  // namespace webnnm::client
