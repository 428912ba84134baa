// The PyTorch side of the benchmarks: a script of tests/bench run with
// Debian's Python, one thread, passive OpenMP waiting and OpenBLAS on its
// AVX-512 kernels.
#include <cstdio>
#include <iostream>

#include "tests/bench/bench.h"

namespace webnnm::bench {

std::vector<nlohmann::ordered_json> RunPytorchScript(const std::string& script,
                                                     const std::string& args) {
  std::vector<nlohmann::ordered_json> lines;
  const std::string command =
      "OMP_WAIT_POLICY=PASSIVE OPENBLAS_CORETYPE=SkylakeX OMP_NUM_THREADS=1 "
      "/usr/bin/python3 '" +
      script + "' " + args;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return lines;
  char buffer[4096];
  while (fgets(buffer, sizeof buffer, pipe)) {
    nlohmann::ordered_json line =
        nlohmann::ordered_json::parse(buffer, nullptr, false);
    if (!line.is_object()) continue;
    std::cout << line.dump() << "\n" << std::flush;
    lines.push_back(std::move(line));
  }
  if (const int status = pclose(pipe); status != 0) {
    std::cerr << "webnnm-bench: " << script << " failed (status " << status
              << ")\n";
  }
  return lines;
}

}  // namespace webnnm::bench
