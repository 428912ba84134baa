#include "client/predict_command.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "backends/cpu/cpu_context.h"
#include "engine/api/predict.h"

namespace webnnm::client {
namespace {

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string Field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string Number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

// A classification output's probability of each class for sample i (one
// unit: 1 - p and p).
std::vector<double> Probabilities(const OutputPredictions& o, int64_t i) {
  if (o.units == 1) {
    const double p = o.values[i];
    return {1 - p, p};
  }
  return {o.values.begin() + i * o.units, o.values.begin() + (i + 1) * o.units};
}

void WriteCsv(const Predictions& p, std::ostream& out) {
  std::string header;
  auto column = [&](const std::string& name) {
    header += (header.empty() ? "" : ",") + Field(name);
  };
  for (const OutputPredictions& o : p.outputs) {
    if (o.classification) {
      column(o.name + ":class");
      for (const std::string& c : o.classes) column(o.name + ":" + c);
    } else if (o.units == 1) {
      column(o.name);
    } else {
      for (int64_t u = 0; u < o.units; ++u) column(o.name + ":" + std::to_string(u));
    }
  }
  out << header << "\n";
  for (int64_t i = 0; i < p.samples; ++i) {
    std::string row;
    auto cell = [&](const std::string& text) {
      row += (row.empty() ? "" : ",") + text;
    };
    for (const OutputPredictions& o : p.outputs) {
      if (o.classification) {
        cell(Field(o.classes[o.predicted[i]]));
        for (double v : Probabilities(o, i)) cell(Number(v));
      } else {
        for (int64_t u = 0; u < o.units; ++u) cell(Number(o.values[i * o.units + u]));
      }
    }
    out << row << "\n";
  }
}

void WriteJsonLines(const Predictions& p, std::ostream& out) {
  for (int64_t i = 0; i < p.samples; ++i) {
    nlohmann::ordered_json line;
    line["index"] = i;
    for (const OutputPredictions& o : p.outputs) {
      nlohmann::ordered_json v;
      if (o.classification) {
        v["class"] = o.classes[o.predicted[i]];
        v["probabilities"] = Probabilities(o, i);
      } else if (o.units == 1) {
        v["value"] = o.values[i];
      } else {
        v["value"] = std::vector<double>(o.values.begin() + i * o.units,
                                         o.values.begin() + (i + 1) * o.units);
      }
      line[o.name] = v;
    }
    out << line.dump() << "\n";
  }
}

}  // namespace

CLI::App* AddPredictCommand(CLI::App& app, PredictOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "predict", "Predict every sample of a dataset with a snapshot");
  cmd->add_option("FILE", o.file, "The model file (.wnm)")->required();
  cmd->add_flag("--local", o.local, "Predict in this process");
  cmd->add_option("--load", o.load, "The snapshot to predict with")
      ->required();
  AddDataOptions(*cmd, o.data, /*standardize=*/false);
  cmd->add_option("--output", o.output,
                  "Write the predictions to this .csv file");
  cmd->add_option("--backend", o.backend, "Backend: cpu or vulkan");
  AddHyperparameterFlags(*cmd, o.hyperparameters, {"threads", "batchSize"});
  return cmd;
}

int RunPredict(const PredictOptions& options, bool json) {
  if (!options.local) {
    std::cerr << "webnnmctl: predict needs --local\n";
    return kExitUsage;
  }
  if (!options.output.empty() && !options.output.ends_with(".csv")) {
    std::cerr << "webnnmctl: --output takes a .csv file (NumPy .npz output "
                 "is not available yet): "
              << options.output << "\n";
    return kExitUsage;
  }
  absl::StatusOr<train::Hyperparameters> hyper =
      HyperparametersFromFlags(options.hyperparameters);
  if (!hyper.ok()) return Fail(hyper.status());
  backends::cpu::ConfigureThreads(hyper->threads);
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
                                    .no_header = options.data.no_header},
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
      WriteCsv(*p, std::cout);
    }
    return kExitOk;
  }
  std::ofstream out(options.output, std::ios::binary | std::ios::trunc);
  WriteCsv(*p, out);
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
