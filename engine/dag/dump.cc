#include "engine/dag/dump.h"

#include <vector>

#include "absl/strings/str_join.h"
#include "engine/base/strings.h"
#include "engine/ir/constant_data.h"

namespace webnnm::dag {
namespace {

std::string ConstantText(const ir::Node& node, const ir::TensorType& type) {
  if (!node.data) return "?";
  std::optional<int64_t> count = type.MinElementCount();
  int64_t n = count.value_or(0);
  std::vector<std::string> values;
  for (int64_t i = 0; i < n && i < 8; ++i) {
    values.push_back(StrCat(ir::ReadNumber(*node.data, type.dtype, i)));
  }
  if (n > 8) values.push_back("...");
  return n == 1 && type.rank() == 0
             ? values[0]
             : StrCat("[", absl::StrJoin(values, ", "), "]");
}

}  // namespace

std::string DumpGraph(const ir::Graph& graph) {
  absl::StatusOr<std::vector<ir::NodeId>> order = graph.TopologicalOrder();
  if (!order.ok()) return StrCat("<", order.status().message(), ">\n");
  std::string out;
  for (ir::NodeId id : *order) {
    const ir::Node& node = graph.node(id);
    std::vector<std::string> results;
    for (ir::ValueId v : node.outputs) results.push_back(StrCat("%", v));
    std::vector<std::string> operands;
    for (ir::ValueId v : node.operands) {
      operands.push_back(v == ir::kNoValue ? "_" : StrCat("%", v));
    }
    std::string what;
    switch (node.kind) {
      case ir::NodeKind::kInput:
        what = StrCat("input ", node.name);
        break;
      case ir::NodeKind::kOutput:
        what = StrCat("output ", node.name, "(", absl::StrJoin(operands, ", "),
                      ")");
        break;
      case ir::NodeKind::kParameter:
        what = StrCat("parameter ", node.name, " ",
                      ir::InitName(node.parameter.init),
                      node.parameter.trainable ? "" : " (state)");
        break;
      case ir::NodeKind::kConstant:
        what = StrCat(
            node.name.empty() ? "literal" : StrCat("constant ", node.name), " ",
            ConstantText(node, graph.value(node.outputs[0]).type));
        break;
      case ir::NodeKind::kOp: {
        std::vector<std::string> attrs;
        for (const auto& [name, value] : node.attrs.values()) {
          attrs.push_back(StrCat(name, "=", ir::AttrToString(value)));
        }
        what =
            StrCat(node.op->name, "(", absl::StrJoin(operands, ", "),
                   attrs.empty() ? "" : "; ", absl::StrJoin(attrs, ", "), ")");
        if (node.inference_alias != ir::kNoValue) {
          StrAppend(&what, " [inference: %", node.inference_alias, "]");
        }
        break;
      }
    }
    std::vector<std::string> types;
    for (ir::ValueId v : node.outputs) {
      types.push_back(graph.value(v).type.ToString());
    }
    StrAppend(&out, absl::StrJoin(results, ", "), " = ", what, " -> ",
              absl::StrJoin(types, ", "), "\n");
  }
  return out;
}

}  // namespace webnnm::dag
