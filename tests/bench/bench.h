// webnnm-bench's workloads, each printing JSON lines on stdout.
#ifndef WEBNNM_TESTS_BENCH_BENCH_H_
#define WEBNNM_TESTS_BENCH_BENCH_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace webnnm::bench {

// Runs `script` (a PyTorch side in tests/bench) with `args` under
// /usr/bin/python3 with one thread; echoes and returns the JSON object lines
// it prints (pytorch_side.cc).
std::vector<nlohmann::ordered_json> RunPytorchScript(const std::string& script,
                                                     const std::string& args);

// Our executables on `backend` (cpu or vulkan) next to oneDNN on the CPU;
// workloads the backend cannot run yet are reported as skipped.
int RunOps(int threads, const std::string& backend);  // bench_ops.cc

struct TrainBenchOptions {
  std::string fashion = "/usr/share/datasets/fashion-mnist";
  std::string iris;            // configs/datasets/iris.csv
  std::string models;          // configs/models
  std::string pytorch_script;  // tests/bench/train_pytorch.py
  int iris_steps = 20000;
  bool pytorch = true;
  std::string only;             // one workload: mlp784, cnn or iris
  std::string backend = "cpu";  // our side's
  int threads = 1;              // our side's compute threads
  // > 1: our side on this many replicas of one thread (Gloo on loopback)
  // next to one process of one and of this many threads; no PyTorch.
  int replicas = 1;
};
int RunTrain(const TrainBenchOptions& options);  // bench_train.cc

struct ServeBenchOptions {
  std::string fashion = "/usr/share/datasets/fashion-mnist";
  std::string iris;    // configs/datasets/iris.csv
  std::string models;  // configs/models
  int calls = 3000;    // per measurement
  // Client threads of the throughput measurements, each with and without
  // dynamic batching.
  std::vector<int> clients = {1, 4, 16};
  // The models to serve (empty: all — iris, mlp784, cnn, mlp-wide).
  std::vector<std::string> only;
};
int RunServe(const ServeBenchOptions& options);  // bench_serve.cc

struct InferBenchOptions {
  std::string models;          // configs/models
  std::string pytorch_script;  // tests/bench/infer_pytorch.py
  int calls = 5000;            // at batch 1 (an eighth at batch 64)
  bool pytorch = true;
};
int RunInfer(const InferBenchOptions& options);  // bench_infer.cc

struct DefaultsBenchOptions {
  std::string fashion = "/usr/share/datasets/fashion-mnist";
  std::string datasets;        // configs/datasets
  std::string models;          // configs/models
  std::string sklearn_script;  // tests/bench/defaults_sklearn.py
  std::string only;            // comma-separated set names; "": every set
  bool sklearn = true;
};
int RunDefaults(const DefaultsBenchOptions& options);  // bench_defaults.cc

// The benchmark of real data sets (bench_suite.cc, tests/bench/suite).
struct SuiteBenchOptions {
  std::string manifest;        // tests/bench/suite/suite.json
  std::string data;            // where the CSV files are (made when missing)
  std::string make_script;     // scripts/make-suite-datasets
  std::string sklearn_script;  // tests/bench/suite_sklearn.py
  std::string half;            // fitting, held-out; "": both
  std::string only;            // comma-separated set names; "": every set
  int seeds = 5;
  bool sklearn = true;
  // Our side's hyperparameters (NAME, VALUE as flags take them): for
  // measuring a rule before it is one; the defaults run with none.
  std::vector<std::pair<std::string, std::string>> hyperparameters;
  // The starter model's hidden layers (layers < 0: its own rule).
  int starter_layers = -1;
  int64_t starter_width = 64;
};
int RunSuite(const SuiteBenchOptions& options);

}  // namespace webnnm::bench

#endif  // WEBNNM_TESTS_BENCH_BENCH_H_
