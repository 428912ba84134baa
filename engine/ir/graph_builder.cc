#include "engine/ir/graph_builder.h"

#include "engine/base/checked_math.h"
#include "engine/base/strings.h"

namespace webnnm::ir {

ValueId GraphBuilder::Input(const std::string& name, TensorType type) {
  Node node;
  node.kind = NodeKind::kInput;
  node.name = name;
  NodeId id = graph_.AddNode(std::move(node), 1);
  Value& value = graph_.value(graph_.output(id));
  value.type = std::move(type);
  value.typed = true;
  return graph_.output(id);
}

absl::StatusOr<ValueId> GraphBuilder::Constant(
    const std::string& name, TensorType type,
    std::shared_ptr<const ConstantData> data) {
  std::optional<int64_t> count = type.MinElementCount();
  if (!count || data == nullptr ||
      static_cast<int64_t>(data->bytes.size()) !=
          *count * RuntimeElementSize(type.dtype)) {
    return absl::InvalidArgumentError(
        StrCat("constant '", name, "' has ", data ? data->bytes.size() : 0,
               " bytes of data for ", type.ToString()));
  }
  Node node;
  node.kind = NodeKind::kConstant;
  node.name = name;
  node.data = std::move(data);
  NodeId id = graph_.AddNode(std::move(node), 1);
  Value& value = graph_.value(graph_.output(id));
  value.type = std::move(type);
  value.typed = true;
  return graph_.output(id);
}

absl::StatusOr<std::vector<ValueId>> GraphBuilder::Op(
    OpKind kind, std::vector<ValueId> operands, Attrs attrs) {
  return rewriter_.AddMulti(kind, std::move(operands), std::move(attrs));
}

void GraphBuilder::Output(const std::string& name, ValueId value) {
  Node node;
  node.kind = NodeKind::kOutput;
  node.name = name;
  node.operands = {value};
  NodeId id = graph_.AddNode(std::move(node), 1);
  Value& out = graph_.value(graph_.output(id));
  out.type = graph_.value(value).type;
  out.typed = true;
}

}  // namespace webnnm::ir
