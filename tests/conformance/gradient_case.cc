#include "tests/conformance/gradient_case.h"

#include <map>
#include <string>
#include <vector>

#include "engine/autodiff/autodiff.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::conformance {

namespace {

Tolerance ReadTolerance(const nlohmann::json& t) {
  Tolerance tolerance;
  tolerance.metric = t.value("metric", std::string("ATOL")) == "ULP"
                         ? Tolerance::Metric::kUlp
                         : Tolerance::Metric::kAtol;
  tolerance.value = t.value("value", 0.0);
  tolerance.rtol = t.value("rtol", 0.0);
  return tolerance;
}

}  // namespace

absl::Status AddGradients(Case& c) {
  if (c.gradients == nullptr) return absl::OkStatus();
  const nlohmann::json& spec = *c.gradients;
  if (!spec.contains("seed") || !spec.contains("expected")) {
    return absl::InvalidArgumentError(
        "\"gradients\" needs \"seed\" and \"expected\"");
  }
  ir::Graph& graph = c.graph;
  std::map<std::string, ir::ValueId> inputs, outputs;
  for (const ir::Node& node : graph.nodes()) {
    if (node.dead) continue;
    if (node.kind == ir::NodeKind::kInput ||
        node.kind == ir::NodeKind::kConstant) {
      if (!node.name.empty()) inputs[node.name] = node.outputs[0];
    } else if (node.kind == ir::NodeKind::kOutput) {
      outputs[node.name] = node.operands[0];
    }
  }

  std::vector<autodiff::Seed> seeds;
  for (const auto& [name, data] : spec["seed"].items()) {
    auto it = outputs.find(name);
    if (it == outputs.end()) {
      return absl::InvalidArgumentError(
          StrCat("gradient seed for '", name, "', which is not an output"));
    }
    const ir::TensorType type = graph.value(it->second).type;
    int64_t count = type.MinElementCount().value_or(0);
    if (!data.is_array() || static_cast<int64_t>(data.size()) != count) {
      return absl::InvalidArgumentError(
          StrCat("the seed of '", name, "' needs ", count, " values"));
    }
    ASSIGN_OR_RETURN(std::vector<std::byte> bytes,
                     EncodeData(data, type.dtype, count, false));
    std::string seed_name = "seed:" + name;
    ir::Node node;
    node.kind = ir::NodeKind::kInput;
    node.name = seed_name;
    ir::NodeId id = graph.AddNode(std::move(node), 1);
    ir::Value& value = graph.value(graph.output(id));
    value.type = type;
    value.typed = true;
    seeds.push_back({it->second, graph.output(id)});
    c.inputs.push_back({seed_name, type, std::move(bytes)});
  }

  std::vector<std::string> names;
  std::vector<ir::ValueId> wrt;
  for (const auto& [name, data] : spec["expected"].items()) {
    auto it = inputs.find(name);
    if (it == inputs.end()) {
      return absl::InvalidArgumentError(
          StrCat("expected gradient for '", name, "', which is not an input"));
    }
    names.push_back(name);
    wrt.push_back(it->second);
  }
  ASSIGN_OR_RETURN(std::vector<ir::ValueId> grads,
                   autodiff::Differentiate(graph, ir::Limits{}, seeds, wrt));

  Tolerance tolerance = spec.contains("tolerance")
                            ? ReadTolerance(spec["tolerance"])
                            : c.tolerance;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string output_name = "gradient:" + names[i];
    ir::Node node;
    node.kind = ir::NodeKind::kOutput;
    node.name = output_name;
    node.operands = {grads[i]};
    ir::NodeId id = graph.AddNode(std::move(node), 1);
    ir::Value& value = graph.value(graph.output(id));
    value.type = graph.value(grads[i]).type;
    value.typed = true;
    Expected expected;
    expected.name = output_name;
    expected.type = value.type;
    expected.data = spec["expected"][names[i]];
    expected.tolerance = tolerance;
    c.outputs.push_back(std::move(expected));
  }
  // The gradient graph may use operations the forward one does not.
  // Its compute type is that of its first operand in the type group, as
  // BuildCase records it.
  for (const ir::Node& n : graph.nodes()) {
    if (n.dead || n.kind != ir::NodeKind::kOp) continue;
    ir::DType dtype = ir::DType::kFloat32;
    for (size_t i = 0; i < n.operands.size(); ++i) {
      const ir::OperandSpec& spec = n.op->operands[n.op->variadic() ? 0 : i];
      if (n.operands[i] != ir::kNoValue && spec.in_type_group) {
        dtype = graph.value(n.operands[i]).type.dtype;
        break;
      }
    }
    c.uses.insert({n.op->kind, dtype});
  }
  return absl::OkStatus();
}

}  // namespace webnnm::conformance
