// webnnm-bench infer: in-process inference through the C++ API (NNModel
// Run) next to PyTorch in the same invocation, one thread each
// (docs/performance.md).
//
// Models: iris (configs/models/iris.wnm), the 784 MLP (fashion-mlp.wnm),
// the Fashion CNN (fashion-cnn.wnm), and the wide variants of the CNN and
// the MLP for serving (fashion-cnn-wide.wnm, fashion-mlp-wide.wnm: PyTorch
// has no twins of them), at batch 1 and 64, on random inputs
// set once (the parameters are the model's initial ones: the values do not
// change the work). A call is NNModel::Run on a context whose inputs are
// set; each call is timed alone after a warm-up; p50 and p99 over `calls`
// (an eighth of them at batch 64). The PyTorch side is
// tests/bench/infer_pytorch.py: the same models, model(x) under
// torch.inference_mode().
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/api/nnmodel.h"
#include "tests/bench/bench.h"

namespace webnnm::bench {
namespace {

using nlohmann::ordered_json;

struct Latency {
  double p50 = 0, p99 = 0;  // seconds
};

absl::StatusOr<Latency> Measure(const std::string& path, int64_t batch,
                                int calls) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::unique_ptr<NNModel>> model =
      NNModel::Create({.source = text.str(), .file = path, .threads = 1});
  if (!model.ok()) return model.status();
  absl::StatusOr<std::unique_ptr<Context>> context = (*model)->CreateContext();
  if (!context.ok()) return context.status();
  if (absl::Status s = (*context)->SetBatchSize(batch); !s.ok()) return s;
  if (absl::Status s = (*context)->Randomize("", 0, 1); !s.ok()) return s;
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < std::min(100, calls); ++i) {
    if (absl::Status s = (*model)->Run(**context); !s.ok()) return s;
  }
  std::vector<double> times;
  times.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    const Clock::time_point start = Clock::now();
    if (absl::Status s = (*model)->Run(**context); !s.ok()) return s;
    times.push_back(
        std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return Latency{times[times.size() / 2], times[times.size() * 99 / 100]};
}

// The PyTorch script's lines by "model/batch".
std::map<std::string, ordered_json> RunPytorch(const std::string& script,
                                               int calls) {
  std::map<std::string, ordered_json> lines;
  for (ordered_json& line :
       RunPytorchScript(script, "--calls " + std::to_string(calls))) {
    if (line.contains("model") && line.contains("batch")) {
      const std::string key = line["model"].get<std::string>() + "/" +
                              std::to_string(line["batch"].get<int64_t>());
      lines[key] = std::move(line);  // the key first: `line` is moved from
    }
  }
  return lines;
}

}  // namespace

int RunInfer(const InferBenchOptions& o) {
  const std::pair<std::string, std::string> models[] = {
      {"iris", o.models + "/iris.wnm"},
      {"mlp784", o.models + "/fashion-mlp.wnm"},
      {"cnn", o.models + "/fashion-cnn.wnm"},
      {"cnn-wide", o.models + "/fashion-cnn-wide.wnm"},
      {"mlp-wide", o.models + "/fashion-mlp-wide.wnm"}};
  std::map<std::string, double> ours;  // p50 by "model/batch"
  for (const auto& [name, path] : models) {
    for (int64_t batch : {1, 64}) {
      const int calls = batch == 1 ? o.calls : std::max(10, o.calls / 8);
      absl::StatusOr<Latency> l = Measure(path, batch, calls);
      if (!l.ok()) {
        std::cerr << "webnnm-bench: " << name << ": " << l.status().message()
                  << "\n";
        return 1;
      }
      ours[name + "/" + std::to_string(batch)] = l->p50;
      ordered_json line;
      line["bench"] = "infer";
      line["model"] = name;
      line["batch"] = batch;
      line["framework"] = "webnnm";
      line["calls"] = calls;
      line["p50Microseconds"] = l->p50 * 1e6;
      line["p99Microseconds"] = l->p99 * 1e6;
      line["samplesPerSecond"] = batch / l->p50;
      std::cout << line.dump() << "\n" << std::flush;
    }
  }
  if (!o.pytorch) return 0;
  std::map<std::string, ordered_json> theirs =
      RunPytorch(o.pytorch_script, o.calls);
  for (const auto& [key, p50] : ours) {
    auto it = theirs.find(key);
    if (it == theirs.end()) continue;
    const double their_p50 = it->second.value("p50Microseconds", 0.0) / 1e6;
    ordered_json line;
    line["bench"] = "infer";
    line["model"] = key.substr(0, key.find('/'));
    line["batch"] = std::stoi(key.substr(key.find('/') + 1));
    line["compare"] = "webnnm/pytorch";
    line["webnnmP50Microseconds"] = p50 * 1e6;
    line["pytorchP50Microseconds"] = their_p50 * 1e6;
    line["speedup"] = p50 > 0 ? their_p50 / p50 : 0.0;
    std::cout << line.dump() << "\n" << std::flush;
  }
  return 0;
}

}  // namespace webnnm::bench
