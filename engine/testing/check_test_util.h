// Helpers for tests that check whole models (engine/model, engine/dag).
#ifndef WEBNNM_ENGINE_TESTING_CHECK_TEST_UTIL_H_
#define WEBNNM_ENGINE_TESTING_CHECK_TEST_UTIL_H_

#include <string>
#include <vector>

#include "engine/check.h"

namespace webnnm::testing {

inline CheckResult Check(const std::string& text, ir::Limits limits = {}) {
  return CheckModel("m.wnm", text, limits);
}

// "line:column: message" for every error (warnings left out).
inline std::vector<std::string> Errors(const CheckResult& result) {
  std::vector<std::string> out;
  for (const LocatedDiagnostic& d : result.diagnostics) {
    if (d.severity != Severity::kError) continue;
    out.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) +
                  ": " + d.message);
  }
  return out;
}

inline std::vector<std::string> Warnings(const CheckResult& result) {
  return result.warnings;
}

// The type of the value of the live node `node`'s output 0.
inline const ir::TensorType& TypeOf(const dag::Dag& dag, ir::NodeId node) {
  return dag.graph.value(dag.graph.output(node)).type;
}

// The first live operation node of `kind`, or -1.
inline ir::NodeId FindOp(const dag::Dag& dag, ir::OpKind kind, int skip = 0) {
  for (ir::NodeId id = 0; id < dag.graph.num_nodes(); ++id) {
    const ir::Node& n = dag.graph.node(id);
    if (n.kind == ir::NodeKind::kOp && n.op->kind == kind && skip-- == 0) {
      return id;
    }
  }
  return -1;
}

inline int CountOps(const dag::Dag& dag, ir::OpKind kind) {
  int count = 0;
  for (const ir::Node& n : dag.graph.nodes()) {
    count += n.kind == ir::NodeKind::kOp && n.op->kind == kind;
  }
  return count;
}

}  // namespace webnnm::testing

#endif  // WEBNNM_ENGINE_TESTING_CHECK_TEST_UTIL_H_
