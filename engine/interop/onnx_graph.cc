#include "engine/interop/onnx_graph.h"

#include <set>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/interop/onnx_ops.h"
#include "engine/interop/onnx_writer.h"

namespace webnnm::interop {
namespace {

absl::Status Declare(onnx::ValueInfoProto& info, const std::string& name,
                     const ir::TensorType& type) {
  ASSIGN_OR_RETURN(int elem, OnnxType(type.dtype));
  info.set_name(name);
  onnx::TypeProto_Tensor& t = *info.mutable_type()->mutable_tensor_type();
  t.set_elem_type(elem);
  onnx::TensorShapeProto& s = *t.mutable_shape();
  for (int64_t d : type.shape) s.add_dim()->set_dim_value(d);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ExportGraphOnnx(const ir::Graph& graph,
                                            const std::string& name) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("webnnm");
  onnx::OperatorSetIdProto& opset = *model.add_opset_import();
  opset.set_domain("");
  opset.set_version(17);
  onnx::GraphProto& proto = *model.mutable_graph();
  proto.set_name(name);
  OnnxWriter w(graph, proto);
  ASSIGN_OR_RETURN(std::vector<ir::NodeId> order, graph.TopologicalOrder());
  std::set<std::string> inputs;
  for (ir::NodeId id : order) {
    const ir::Node& node = graph.node(id);
    if (node.kind == ir::NodeKind::kInput) inputs.insert(node.name);
  }
  absl::Status status = absl::OkStatus();
  for (ir::NodeId id : order) {
    const ir::Node& node = graph.node(id);
    switch (node.kind) {
      case ir::NodeKind::kInput:
        w.Bind(node.outputs[0], node.name);
        status = Declare(*proto.add_input(), node.name,
                         graph.value(node.outputs[0]).type);
        break;
      case ir::NodeKind::kConstant: {
        const ir::TensorType& type = graph.value(node.outputs[0]).type;
        status = w.Raw(node.data ? node.data->bytes : std::vector<uint8_t>(),
                       type.shape, type.dtype, w.Name(node.outputs[0]))
                     .status();
        break;
      }
      case ir::NodeKind::kParameter:
        status = absl::FailedPreconditionError(
            "a graph with parameters exports through its model");
        break;
      case ir::NodeKind::kOp: {
        const OnnxMapping* m = FindOnnxMapping(node.op->kind);
        status = m == nullptr ? absl::FailedPreconditionError(
                                    StrCat(node.op->name, " has no ONNX form"))
                              : m->emit(w, node);
        if (!status.ok() && m != nullptr) {
          status = absl::FailedPreconditionError(
              StrCat(node.op->name, ": ", status.message()));
        }
        break;
      }
      case ir::NodeKind::kOutput: {
        const std::string out =
            inputs.count(node.name) ? StrCat(node.name, "_output") : node.name;
        w.Add("Identity", {w.Name(node.operands[0])}, {out});
        status = Declare(*proto.add_output(), out,
                         graph.value(node.operands[0]).type);
        break;
      }
    }
    if (!status.ok()) {
      return absl::FailedPreconditionError(status.message());
    }
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    return absl::InternalError("the ONNX model did not serialize");
  }
  return bytes;
}

}  // namespace webnnm::interop
