#include "backends/backend.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/vulkan/vulkan_backend.h"
#include "engine/base/strings.h"

namespace webnnm::backends {

int Executable::FindInput(std::string_view name) const {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Executable::FindOutput(std::string_view name) const {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<std::vector<std::pair<int, int>>> Executable::ResolveCarries(
    const ir::Graph& graph, const std::vector<CarrySpec>& specs) const {
  std::vector<std::pair<int, int>> pairs;
  std::vector<bool> out_used(outputs_.size()), in_used(inputs_.size());
  for (const CarrySpec& c : specs) {
    const std::string what =
        StrCat("carry '", c.output, "' -> '", c.input, "'");
    const int out = FindOutput(c.output), in = FindInput(c.input);
    if (out < 0 || in < 0) {
      return absl::InvalidArgumentError(StrCat(what, ": the graph has no ",
                                               out < 0 ? "output" : "input",
                                               " of that name"));
    }
    if (out_used[out] || in_used[in]) {
      return absl::InvalidArgumentError(
          StrCat(what, ": the ", out_used[out] ? "output" : "input",
                 " is carried twice"));
    }
    const TensorSpec &o = outputs_[out], &i = inputs_[in];
    if (o.dtype != i.dtype || o.shape != i.shape) {
      return absl::InvalidArgumentError(
          StrCat(what, ": the output's type differs from the input's"));
    }
    // What the output node reads, and what produces it.
    for (const ir::Node& node : graph.nodes()) {
      if (node.dead || node.kind != ir::NodeKind::kOutput ||
          node.name != c.output) {
        continue;
      }
      const ir::Node& producer =
          graph.node(graph.value(node.operands[0]).producer);
      const bool itself = (producer.kind == ir::NodeKind::kInput ||
                           producer.kind == ir::NodeKind::kParameter) &&
                          producer.name == c.input;
      if (producer.kind != ir::NodeKind::kOp && !itself) {
        return absl::InvalidArgumentError(
            StrCat(what, ": the output is not computed by the graph"));
      }
    }
    out_used[out] = in_used[in] = true;
    pairs.emplace_back(out, in);
  }
  return pairs;
}

absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(std::string_view name) {
  if (name == "cpu") return cpu::CreateCpuBackend();
  if (name == "vulkan") return vulkan::CreateVulkanBackend();
  return absl::InvalidArgumentError(
      StrCat("unknown backend '", name, "'; available: cpu, vulkan"));
}

}  // namespace webnnm::backends
