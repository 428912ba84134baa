// DagBuilder: the state of one dag::Build run (dag.h), split across
// builder.cc (layers and endpoints), operands.cc (references to tensors),
// types.cc (compute types and casts), shapes.cc (pins and parameter shapes),
// adapters.cc (recurrent layouts and zero states) and finish.cc (culling,
// decomposition, initialisation). Internal to engine/dag.
#ifndef WEBNNM_ENGINE_DAG_BUILDER_H_
#define WEBNNM_ENGINE_DAG_BUILDER_H_

#include <map>
#include <optional>
#include <vector>

#include "engine/dag/attr_binding.h"
#include "engine/dag/dag.h"
#include "engine/dag/pin.h"
#include "engine/ir/rewriter.h"

namespace webnnm::dag {

class DagBuilder {
 public:
  DagBuilder(const model::Model& model, Diagnostics& diagnostics,
             const ir::Limits& limits);
  std::optional<Dag> Run();

 private:
  // ---- builder.cc ----------------------------------------------------------
  void CreateInputs();
  std::vector<int> LayerOrder();
  void BuildLayer(const model::Layer& layer);
  bool GatherOperands(const model::Layer& layer,
                      std::vector<ir::ValueId>& operands);
  void ConnectOutputs();
  // Reports a rule's error at the option, operand or layer it blames.
  void ReportRuleError(const model::Layer& layer, const absl::Status& status,
                       const std::string& prefix = "");

  // ---- operands.cc ---------------------------------------------------------
  // The value(s) a reference stands for; empty when what it names failed.
  std::vector<ir::ValueId> RefValues(const model::TensorRef& ref);
  ir::ValueId ConstantValue(int index);
  ir::ValueId ParameterValue(const std::string& name, SourceRange range,
                             int layer);
  ir::ValueId LiteralValue(const lang::Value& literal, int layer);
  // Encodes a literal once its data type is known.
  bool EncodeLiteral(ir::ValueId value, ir::DType type);
  bool IsPendingLiteral(ir::ValueId value) const {
    return pending_literals_.count(value) > 0;
  }
  bool IsUnshapedParameter(ir::ValueId value) const;

  // ---- types.cc
  // -------------------------------------------------------------- Decides the
  // compute type, encodes literals, types parameters and inserts up-casts;
  // false after reporting an error.
  // `widened`: set when float16 operands of an operation that overflows
  // float16 are computed in float32 (the result is to be cast back).
  bool ResolveTypes(const model::Layer& layer,
                    std::vector<ir::ValueId>& operands, bool& widened);

  // ---- shapes.cc
  // -------------------------------------------------------------
  void PropagatePins();
  // Gives every unshaped parameter operand its shape.
  bool SolveParameters(const model::Layer& layer, const ir::Attrs& attrs,
                       std::vector<ir::ValueId>& operands);
  // Checks a layer's result against its pin and renames its dimensions.
  bool ApplyLayerPin(const model::Layer& layer, ir::TensorType& type);

  // ---- adapters.cc
  // ----------------------------------------------------------- gru/lstm:
  // [batch, sequence, features] -> [steps, batch, features].
  bool AdaptRecurrentInput(const model::Layer& layer, ir::ValueId& input,
                           ir::Attrs& attrs);
  // gru/lstm initial states in the model layout, [batch, directions ·
  // hiddenSize] (the specification's), -> WebNN's [directions, batch,
  // hiddenSize]; states given in WebNN's layout stay.
  bool AdaptRecurrentStates(const model::Layer& layer,
                            std::vector<ir::ValueId>& operands,
                            const ir::Attrs& attrs);
  // gru/lstm: the last hidden state (or the sequence) in the model layout.
  std::optional<std::vector<ir::ValueId>> AdaptRecurrentOutputs(
      const model::Layer& layer, const std::vector<ir::ValueId>& outputs);
  // ---- index_adapters.cc ------------------------------------------------
  // gatherElements, scatterElements, gatherND, scatterND index the
  // features: the input's (and updates') batch and sequence dimensions go
  // last, element-wise indices are expanded over them, `axis` counts the
  // features; `global` says how many dimensions GlobalFirst() brings back
  // to the front of the result (0: nothing was adapted).
  bool AdaptFeatureIndexing(const model::Layer& layer,
                            std::vector<ir::ValueId>& operands,
                            ir::Attrs& attrs, int& global);
  std::optional<ir::ValueId> GlobalFirst(const model::Layer& layer,
                                         ir::ValueId result, int global);
  absl::StatusOr<ir::ValueId> GlobalLast(ir::ValueId v, int global);
  // `v` with dimensions of sizes `dims` inserted before its dimension `at`
  // (a reshape with ones there, then an expand).
  absl::StatusOr<ir::ValueId> InsertExpanded(ir::ValueId v, int at,
                                             const std::vector<int64_t>& dims);
  // `v` expanded over trailing dimensions `global` (InsertExpanded at the
  // end).
  absl::StatusOr<ir::ValueId> ExpandOverGlobal(
      ir::ValueId v, const std::vector<int64_t>& global);
  // Zeros for absent cell states; running statistics for batch
  // normalization without mean and variance.
  bool FillImplicitOperands(const model::Layer& layer, const ir::Attrs& attrs,
                            std::vector<ir::ValueId>& operands);

  // ---- finish.cc
  // -------------------------------------------------------------
  void Cull();
  void Decompose();
  void AnnotateInit();
  Dag Finish();

  ir::ValueId Cast(ir::ValueId value, ir::DType type);

  const model::Model& model_;
  Diagnostics& diagnostics_;
  const ir::Limits& limits_;
  ir::Graph graph_;
  int64_t declared_steps_ = 0;  // Dag::declared_steps
  ir::GraphRewriter rewriter_;

  std::vector<std::vector<ir::ValueId>> layer_results_;  // per layer
  std::vector<bool> layer_failed_;
  std::vector<std::optional<Pin>> pins_;  // per layer
  std::vector<ir::ValueId> section_inputs_;
  std::vector<Endpoint> inputs_, outputs_;
  std::map<int, ir::ValueId> constants_;          // by constant index
  std::map<std::string, ir::NodeId> parameters_;  // by name
  std::map<ir::ValueId, lang::Value> pending_literals_;
  std::map<int, ir::TensorType> result_types_;  // per built layer
  int running_counter_ = 0;
  // Layers computed in float32 for float16 inputs, with the node casting
  // their result back (culled with the layer).
  std::vector<std::pair<ir::NodeId, WidenedLayer>> widened_;
  bool culled_once_ = false;
};

}  // namespace webnnm::dag

#endif  // WEBNNM_ENGINE_DAG_BUILDER_H_
