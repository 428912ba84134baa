// The graph IR: a DAG of nodes producing typed values.
//
// One representation serves the symbolic DAG built from a model (batch and
// sequence dimensions symbolic, dimension names tracked) and the concrete
// graphs that backends compile (every size fixed). Node kinds follow the
// specification's DAG: inputs, outputs, parameters, constants (declared
// constants and literals) and operations. Values are the edges: each has one
// producer and a type once inferred.
//
// Ids are indices; removing nodes (culling) marks them dead and Compact()
// renumbers. A Graph is a value type with no internal synchronization.
#ifndef WEBNNM_ENGINE_IR_GRAPH_H_
#define WEBNNM_ENGINE_IR_GRAPH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/base/source.h"
#include "engine/ir/attrs.h"
#include "engine/ir/op_def.h"
#include "engine/ir/tensor_type.h"

namespace webnnm::ir {

using NodeId = int32_t;
using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

enum class NodeKind { kInput, kOutput, kParameter, kConstant, kOp };
const char* NodeKindName(NodeKind kind);

// How a parameter is initialised (docs/language.md).
enum class Init { kHe, kGlorot, kZeros, kOnes };
const char* InitName(Init init);

struct ParameterInfo {
  Init init = Init::kGlorot;
  bool trainable = true;  // false: running statistics
  ParamRole role = ParamRole::kWeight;
  int64_t fan_in = 0;  // for He/Glorot
  int64_t fan_out = 0;
};

// Constant data in little-endian element order: one element per dtype width
// (float16 as its bit pattern; int4/uint4 one element per byte).
struct ConstantData {
  std::vector<uint8_t> bytes;
};

struct Node {
  NodeKind kind = NodeKind::kOp;
  const OpDef* op = nullptr;      // kOp only
  std::vector<ValueId> operands;  // kOp: slot order, kNoValue when absent
  std::vector<ValueId> outputs;
  Attrs attrs;
  // Input/output: the block name. Parameter: its gensym'd name. Constant:
  // the declared name, or "" for a literal.
  std::string name;
  SourceRange range;  // where the user wrote what produced this node
  int layer = -1;     // the model layer it comes from, -1 if none
  std::shared_ptr<const ConstantData> data;  // kConstant
  ParameterInfo parameter;                   // kParameter
  // A value this node's output 0 stands for outside training (dropout):
  // inference and testing graphs use it instead.
  ValueId inference_alias = kNoValue;
  bool dead = false;
};

struct Value {
  TensorType type = {};
  NodeId producer = -1;
  int index = 0;       // which output of the producer
  bool typed = false;  // type inferred
};

class Graph {
 public:
  NodeId AddNode(Node node, int num_outputs);
  // Adds an operation node with the given operands; its outputs are untyped.
  NodeId AddOp(const OpDef& op, std::vector<ValueId> operands, Attrs attrs,
               int num_outputs = 1);

  Node& node(NodeId id) { return nodes_[id]; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  Value& value(ValueId id) { return values_[id]; }
  const Value& value(ValueId id) const { return values_[id]; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  int num_values() const { return static_cast<int>(values_.size()); }
  const std::vector<Node>& nodes() const { return nodes_; }

  // Output `index` of node `id`.
  ValueId output(NodeId id, int index = 0) const {
    return nodes_[id].outputs[index];
  }

  // Sets the node's number of outputs (a rule may return more or fewer
  // results than first assumed, as split does).
  void ResizeOutputs(NodeId id, int count);

  // Every live node that reads `value` (a scan of the graph).
  std::vector<NodeId> Consumers(ValueId value) const;
  // The live readers of every value at once, indexed by value id.
  std::vector<std::vector<NodeId>> ConsumerMap() const;
  // Makes every live reader of `from` read `to` instead.
  void ReplaceUses(ValueId from, ValueId to);

  // Live nodes in an order where every operand's producer comes first, or an
  // error naming a node on a cycle.
  absl::StatusOr<std::vector<NodeId>> TopologicalOrder() const;

  // Drops dead nodes and values that no live node produces, renumbering ids;
  // returns the new id of each old node (-1 for a dropped one).
  std::vector<NodeId> Compact();
  int CountLiveNodes() const;

 private:
  std::vector<Node> nodes_;
  std::vector<Value> values_;
};

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_GRAPH_H_
