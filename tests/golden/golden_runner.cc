// Golden tests for the model language and the DAG builder.
//
//   golden_runner [--update] MODEL.wnm EXPECTED.golden
//
// Runs the same in-process check as `webnnmctl check` on MODEL.wnm and
// compares a stable report — the rendered diagnostics, the summary and the
// DAG dump — with EXPECTED.golden. With --update it writes the report there
// instead (review the diff before committing). Exit status: 0 when they
// match (or after an update), 1 when they differ, 2 on usage errors.
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "client/check_report.h"
#include "engine/check.h"
#include "engine/dag/dump.h"

namespace {

std::string Report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string name = path.substr(path.find_last_of('/') + 1);
  webnnm::CheckResult result = webnnm::CheckModel(name, text.str());
  std::string out =
      "== check " + name + (result.ok ? ": ok" : ": invalid") + "\n";
  if (!result.rendered.empty()) out += "-- diagnostics\n" + result.rendered;
  if (result.ok) {
    out += "-- summary\n" + webnnm::client::CheckText(result);
    out += "-- dag\n" + webnnm::dag::DumpGraph(result.dag->graph);
  }
  return out;
}

// The first line where the two texts differ, for the failure message.
std::string FirstDifference(const std::string& expected,
                            const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string le, la;
  for (int line = 1;; ++line) {
    bool has_e = static_cast<bool>(std::getline(e, le));
    bool has_a = static_cast<bool>(std::getline(a, la));
    if (!has_e && !has_a) return "";
    if (!has_e || !has_a || le != la) {
      return "line " + std::to_string(line) +
             ":\n  expected: " + (has_e ? le : "<end>") +
             "\n  actual:   " + (has_a ? la : "<end>");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool update = argc == 4 && std::strcmp(argv[1], "--update") == 0;
  if (argc != 3 && !update) {
    std::cerr << "usage: golden_runner [--update] MODEL.wnm EXPECTED.golden\n";
    return 2;
  }
  std::string model = argv[argc - 2], golden = argv[argc - 1];
  std::ifstream probe(model);
  if (!probe) {
    std::cerr << "golden_runner: cannot read " << model << "\n";
    return 2;
  }
  std::string actual = Report(model);
  if (update) {
    std::ofstream(golden, std::ios::binary) << actual;
    return 0;
  }
  std::ifstream in(golden, std::ios::binary);
  if (!in) {
    std::cerr << "missing " << golden << "; run scripts/update-golden\n";
    return 1;
  }
  std::stringstream expected;
  expected << in.rdbuf();
  if (expected.str() == actual) return 0;
  std::cerr << model << " differs from " << golden << " at "
            << FirstDifference(expected.str(), actual)
            << "\n(run scripts/update-golden and review the diff)\n";
  return 1;
}
