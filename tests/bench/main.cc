// webnnm-bench: performance measurements as JSON lines (never assertions).
//
//   webnnm-bench [--backend cpu|vulkan] ...  our side's backend (ops, train)
//   webnnm-bench ops [--threads N]   our executables next to direct oneDNN
//   webnnm-bench train               training throughput next to PyTorch
//   webnnm-bench serve               Infer/ModelInfer latency over loopback
//   webnnm-bench infer               in-process inference next to PyTorch
//   webnnm-bench defaults            no hyperparameters, next to scikit-learn
#include <iostream>

#include <CLI/CLI.hpp>

#include "absl/synchronization/mutex.h"

#include "engine/api/threads.h"
#include "tests/bench/bench.h"

int main(int argc, char** argv) {
  // As webnnmd does (server/main.cc): no deadlock-cycle check per lock.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  CLI::App app{"webnnm-bench: performance measurements as JSON lines"};
  app.require_subcommand(1);
  int threads = 1;
  app.add_option("--threads", threads,
                 "Compute threads (ops; train: our side's, PyTorch keeps 1)")
      ->check(CLI::Range(1, 256));
  std::string backend = "cpu";
  app.add_option("--backend", backend, "Our side's backend (ops, train)")
      ->check(CLI::IsMember({"cpu", "vulkan"}));
  CLI::App* ops = app.add_subcommand(
      "ops", "Operations on our executables next to oneDNN called directly");
  ops->fallthrough();

  webnnm::bench::TrainBenchOptions train_options;
  train_options.iris = WEBNNM_SOURCE_DIR "/configs/datasets/iris.csv";
  train_options.models = WEBNNM_SOURCE_DIR "/configs/models";
  train_options.pytorch_script =
      WEBNNM_SOURCE_DIR "/tests/bench/train_pytorch.py";
  CLI::App* train = app.add_subcommand(
      "train",
      "Training throughput (784 MLP on Fashion-MNIST, iris) next to PyTorch, "
      "one thread each");
  train->add_option("--fashion", train_options.fashion,
                    "The Fashion-MNIST IDX directory");
  train->add_option("--iris", train_options.iris, "iris.csv");
  train->add_option(
      "--models", train_options.models,
      "The folder of fashion-mlp.wnm, fashion-cnn.wnm and iris.wnm");
  train
      ->add_option("--iris-steps", train_options.iris_steps,
                   "Training steps on iris (rounded to whole epochs)")
      ->check(CLI::Range(10, 100000000));
  train->add_option("--pytorch-script", train_options.pytorch_script,
                    "The PyTorch side");
  train->add_option("--only", train_options.only, "One workload")
      ->check(CLI::IsMember({"mlp784", "cnn", "lstm", "iris"}));
  train
      ->add_option("--replicas", train_options.replicas,
                   "Our side on N data-parallel replicas of one thread, next "
                   "to one process of 1 and of N threads (no PyTorch)")
      ->check(CLI::Range(1, 16));
  webnnm::bench::ServeBenchOptions serve_options;
  serve_options.iris = train_options.iris;
  serve_options.models = train_options.models;
  CLI::App* serve = app.add_subcommand(
      "serve",
      "Infer and KServe ModelInfer at batch 1 over loopback: latency (p50, "
      "p99) and throughput at 1, 4 and 16 clients, with and without dynamic "
      "batching");
  serve->add_option("--fashion", serve_options.fashion,
                    "The Fashion-MNIST IDX directory (the 784 MLP, the CNN)");
  serve->add_option("--calls", serve_options.calls, "Calls per measurement")
      ->check(CLI::Range(10, 10000000));
  serve
      ->add_option("--clients", serve_options.clients,
                   "Client threads of the throughput measurements (default "
                   "1 4 16)")
      ->check(CLI::Range(1, 256));
  serve
      ->add_option("--only", serve_options.only,
                   "Serve only these models (default: iris mlp784 cnn "
                   "mlp-wide)")
      ->check(CLI::IsMember({"iris", "mlp784", "cnn", "mlp-wide"}));
  webnnm::bench::InferBenchOptions infer_options;
  infer_options.models = train_options.models;
  infer_options.pytorch_script =
      WEBNNM_SOURCE_DIR "/tests/bench/infer_pytorch.py";
  CLI::App* infer = app.add_subcommand(
      "infer",
      "In-process inference (NNModel Run: iris, the 784 MLP, the Fashion "
      "CNN and wide variants of both at batch 1 and 64) next to PyTorch, "
      "one thread each");
  infer
      ->add_option("--calls", infer_options.calls,
                   "Calls per measurement at batch 1 (an eighth at 64)")
      ->check(CLI::Range(10, 10000000));
  bool infer_no_pytorch = false;
  infer->add_flag("--no-pytorch", infer_no_pytorch, "Measure WebNNM only");
  webnnm::bench::DefaultsBenchOptions defaults_options;
  defaults_options.datasets = WEBNNM_SOURCE_DIR "/configs/datasets";
  defaults_options.models = train_options.models;
  defaults_options.sklearn_script =
      WEBNNM_SOURCE_DIR "/tests/bench/defaults_sklearn.py";
  CLI::App* defaults = app.add_subcommand(
      "defaults",
      "Training with no hyperparameters (iris, digits, wine, breast cancer, "
      "diabetes: seeds 1-5; the Fashion-MNIST MLP and CNN) next to "
      "scikit-learn's MLP defaults");
  defaults->add_option("--fashion", defaults_options.fashion,
                       "The Fashion-MNIST IDX directory");
  defaults->add_option("--datasets", defaults_options.datasets,
                       "The folder of the CSV sets");
  defaults->add_option("--models", defaults_options.models,
                       "The folder of the sets' models");
  defaults->add_option("--only", defaults_options.only,
                       "Comma-separated sets (iris, digits, wine, "
                       "breast-cancer, diabetes, fashion-mlp, fashion-cnn)");
  bool no_sklearn = false;
  defaults->add_flag("--no-sklearn", no_sklearn, "Measure WebNNM only");
  defaults->add_option("--sklearn-script", defaults_options.sklearn_script,
                       "The scikit-learn side");
  bool suite = false;
  defaults->add_flag("--suite", suite,
                     "The benchmark of real data sets (tests/bench/suite): "
                     "starter models, seeds 1-5, next to scikit-learn's MLP "
                     "and HistGradientBoosting defaults on the same rows");
  webnnm::bench::SuiteBenchOptions suite_options;
  suite_options.manifest = WEBNNM_SOURCE_DIR "/tests/bench/suite/suite.json";
  suite_options.make_script = WEBNNM_SOURCE_DIR "/scripts/make-suite-datasets";
  suite_options.sklearn_script =
      WEBNNM_SOURCE_DIR "/tests/bench/suite_sklearn.py";
  suite_options.data = "suite-data";
  defaults->add_option("--half", suite_options.half,
                       "--suite: one half (fitting or held-out)")
      ->check(CLI::IsMember({"fitting", "held-out"}));
  defaults->add_option("--suite-data", suite_options.data,
                       "--suite: the folder of its CSV files (made by "
                       "scripts/make-suite-datasets when missing)");
  defaults->add_option("--seeds", suite_options.seeds,
                       "--suite: split seeds 1..N")
      ->check(CLI::Range(1, 100));
  std::vector<std::string> suite_hyper;
  defaults->add_option("--hyper", suite_hyper,
                       "--suite: NAME=VALUE for our side (measuring a rule "
                       "before it is one)");
  std::string starter_shape;
  defaults->add_option("--starter", starter_shape,
                       "--suite: the starter models' hidden layers as "
                       "LAYERSxWIDTH (measuring another rule)");
  bool no_pytorch = false;
  train->add_flag("--no-pytorch", no_pytorch, "Measure WebNNM only");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (*ops) {
    webnnm::ConfigureComputeThreads(threads);
    return webnnm::bench::RunOps(threads, backend);
  }
  if (*train) {
    webnnm::ConfigureComputeThreads(threads);
    train_options.threads = threads;
    train_options.pytorch = !no_pytorch;
    train_options.backend = backend;
    return webnnm::bench::RunTrain(train_options);
  }
  if (*defaults) {
    webnnm::ConfigureComputeThreads(1);
    defaults_options.sklearn = !no_sklearn;
    if (!suite) return webnnm::bench::RunDefaults(defaults_options);
    suite_options.sklearn = !no_sklearn;
    suite_options.only = defaults_options.only;
    for (const std::string& h : suite_hyper) {
      const size_t eq = h.find('=');
      if (eq == std::string::npos) {
        std::cerr << "webnnm-bench: --hyper takes NAME=VALUE, not " << h
                  << "\n";
        return 2;
      }
      suite_options.hyperparameters.emplace_back(h.substr(0, eq),
                                                 h.substr(eq + 1));
    }
    if (!starter_shape.empty()) {
      const size_t x = starter_shape.find('x');
      if (x == std::string::npos) {
        std::cerr << "webnnm-bench: --starter takes LAYERSxWIDTH\n";
        return 2;
      }
      suite_options.starter_layers = std::stoi(starter_shape.substr(0, x));
      suite_options.starter_width = std::stoll(starter_shape.substr(x + 1));
    }
    return webnnm::bench::RunSuite(suite_options);
  }
  if (*infer) {
    webnnm::ConfigureComputeThreads(1);
    infer_options.pytorch = !infer_no_pytorch;
    return webnnm::bench::RunInfer(infer_options);
  }
  if (*serve) {
    webnnm::ConfigureComputeThreads(1);
    return webnnm::bench::RunServe(serve_options);
  }
  return 2;
}
