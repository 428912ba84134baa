#include "client/test_command.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "client/metrics_json.h"
#include "engine/api/threads.h"
#include "engine/train/run.h"

namespace webnnm::client {
namespace {

nlohmann::ordered_json Number(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

void PrintResult(const train::Evaluation& result, const dag::Dag& dag,
                 bool json) {
  if (!json) {
    std::printf("test: %lld samples, loss %.4f",
                static_cast<long long>(result.samples), result.loss);
    if (result.accuracy) std::printf(", accuracy %.4f", *result.accuracy);
    std::printf("\n");
    return;
  }
  nlohmann::ordered_json out;
  out["samples"] = result.samples;
  out["testLoss"] = Number(result.loss);
  out["testAccuracy"] = Number(result.accuracy);
  nlohmann::ordered_json outputs = nlohmann::ordered_json::object();
  for (const dag::Endpoint& e : dag.outputs) {
    auto it = result.outputs.find(e.name);
    nlohmann::ordered_json o;
    o["testLoss"] =
        it != result.outputs.end() ? Number(it->second.loss) : nullptr;
    o["testAccuracy"] =
        it != result.outputs.end() ? Number(it->second.accuracy) : nullptr;
    outputs[e.name] = o;
  }
  out["outputs"] = outputs;
  out["testMetrics"] = TestMetricsJson(MetricsOf(result, dag));
  std::cout << out.dump() << "\n";
}

}  // namespace

CLI::App* AddTestCommand(CLI::App& app, TestOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "test",
      "Test a snapshot's best parameters on a dataset: in this process "
      "(--local --load SNAPSHOT [FILE]) or on the daemon (JOB)");
  cmd->add_option("FILE_OR_JOB", o.file,
                  "--local: the model file (default: the snapshot's own "
                  "model); else the trained job (an id or a unique prefix)");
  cmd->add_flag("--local", o.local, "Test in this process");
  cmd->add_option("--load", o.load, "--local: the snapshot to test");
  AddDataOptions(*cmd, o.data, /*standardize=*/true);  // same flags as train
  AddResizeFlag(*cmd, o.data);
  cmd->add_flag("--all", o.all,
                "Test on the whole dataset (as --split 0,0,100)");
  cmd->add_option("--backend", o.backend, "Backend: cpu or vulkan");
  AddHyperparameterFlags(*cmd, o.hyperparameters, {"threads", "batchSize"});
  return cmd;
}

int RunTest(const TestOptions& options, bool json) {
  if (!options.local) {
    std::cerr << "webnnmctl: test without --local runs on the daemon: "
                 "webnnmctl test JOB --dataset D\n";
    return kExitUsage;
  }
  if (options.load.empty()) {
    std::cerr << "webnnmctl: test --local needs --load SNAPSHOT\n";
    return kExitUsage;
  }
  absl::StatusOr<train::Hyperparameters> hyper =
      HyperparametersFromFlags(options.hyperparameters);
  if (!hyper.ok()) return Fail(hyper.status());
  ConfigureComputeThreads(hyper->threads);
  absl::StatusOr<train::ModelSnapshot> snapshot =
      train::LoadModelSnapshot(options.load);
  if (!snapshot.ok()) return Fail(snapshot.status());
  // The snapshot's own model unless a file is given; a file must be the
  // snapshot's model.
  const std::string own_file =
      snapshot->model_file.empty() ? "model.wnm" : snapshot->model_file;
  CheckResult own = CheckModel(own_file, snapshot->model_source);
  LoadedModel model;
  if (options.file.empty()) {
    if (!own.ok) {
      std::cerr << "webnnmctl: the snapshot's model does not check:\n"
                << own.rendered;
      return kExitFailure;
    }
    model.source = snapshot->model_source;
    model.check = std::move(own);
  } else {
    model = LoadModel(options.file);
    if (model.exit_code != kExitOk) return model.exit_code;
    if (own.ok && own.dag->name != model.check.dag->name) {
      std::cerr << "webnnmctl: " << options.load << " is a snapshot of model '"
                << own.dag->name << "' (" << own_file << "), not of "
                << options.file << "'s model '" << model.check.dag->name
                << "'; leave FILE out to test the snapshot's own model\n";
      return kExitUsage;
    }
  }
  const std::string model_file = options.file.empty() ? own_file : options.file;
  // The snapshot's statistics apply, whatever the flag says.
  if (options.data.standardize && snapshot->standardization.empty()) {
    std::cerr << "webnnmctl: warning: --standardize: the snapshot was trained "
                 "on unstandardized features, so they are tested as they are\n";
  }
  absl::StatusOr<std::unique_ptr<train::Run>> run = train::Run::Prepare(
      {.purpose = train::RunPurpose::kTest,
       .dag = &*model.check.dag,
       .model_file = model_file,
       .model_source = model.source,
       .source = {.path = options.data.dataset,
                  .label = options.data.label,
                  .no_header = options.data.no_header,
                  .resize = options.data.resize},
       .dataset_name = options.data.dataset,
       .split = options.all ? std::string("0,0,100") : options.data.split,
       .hyperparameters = *hyper,
       .test_batch_size = options.hyperparameters.count("batchSize") > 0,
       .snapshot = &*snapshot,
       .backend = options.backend});
  if (!run.ok()) return Fail(run.status());
  absl::StatusOr<train::Evaluation> result = (*run)->Test();
  if (!result.ok()) {
    std::cerr << "webnnmctl: " << result.status().message() << "\n";
    return kExitFailure;
  }
  PrintResult(*result, *model.check.dag, json);
  return kExitOk;
}

}  // namespace webnnm::client
