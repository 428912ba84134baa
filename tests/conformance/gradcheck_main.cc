// webnnm-gradcheck: the specification's test harness for analytic
// gradients ("WebNNM Test Harness"): for every case of the given gradient
// vector files, the gradients computed by differentiating the graph
// (engine/autodiff) are compared with central differences of
//   L = Σ over outputs of <seed, output>
// on random inputs and random seeds: each float32 input element of the case
// is scaled by a random factor in [0.98, 1.02] (keeping the vector's
// distance from kinks and its domain), and the seeds are drawn afresh.
//
//   webnnm-gradcheck [--seed N] [-v] FILE...
//
// For each element x_i of each floating-point input (graph inputs and
// constants alike), the measured gradient is (L(x_i + h) - L(x_i - h)) / 2h,
// with L summed in double from the float32 outputs; it passes when
// |measured - analytic| <= 5e-3 + 3e-2 |analytic| for one of the steps
// h = 1e-2, 3e-3, 1e-3 (times max(1, |x_i|)): a kink between x_i - h and
// x_i + h spoils the larger steps only. Prints "FAIL <file>: <case>: ..."
// per failed case and "N passed, M failed, K skipped"; exit 0 when nothing
// failed, 1 otherwise, 2 on bad usage. float16 cases are skipped (their
// rounding is coarser than any useful step).
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "backends/backend.h"
#include "tests/conformance/conformance_case.h"
#include "tests/conformance/gradient_case.h"

namespace {

using webnnm::conformance::Case;
using json = nlohmann::json;

struct Counts {
  int passed = 0, failed = 0, skipped = 0;
};

// Makes every input a graph input (not a constant), scales float data by
// random factors and replaces the seeds with normal random numbers.
// Returns false when the case has float16 data.
bool Randomize(json& test, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> factor(0.98, 1.02);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (auto& [name, input] : test["graph"]["inputs"].items()) {
    std::string type = input["descriptor"].value("dataType", "float32");
    if (type == "float16") return false;
    input.erase("constant");
    if (type != "float32") continue;
    for (json& v : input["data"]) {
      if (v.is_number()) v = v.get<double>() * factor(rng);
    }
  }
  for (auto& [name, seed] : test["gradients"]["seed"].items()) {
    for (json& v : seed) v = normal(rng);
  }
  return true;
}

float ReadFloat(const std::byte* p) {
  float f;
  std::memcpy(&f, p, sizeof f);
  return f;
}

// L = Σ <seed, output> of the forward executable's current run.
double Objective(const webnnm::backends::Executable& exe, const json& seeds) {
  double total = 0;
  for (const auto& [name, seed] : seeds.items()) {
    int i = exe.FindOutput(name);
    auto out = exe.output(i);
    for (size_t k = 0; k < seed.size(); ++k) {
      total +=
          seed[k].get<double>() * ReadFloat(out.data() + k * sizeof(float));
    }
  }
  return total;
}

std::string CheckCase(webnnm::backends::Backend& backend, json test,
                      uint64_t seed, bool& skipped) {
  std::mt19937_64 rng(seed ^ std::hash<std::string>()(test.value("name", "")));
  if (!Randomize(test, rng)) {
    skipped = true;
    return "";
  }
  auto forward = webnnm::conformance::BuildCase(test);
  if (!forward.ok()) return std::string(forward.status().message());
  auto with_gradients = webnnm::conformance::BuildCase(test);
  if (!with_gradients.ok())
    return std::string(with_gradients.status().message());
  absl::Status status = webnnm::conformance::AddGradients(*with_gradients);
  if (!status.ok()) return std::string(status.message());

  webnnm::backends::CompileOptions options;
  auto exe = backend.Compile(forward->graph, options);
  if (!exe.ok()) return std::string(exe.status().message());
  auto grad_exe = backend.Compile(with_gradients->graph, options);
  if (!grad_exe.ok()) return std::string(grad_exe.status().message());
  for (const auto& input : with_gradients->inputs) {
    int i = (*grad_exe)->FindInput(input.name);
    std::memcpy((*grad_exe)->input(i).data(), input.bytes.data(),
                input.bytes.size());
  }
  if (absl::Status s = (*grad_exe)->Run(); !s.ok()) {
    return std::string(s.message());
  }
  for (const auto& input : forward->inputs) {
    int i = (*exe)->FindInput(input.name);
    std::memcpy((*exe)->input(i).data(), input.bytes.data(),
                input.bytes.size());
  }

  const json& seeds = test["gradients"]["seed"];
  std::string worst;
  double worst_excess = 0;
  for (const auto& input : forward->inputs) {
    if (input.type.dtype != webnnm::ir::DType::kFloat32) continue;
    int g = (*grad_exe)->FindOutput("gradient:" + input.name);
    if (g < 0) continue;  // not listed in "expected"
    auto analytic = (*grad_exe)->output(g);
    int i = (*exe)->FindInput(input.name);
    std::byte* data = (*exe)->input(i).data();
    size_t count = input.bytes.size() / sizeof(float);
    for (size_t k = 0; k < count; ++k) {
      float x = ReadFloat(input.bytes.data() + k * sizeof(float));
      double expected = ReadFloat(analytic.data() + k * sizeof(float));
      double best = INFINITY, best_measured = 0;
      for (double step : {1e-2, 3e-3, 1e-3}) {
        double h = step * std::max(1.0, std::fabs(static_cast<double>(x)));
        float plus = static_cast<float>(x + h),
              minus = static_cast<float>(x - h);
        std::memcpy(data + k * sizeof(float), &plus, sizeof plus);
        if (!(*exe)->Run().ok()) return "forward run failed";
        double l_plus = Objective(**exe, seeds);
        std::memcpy(data + k * sizeof(float), &minus, sizeof minus);
        if (!(*exe)->Run().ok()) return "forward run failed";
        double l_minus = Objective(**exe, seeds);
        double measured = (l_plus - l_minus) / (static_cast<double>(plus) -
                                                static_cast<double>(minus));
        double excess = std::fabs(measured - expected) -
                        (5e-3 + 3e-2 * std::fabs(expected));
        if (excess < best) {
          best = excess;
          best_measured = measured;
        }
        if (excess <= 0) break;
      }
      std::memcpy(data + k * sizeof(float), &x, sizeof x);
      if (best > worst_excess) {
        worst_excess = best;
        worst = input.name + "[" + std::to_string(k) + "]: analytic " +
                std::to_string(expected) + ", central difference " +
                std::to_string(best_measured);
      }
    }
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"webnnm-gradcheck: analytic vs central-difference gradients"};
  uint64_t seed = 1;
  bool verbose = false;
  std::vector<std::string> files;
  app.add_option("--seed", seed, "Seed of the random inputs and seeds");
  app.add_flag("-v,--verbose", verbose, "Also print passed cases");
  app.add_option("FILE", files, "Gradient vector files")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  auto backend = webnnm::backends::CreateBackend("cpu");
  if (!backend.ok()) {
    std::cerr << "webnnm-gradcheck: " << backend.status().message() << "\n";
    return 2;
  }
  Counts counts;
  for (const std::string& path : files) {
    std::string file = path.substr(path.find_last_of('/') + 1);
    std::ifstream in(path);
    json document;
    try {
      document = json::parse(in);
    } catch (const std::exception& e) {
      std::cout << "FAIL " << file << ": (file): " << e.what() << "\n";
      ++counts.failed;
      continue;
    }
    for (const json& test : document["tests"]) {
      if (!test.contains("gradients")) continue;
      std::string name = test.value("name", "(unnamed)");
      bool skipped = false;
      std::string error;
      try {
        error = CheckCase(**backend, test, seed, skipped);
      } catch (const std::exception& e) {
        error = std::string("malformed case: ") + e.what();
      }
      if (skipped) {
        ++counts.skipped;
      } else if (error.empty()) {
        ++counts.passed;
        if (verbose) std::cout << "PASS " << file << ": " << name << "\n";
      } else {
        ++counts.failed;
        std::cout << "FAIL " << file << ": " << name << ": " << error << "\n";
      }
    }
  }
  std::cout << counts.passed << " passed, " << counts.failed << " failed, "
            << counts.skipped << " skipped\n";
  return counts.failed == 0 ? 0 : 1;
}
