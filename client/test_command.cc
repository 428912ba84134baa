#include "client/test_command.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "engine/train/checkpoint.h"
#include "engine/train/trainer.h"

namespace webnnm::client {
namespace {

nlohmann::ordered_json Number(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

}  // namespace

CLI::App* AddTestCommand(CLI::App& app, TestOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "test", "Test a snapshot's best parameters on a dataset's test subset");
  cmd->add_option("FILE", o.file, "The model file (.wnm)")->required();
  cmd->add_flag("--local", o.local, "Test in this process");
  cmd->add_option("--load", o.load, "The snapshot to test")->required();
  AddDataOptions(*cmd, o.data, /*standardize=*/true);  // same flags as train
  cmd->add_option("--backend", o.backend, "Backend: cpu");
  cmd->add_option("--threads", o.threads, "Compute threads")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--batch-size", o.batch_size,
                  "Batch size (default: the snapshot's)")
      ->check(CLI::Range(1, 1 << 20));
  return cmd;
}

int RunTest(const TestOptions& options, bool json) {
  if (!options.local) {
    std::cerr << "webnnmctl: test needs --local (the daemon is not "
                 "available yet)\n";
    return kExitUsage;
  }
  LoadedModel model = LoadModel(options.file);
  if (model.exit_code != kExitOk) return model.exit_code;
  const dag::Dag& dag = *model.check.dag;
  absl::StatusOr<train::ModelSnapshot> snapshot =
      train::LoadModelSnapshot(options.load);
  if (!snapshot.ok()) {
    std::cerr << "webnnmctl: " << snapshot.status().message() << "\n";
    return snapshot.status().code() == absl::StatusCode::kNotFound
               ? kExitUsage
               : kExitFailure;
  }
  absl::Status fits = train::CheckSnapshotFits(*snapshot, dag);
  if (!fits.ok()) {
    std::cerr << "webnnmctl: " << options.load << ": " << fits.message()
              << "\n";
    return kExitFailure;
  }
  const train::Hyperparameters& trained = snapshot->state.hyper;
  std::string split = !options.data.split.empty() ? options.data.split
                      : !snapshot->split.empty()  ? snapshot->split
                                                  : "70,15,15";
  int exit_code = kExitOk;
  absl::StatusOr<train::Dataset> data =
      LoadData(options.data, dag, split, trained.seed, &exit_code);
  if (!data.ok()) return exit_code;
  if (!snapshot->classes.empty() && data->classes() != snapshot->classes) {
    std::cerr << "webnnmctl: the dataset's classes differ from the ones the "
                 "snapshot was trained on\n";
    return kExitFailure;
  }
  // The snapshot's statistics apply, whatever the flag says.
  if (options.data.standardize && snapshot->standardization.empty()) {
    std::cerr << "webnnmctl: warning: --standardize: the snapshot was trained "
                 "on unstandardized features, so they are tested as they are\n";
  }
  absl::Status applied = data->ApplyStandardization(snapshot->standardization);
  if (!applied.ok()) {
    std::cerr << "webnnmctl: " << applied.message() << "\n";
    return kExitFailure;
  }
  if (data->subset(train::Subset::kTest).empty()) {
    std::cerr << "webnnmctl: the test subset is empty (see --split)\n";
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<backends::Backend>> backend =
      backends::CreateBackend(options.backend);
  if (!backend.ok()) {
    std::cerr << "webnnmctl: " << backend.status().message() << "\n";
    return kExitUsage;
  }
  train::Hyperparameters hyper = trained;
  hyper.threads = options.threads;
  if (options.batch_size > 0) hyper.batch_size = options.batch_size;
  absl::StatusOr<train::Evaluation> result =
      train::Test(dag, *data, snapshot->state.best, hyper, **backend);
  if (!result.ok()) {
    std::cerr << "webnnmctl: " << result.status().message() << "\n";
    return kExitFailure;
  }
  if (json) {
    nlohmann::ordered_json out;
    out["samples"] = result->samples;
    out["testLoss"] = Number(result->loss);
    out["testAccuracy"] = Number(result->accuracy);
    nlohmann::ordered_json outputs = nlohmann::ordered_json::object();
    for (const dag::Endpoint& e : dag.outputs) {
      auto it = result->outputs.find(e.name);
      nlohmann::ordered_json o;
      o["testLoss"] =
          it != result->outputs.end() ? Number(it->second.loss) : nullptr;
      o["testAccuracy"] =
          it != result->outputs.end() ? Number(it->second.accuracy) : nullptr;
      outputs[e.name] = o;
    }
    out["outputs"] = outputs;
    std::cout << out.dump() << "\n";
  } else {
    std::printf("test: %lld samples, loss %.4f",
                static_cast<long long>(result->samples), result->loss);
    if (result->accuracy) std::printf(", accuracy %.4f", *result->accuracy);
    std::printf("\n");
  }
  return kExitOk;
}

}  // namespace webnnm::client
