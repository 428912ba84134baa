#include "client/predict_command.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/api/predict.h"
#include "engine/api/predict_output.h"
#include "engine/api/threads.h"

namespace webnnm::client {
namespace {

// The prediction at `at` (a sample's, or a step's: OutputPredictions::at).
nlohmann::ordered_json Prediction(const OutputPredictions& o, int64_t at) {
  nlohmann::ordered_json v;
  if (o.classification) {
    v["class"] = o.classes[o.predicted[at]];
    v["probabilities"] = ClassProbabilities(o, at);
  } else if (o.units == 1) {
    v["value"] = o.values[at];
  } else {
    v["value"] = std::vector<double>(o.values.begin() + at * o.units,
                                     o.values.begin() + (at + 1) * o.units);
  }
  return v;
}

}  // namespace

void WriteJsonLines(const Predictions& p, std::ostream& out) {
  for (int64_t i = 0; i < p.samples; ++i) {
    nlohmann::ordered_json line;
    line["index"] = i;
    for (const OutputPredictions& o : p.outputs) {
      if (!o.sequenced) {
        line[o.name] = Prediction(o, i);
        continue;
      }
      const int64_t steps = o.lengths.empty() ? o.steps : o.lengths[i];
      nlohmann::ordered_json each = nlohmann::ordered_json::array();
      for (int64_t t = 0; t < steps; ++t) {
        each.push_back(Prediction(o, o.at(i, t)));
      }
      line[o.name] = {{"steps", each}};
    }
    out << line.dump() << "\n";
  }
}

CLI::App* AddPredictCommand(CLI::App& app, PredictOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "predict", "Predict every sample of a dataset with a snapshot");
  cmd->add_option("FILE", o.file,
                  "The model file (.wnm) with --local, else the job id")
      ->required();
  cmd->add_flag("--local", o.local,
                "Predict in this process (else the daemon predicts with the "
                "job FILE's newest snapshot)");
  cmd->add_option("--load", o.load, "The snapshot to predict with (--local)");
  AddDataOptions(*cmd, o.data, /*standardize=*/false);
  AddResizeFlag(*cmd, o.data);
  cmd->add_option("--output", o.output,
                  "Write the predictions to this .csv or .npz file");
  cmd->add_option("--backend", o.backend, "Backend: cpu or vulkan");
  AddHyperparameterFlags(*cmd, o.hyperparameters, {"threads", "batchSize"});
  return cmd;
}

int RunPredict(const PredictOptions& options, bool json) {
  if (options.local == options.load.empty()) {
    std::cerr << "webnnmctl: predict --local takes --load SNAPSHOT; predict "
                 "JOB (the daemon's) takes none\n";
    return kExitUsage;
  }
  const bool npz = options.output.ends_with(".npz");
  if (!options.output.empty() && !npz && !options.output.ends_with(".csv")) {
    std::cerr << "webnnmctl: --output takes a .csv or a .npz file, not "
              << options.output << "\n";
    return kExitUsage;
  }
  absl::StatusOr<train::Hyperparameters> hyper =
      HyperparametersFromFlags(options.hyperparameters);
  if (!hyper.ok()) return Fail(hyper.status());
  ConfigureComputeThreads(hyper->threads);
  LoadedModel model = LoadModel(options.file);
  if (model.exit_code != kExitOk) return model.exit_code;
  absl::StatusOr<train::ModelSnapshot> snapshot =
      train::LoadModelSnapshot(options.load);
  if (!snapshot.ok()) return Fail(snapshot.status());
  PredictRequest request{.dag = &*model.check.dag,
                         .model_source = model.source,
                         .snapshot = &*snapshot,
                         .source = {.path = options.data.dataset,
                                    .label = options.data.label,
                                    .no_header = options.data.no_header,
                                    .resize = options.data.resize},
                         .backend = options.backend,
                         .threads = hyper->threads};
  if (options.hyperparameters.count("batchSize")) {
    request.batch = hyper->batch_size;
  }
  absl::StatusOr<Predictions> p = Predict(request);
  if (!p.ok()) return Fail(p.status());
  if (options.output.empty()) {
    if (json) {
      WriteJsonLines(*p, std::cout);
    } else {
      std::cout << PredictionsCsv(*p);
    }
    return kExitOk;
  }
  std::string bytes;
  if (npz) {
    absl::StatusOr<std::string> encoded = PredictionsNpz(*p);
    if (!encoded.ok()) return Fail(encoded.status());
    bytes = *std::move(encoded);
  } else {
    bytes = PredictionsCsv(*p);
  }
  std::ofstream out(options.output, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::cerr << "webnnmctl: cannot write " << options.output << "\n";
    return kExitFailure;
  }
  if (json) {
    std::cout << nlohmann::ordered_json{{"samples", p->samples},
                                        {"output", options.output}}
                     .dump()
              << "\n";
  } else {
    std::printf("predicted %lld samples into %s\n",
                static_cast<long long>(p->samples), options.output.c_str());
  }
  return kExitOk;
}

}  // namespace webnnm::client
