// GraphBuilder: builds a concrete graph operation by operation, the way
// WebNN's MLGraphBuilder does (inputs, constants, operations, outputs).
//
// Every operation is validated by its rule when added, so a graph that
// builds is well-typed. Used by the conformance runner and the tests of the
// backends; the DAG builder has its own front end (engine/dag).
#ifndef WEBNNM_ENGINE_IR_GRAPH_BUILDER_H_
#define WEBNNM_ENGINE_IR_GRAPH_BUILDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"
#include "engine/ir/limits.h"
#include "engine/ir/rewriter.h"

namespace webnnm::ir {

class GraphBuilder {
 public:
  explicit GraphBuilder(const Limits& limits = {})
      : limits_(limits), rewriter_(graph_, limits_) {}

  // A tensor the caller fills before each run.
  ValueId Input(const std::string& name, TensorType type);
  // A tensor with fixed data (ConstantData's layout).
  absl::StatusOr<ValueId> Constant(const std::string& name, TensorType type,
                                   std::shared_ptr<const ConstantData> data);
  // An operation; returns its results, or the rule's error.
  absl::StatusOr<std::vector<ValueId>> Op(OpKind kind,
                                          std::vector<ValueId> operands,
                                          Attrs attrs = {});
  // Marks `value` as a graph output called `name`.
  void Output(const std::string& name, ValueId value);

  const TensorType& Type(ValueId value) const {
    return graph_.value(value).type;
  }
  Graph Finish() { return std::move(graph_); }

 private:
  Limits limits_;
  Graph graph_;
  GraphRewriter rewriter_;
};

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_GRAPH_BUILDER_H_
