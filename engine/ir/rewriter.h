// GraphRewriter: adds typed operations to a graph while a pass rewrites it.
//
// High-level operations decompose through it (their OpDef::decompose), and
// the DAG builder uses it for the casts, transposes and reshapes it inserts.
// Every node added is type-checked by its rule at once, named with the
// default dimension names where its rule gives none, and attributed to the
// source range and layer given at construction.
#ifndef WEBNNM_ENGINE_IR_REWRITER_H_
#define WEBNNM_ENGINE_IR_REWRITER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"
#include "engine/ir/limits.h"

namespace webnnm::ir {

class GraphRewriter {
 public:
  GraphRewriter(Graph& graph, const Limits& limits)
      : graph_(graph), limits_(limits) {}

  // Source range and layer recorded on the nodes added from now on.
  void SetOrigin(SourceRange range, int layer) {
    range_ = range;
    layer_ = layer;
  }

  Graph& graph() { return graph_; }
  const Limits& limits() const { return limits_; }
  const TensorType& Type(ValueId value) const {
    return graph_.value(value).type;
  }
  ValueId Operand(NodeId node, int slot) const {
    const Node& n = graph_.node(node);
    return slot < static_cast<int>(n.operands.size()) ? n.operands[slot]
                                                      : kNoValue;
  }

  // Adds operation `kind` and infers its outputs; returns output 0.
  absl::StatusOr<ValueId> Add(OpKind kind, std::vector<ValueId> operands,
                              Attrs attrs = {});
  // Adds operation `kind` and returns all of its outputs.
  absl::StatusOr<std::vector<ValueId>> AddMulti(OpKind kind,
                                                std::vector<ValueId> operands,
                                                Attrs attrs = {});
  // A scalar literal of `type` (the value must fit the type).
  ValueId Scalar(double value, DType type);

  // Marks `node` dead and records that readers of its outputs should read
  // `replacements` (one per output) instead; ApplyReplacements() redirects
  // them all in one pass (so a pass may replace many nodes cheaply).
  void Replace(NodeId node, const std::vector<ValueId>& replacements);
  void ApplyReplacements();
  // What `value` stands for after the pending replacements (itself when it
  // is not replaced).
  ValueId Resolve(ValueId value) const;

 private:
  Graph& graph_;
  const Limits& limits_;
  SourceRange range_;
  int layer_ = -1;
  std::vector<std::pair<ValueId, ValueId>> replacements_;
};

// Gives every unnamed dimension of a named type a default name ("batch",
// "sequence", "features" or "features0", "features1", ...), so that a value
// in the symbolic DAG always has a full layout.
void FillDefaultNames(TensorType& type);

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_REWRITER_H_
