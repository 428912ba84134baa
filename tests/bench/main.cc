// webnnm-bench: performance measurements as JSON lines (never assertions).
//
//   webnnm-bench ops [--threads N]   our executables next to direct oneDNN
#include <iostream>

#include <CLI/CLI.hpp>

#include "backends/cpu/cpu_context.h"
#include "tests/bench/bench.h"

int main(int argc, char** argv) {
  CLI::App app{"webnnm-bench: performance measurements as JSON lines"};
  app.require_subcommand(1);
  int threads = 1;
  app.add_option("--threads", threads, "Compute threads")
      ->check(CLI::Range(1, 256));
  CLI::App* ops = app.add_subcommand(
      "ops", "Operations on our executables next to oneDNN called directly");
  ops->fallthrough();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  webnnm::backends::cpu::ConfigureThreads(threads);
  if (*ops) return webnnm::bench::RunOps(threads);
  return 2;
}
