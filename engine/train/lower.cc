#include "engine/train/lower.h"

#include <string>
#include <vector>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/graph_ops.h"
#include "engine/ir/infer.h"
#include "engine/ir/op_def.h"
#include "engine/ir/rewriter.h"
#include "engine/ops/rnn_unroll.h"
#include "engine/train/buckets.h"

namespace webnnm::train {
namespace {

int64_t Concrete(int64_t dim, const LowerOptions& options) {
  if (dim == ir::kBatchDim) return options.batch;
  if (dim == ir::kSequenceDim) return options.sequence;
  return dim;
}

void LowerType(ir::TensorType& type, const LowerOptions& options) {
  for (int64_t& d : type.shape) d = Concrete(d, options);
}

// The attributes that hold sizes the DAG keeps symbolic
// (reshape/expand `newShape`, and slice `sizes`, whose batch and sequence
// entries keep those dimensions whole).
void LowerAttrs(ir::Attrs& attrs, const LowerOptions& options) {
  for (const char* name : {"newShape", "sizes"}) {
    if (!attrs.Has(name)) continue;
    std::vector<int64_t> shape = attrs.GetInts(name, {});
    for (int64_t& d : shape) d = Concrete(d, options);
    attrs.Set(name, shape);
  }
  if (attrs.Has("steps")) {
    attrs.Set("steps", Concrete(attrs.GetInt("steps", 1), options));
  }
}

absl::Status PromoteFloat16Parameters(ir::Graph& graph,
                                      const ir::Limits& limits) {
  ir::GraphRewriter rewriter(graph, limits);
  ir::GraphOps ops(rewriter, "float32 master parameters");
  const int count = graph.num_nodes();
  for (ir::NodeId id = 0; id < count; ++id) {
    if (graph.node(id).dead ||
        graph.node(id).kind != ir::NodeKind::kParameter) {
      continue;
    }
    const ir::ValueId v = graph.node(id).outputs[0];
    if (graph.value(v).type.dtype != ir::DType::kFloat16) continue;
    graph.value(v).type.dtype = ir::DType::kFloat32;
    ASSIGN_OR_RETURN(ir::ValueId half, ops.Cast(v, ir::DType::kFloat16));
    graph.ReplaceUses(v, half);
    graph.node(graph.value(half).producer).operands[0] = v;
  }
  return absl::OkStatus();
}

// Adds the step mask input and unrolls every lstm and gru over the
// sequence under it (lower.h).
absl::Status MaskSteps(const dag::Dag& dag, ir::Graph& graph,
                       const LowerOptions& options, const ir::Limits& limits) {
  ir::GraphRewriter rw(graph, limits);
  ir::GraphOps ops(rw, "step mask");
  const ir::ValueId mask = ops.Input(
      kStepMaskInput, ir::TensorType{.dtype = ir::DType::kFloat32,
                                     .shape = {options.sequence,
                                               options.batch, 1}});
  ASSIGN_OR_RETURN(std::vector<ir::NodeId> order, graph.TopologicalOrder());
  int masked = 0;
  for (ir::NodeId id : order) {
    const ir::Node& node = graph.node(id);
    if (node.dead || node.kind != ir::NodeKind::kOp) continue;
    if (node.op->kind != ir::OpKind::kLstm &&
        node.op->kind != ir::OpKind::kGru) {
      continue;
    }
    // Over the sequence: the DAG's (symbolic) type says so, not a length
    // that another axis may share. Node and value ids are the DAG's.
    if (node.operands[0] >= dag.graph.num_values() ||
        dag.graph.value(node.operands[0]).type.shape.empty() ||
        dag.graph.value(node.operands[0]).type.shape[0] != ir::kSequenceDim) {
      continue;
    }
    rw.SetOrigin(node.range, node.layer);
    RETURN_IF_ERROR(ops::UnrollMasked(rw, id, mask));
    ++masked;
  }
  // Without one, the padding is harmless only where every step goes its
  // own way to a sequenced output, which masks it in the loss.
  if (masked == 0 && !BucketsKeepTheModel(dag)) {
    return absl::InvalidArgumentError(
        "ragged sequences (per-sample lengths) are masked in the lstm and "
        "gru layers that run over them, or step by step up to a sequenced "
        "output, and this model does neither");
  }
  rw.ApplyReplacements();
  return absl::OkStatus();
}

}  // namespace

void CullUnused(ir::Graph& graph) {
  std::vector<bool> needed(graph.num_nodes(), false);
  std::vector<ir::NodeId> stack;
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    if (!node.dead && node.kind == ir::NodeKind::kOutput) {
      needed[id] = true;
      stack.push_back(id);
    }
  }
  while (!stack.empty()) {
    ir::NodeId id = stack.back();
    stack.pop_back();
    for (ir::ValueId v : graph.node(id).operands) {
      if (v == ir::kNoValue) continue;
      ir::NodeId producer = graph.value(v).producer;
      if (producer >= 0 && !needed[producer]) {
        needed[producer] = true;
        stack.push_back(producer);
      }
    }
  }
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    ir::Node& node = graph.node(id);
    // Inputs stay: the caller feeds them whether or not they are used.
    if (!needed[id] && node.kind != ir::NodeKind::kInput) node.dead = true;
  }
  graph.Compact();
}

absl::StatusOr<ir::Graph> Lower(const dag::Dag& dag,
                                const LowerOptions& options,
                                const ir::Limits& limits) {
  if (options.batch < 1 || options.sequence < 1) {
    return absl::InvalidArgumentError(
        StrCat("batch size ", options.batch, " and sequence length ",
               options.sequence, " must be positive"));
  }
  ir::Graph graph = dag.graph;
  if (!options.training) {
    for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
      const ir::Node& node = graph.node(id);
      if (node.dead || node.inference_alias == ir::kNoValue) continue;
      graph.ReplaceUses(node.outputs[0], node.inference_alias);
    }
  }
  ASSIGN_OR_RETURN(std::vector<ir::NodeId> order, graph.TopologicalOrder());
  for (ir::NodeId id : order) {
    ir::Node& node = graph.node(id);
    switch (node.kind) {
      case ir::NodeKind::kInput:
      case ir::NodeKind::kParameter:
      case ir::NodeKind::kConstant:
        LowerType(graph.value(node.outputs[0]).type, options);
        break;
      case ir::NodeKind::kOutput:
        graph.value(node.outputs[0]).type = graph.value(node.operands[0]).type;
        break;
      case ir::NodeKind::kOp: {
        LowerAttrs(node.attrs, options);
        std::vector<const ir::TensorType*> types;
        for (ir::ValueId v : node.operands) {
          types.push_back(v == ir::kNoValue ? nullptr : &graph.value(v).type);
        }
        absl::StatusOr<std::vector<ir::TensorType>> results =
            ir::InferOp(*node.op, types, node.attrs, limits);
        if (!results.ok()) {
          return absl::InvalidArgumentError(
              StrCat(node.op->name, " with batch size ", options.batch, ": ",
                     results.status().message()));
        }
        if (results->size() != node.outputs.size()) {
          return absl::InternalError(
              StrCat(node.op->name, " changed its number of results"));
        }
        for (size_t i = 0; i < results->size(); ++i) {
          ir::TensorType& type = graph.value(node.outputs[i]).type;
          std::vector<std::string> names = type.names;
          type = std::move((*results)[i]);
          if (type.names.size() != type.shape.size()) type.names = names;
          ir::FillDefaultNames(type);
        }
        break;
      }
    }
  }
  if (options.step_mask) {
    RETURN_IF_ERROR(MaskSteps(dag, graph, options, limits));
  }
  if (options.float32_parameters) {
    RETURN_IF_ERROR(PromoteFloat16Parameters(graph, limits));
  }
  if (!options.training) CullUnused(graph);
  return graph;
}

}  // namespace webnnm::train
