// webnnm-conformance: runs WebNN conformance vectors on a backend.
//
//   webnnm-conformance [--backend cpu] [--filter SUBSTR] [-v] [--threads N]
//                      [--reference-kernels] [--gradients] FILE...
//
// With --gradients, cases that carry the "gradients" extension also check
// the gradients of the listed inputs (tests/conformance/gradient_case.h).
// Prints one line per failed case, "FAIL <file>: <case>: <reason>", then
// "N passed, M failed, K skipped". Exit status: 0 when nothing failed, 1
// otherwise, 2 with no files or bad flags. A case is skipped only when the
// backend declares one of its (operation, data type) pairs unsupported.
// Expected values corrected by vector_errata.h are reported on stderr as
// "ERRATUM ..." lines.
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "backends/backend.h"
#include "backends/cpu/cpu_context.h"
#include "tests/conformance/conformance_case.h"
#include "tests/conformance/gradient_case.h"
#include "tests/conformance/vector_errata.h"

namespace {

using webnnm::conformance::Case;

struct Counts {
  int passed = 0, failed = 0, skipped = 0;
};

std::string Basename(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Runs one case; returns "" on success, "skip" when skipped, else why not.
std::string RunCase(webnnm::backends::Backend& backend, const Case& c,
                    const webnnm::backends::CompileOptions& options) {
  for (const auto& [op, dtype] : c.uses) {
    if (!backend.Supports(op, dtype)) return "skip";
  }
  auto exe = backend.Compile(c.graph, options);
  if (!exe.ok()) return std::string(exe.status().message());
  for (const auto& input : c.inputs) {
    int i = (*exe)->FindInput(input.name);
    if (i < 0 || (*exe)->input(i).size() != input.bytes.size()) {
      return "input " + input.name + " does not match the executable";
    }
    std::memcpy((*exe)->input(i).data(), input.bytes.data(),
                input.bytes.size());
  }
  absl::Status status = (*exe)->Run();
  if (!status.ok()) return std::string(status.message());
  for (const auto& expected : c.outputs) {
    int i = (*exe)->FindOutput(expected.name);
    if (i < 0) return "no output " + expected.name;
    std::string error =
        webnnm::conformance::Compare(expected, (*exe)->output(i).data(),
                                     expected.tolerance.value_or(c.tolerance));
    if (!error.empty()) return error;
  }
  return "";
}

void RunFile(const std::string& path, webnnm::backends::Backend& backend,
             const std::string& filter, bool verbose, bool gradients,
             const webnnm::backends::CompileOptions& options, Counts& counts) {
  std::string file = Basename(path);
  std::ifstream in(path);
  nlohmann::json document;
  try {
    if (!in) throw std::runtime_error("cannot read the file");
    document = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::cout << "FAIL " << file << ": (file): " << e.what() << "\n";
    ++counts.failed;
    return;
  }
  if (!document.contains("tests") || !document["tests"].is_array()) {
    std::cout << "FAIL " << file << ": (file): no \"tests\" array\n";
    ++counts.failed;
    return;
  }
  for (const nlohmann::json& test : document["tests"]) {
    std::string name = test.value("name", "(unnamed)");
    if (!filter.empty() && name.find(filter) == std::string::npos &&
        file.find(filter) == std::string::npos) {
      continue;
    }
    std::string error;
    try {
      auto built = webnnm::conformance::BuildCase(test);
      if (built.ok()) {
        for (const std::string& note :
             webnnm::conformance::ApplyVectorErrata(file, *built)) {
          std::cerr << "ERRATUM " << note << "\n";
        }
      }
      if (built.ok() && gradients) {
        absl::Status status = webnnm::conformance::AddGradients(*built);
        if (!status.ok()) built = status;
      }
      error = built.ok() ? RunCase(backend, *built, options)
                         : std::string(built.status().message());
    } catch (const std::exception& e) {
      error = std::string("malformed case: ") + e.what();
    }
    if (error == "skip") {
      ++counts.skipped;
      if (verbose) std::cout << "SKIP " << file << ": " << name << "\n";
    } else if (error.empty()) {
      ++counts.passed;
      if (verbose) std::cout << "PASS " << file << ": " << name << "\n";
    } else {
      ++counts.failed;
      std::cout << "FAIL " << file << ": " << name << ": " << error << "\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"webnnm-conformance: run WebNN conformance vectors"};
  std::string backend_name = "cpu", filter;
  bool verbose = false, gradients = false;
  int threads = 1;
  bool reference_kernels = false;
  webnnm::backends::CompileOptions options;
  std::vector<std::string> files;
  app.add_option("--backend", backend_name, "Backend to run: cpu or vulkan");
  app.add_option("--filter", filter, "Only cases whose name contains this");
  app.add_flag("-v,--verbose", verbose, "Also print passed and skipped cases");
  app.add_flag("--gradients", gradients,
               "Also check the gradients of the cases that carry them");
  app.add_option("--threads", threads, "Compute threads")
      ->check(CLI::Range(1, 256));
  app.add_flag("--reference-kernels", reference_kernels,
               "Use the backend's plain kernels wherever it also has "
               "optimized ones");
  app.add_option("--library-minimum-elements", options.library_minimum_elements,
                 "Operations smaller than this run on the plain kernels "
                 "(0: the optimized library at every size)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("FILE", files, "Conformance JSON files");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (files.empty()) {
    std::cerr << "webnnm-conformance: no files given\n";
    return 2;
  }
  webnnm::backends::cpu::ConfigureThreads(threads);
  auto backend = webnnm::backends::CreateBackend(backend_name);
  if (!backend.ok()) {
    std::cerr << "webnnm-conformance: " << backend.status().message() << "\n";
    return 2;
  }
  options.threads = threads;
  options.reference_kernels = reference_kernels;
  Counts counts;
  for (const std::string& path : files) {
    RunFile(path, **backend, filter, verbose, gradients, options, counts);
  }
  std::cout << counts.passed << " passed, " << counts.failed << " failed, "
            << counts.skipped << " skipped\n";
  return counts.failed == 0 ? 0 : 1;
}
