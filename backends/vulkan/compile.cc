// VulkanExecutable::Compile: the recurrent operations unrolled, the
// values' lifetimes and ranges (own ranges, one arena, scratch), the
// staging places of inputs and outputs, each operation's dispatches and
// pipelines, then the device buffers, carries, command buffer and
// constants, in the stages of a Compiler.
#include <algorithm>

#include "backends/common/memory_plan.h"
#include "backends/vulkan/executable.h"
#include "backends/vulkan/plan_node.h"
#include "engine/base/checked_math.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/infer.h"
#include "engine/ir/rewriter.h"

namespace webnnm::backends::vulkan {
namespace {

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

absl::StatusOr<uint64_t> ByteSize(const ir::TensorType& type,
                                  const ir::Limits& limits) {
  for (int64_t d : type.shape) {
    if (d < 1) {
      return absl::InvalidArgumentError(
          StrCat("tensor ", type.ToString(), " is not concrete"));
    }
  }
  std::optional<int64_t> count = CheckedProduct(type.shape);
  std::optional<int64_t> bytes =
      count ? CheckedMul(*count, ir::RuntimeElementSize(type.dtype))
            : std::nullopt;
  if (!bytes || *bytes > limits.max_tensor_bytes) {
    return absl::InvalidArgumentError(
        StrCat("tensor ", type.ToString(), " exceeds the limit of ",
               limits.max_tensor_bytes, " bytes"));
  }
  return static_cast<uint64_t>(*bytes);
}

// The recurrent operations (gru, gruCell, lstm, lstmCell) have no shader:
// they run as their unrolled steps (OpDef::unroll; engine/ops/rnn_unroll.h),
// which compute what the CPU kernel computes. Returns whether it unrolled.
absl::StatusOr<bool> UnrollRecurrent(ir::Graph& graph,
                                     const ir::Limits& limits) {
  ir::GraphRewriter rewriter(graph, limits);
  bool changed = false;
  const int nodes = graph.num_nodes();
  for (ir::NodeId id = 0; id < nodes; ++id) {
    const ir::Node& node = graph.node(id);
    if (node.dead || node.kind != ir::NodeKind::kOp ||
        node.op->unroll == nullptr || FindPlanner(node.op->kind) != nullptr) {
      continue;
    }
    const ir::OpDef* op = node.op;
    rewriter.SetOrigin(node.range, node.layer);
    absl::Status status = op->unroll(rewriter, id);
    if (!status.ok()) {
      return absl::Status(
          status.code(),
          StrCat(op->name, ": cannot unroll: ", status.message()));
    }
    changed = true;
  }
  if (changed) rewriter.ApplyReplacements();
  return changed;
}

}  // namespace

class VulkanExecutable::Compiler {
 public:
  Compiler(const ir::Graph& graph, const CompileOptions& options,
           VulkanExecutable& exe, Device& device)
      : graph_(graph),
        options_(options),
        exe_(exe),
        device_(device),
        limits_(device.limits()),
        align_(
            std::max<uint64_t>(64, limits_.minStorageBufferOffsetAlignment)) {}

  absl::Status Lifetimes();
  absl::Status Ranges();
  absl::Status Dispatches();
  absl::Status Create();

 private:
  // An input's or output's place in the staging buffer.
  void Stage(const ir::Node& node);
  // The dispatches of one operation, appended.
  absl::Status PlanOp(const ir::Node& node);

  const ir::Graph& graph_;
  const CompileOptions& options_;
  VulkanExecutable& exe_;
  Device& device_;
  const VkPhysicalDeviceLimits& limits_;
  const uint64_t align_;
  std::vector<ir::NodeId> order_;
  // Lifetimes, in steps (operation nodes in order).
  std::vector<int> step_of_;
  std::vector<bool> read_by_output_;
  std::vector<int> last_read_;
  std::vector<Range> range_;
  std::vector<std::pair<ir::ValueId, const ir::Node*>> constants_;
  uint64_t scratch_base_ = 0, scratch_bytes_ = 0;
  uint64_t staged_ = 0;
  std::vector<Dispatch> dispatches_;
  std::vector<const Pipeline*> pipelines_;
  std::vector<std::string> missing_;  // operations without a kernel
  uint32_t streams_ = 0;              // randomUniform's, numbered
};

absl::Status VulkanExecutable::Compiler::Lifetimes() {
  ASSIGN_OR_RETURN(order_, graph_.TopologicalOrder());
  step_of_.assign(graph_.num_nodes(), -1);
  int steps = 0;
  for (ir::NodeId id : order_) {
    if (graph_.node(id).kind == ir::NodeKind::kOp) step_of_[id] = steps++;
  }
  read_by_output_.assign(graph_.num_values(), false);
  last_read_.assign(graph_.num_values(), -1);
  for (ir::NodeId id : order_) {
    const ir::Node& node = graph_.node(id);
    for (ir::ValueId v : node.operands) {
      if (v == ir::kNoValue) continue;
      if (node.kind == ir::NodeKind::kOutput) read_by_output_[v] = true;
      if (step_of_[id] >= 0) {
        last_read_[v] = std::max(last_read_[v], step_of_[id]);
      }
    }
  }
  return absl::OkStatus();
}

// Ranges: own ones first (inputs, parameters, constants, what outputs
// read, the random state), then the arena, then scratch.
absl::Status VulkanExecutable::Compiler::Ranges() {
  range_.assign(graph_.num_values(), Range());
  std::vector<ir::ValueId> arena_values;
  std::vector<Lifetime> lifetimes;
  uint64_t own = 0;
  for (ir::NodeId id : order_) {
    const ir::Node& node = graph_.node(id);
    if (node.kind == ir::NodeKind::kOutput) continue;
    for (ir::ValueId v : node.outputs) {
      ASSIGN_OR_RETURN(uint64_t bytes,
                       ByteSize(graph_.value(v).type, options_.limits));
      range_[v].bytes = bytes;
      if (node.kind == ir::NodeKind::kOp && !read_by_output_[v]) {
        arena_values.push_back(v);
        lifetimes.push_back({static_cast<size_t>(bytes), step_of_[id],
                             std::max(step_of_[id], last_read_[v])});
        continue;
      }
      range_[v].offset = own;
      own = AlignUp(own + bytes, align_);
      if (node.kind == ir::NodeKind::kConstant) {
        if (!node.data || node.data->bytes.size() != bytes) {
          return absl::InvalidArgumentError(
              StrCat("constant '", node.name, "' has the wrong data size"));
        }
        constants_.emplace_back(v, &node);
      }
    }
  }
  // randomUniform reads the run's key and step from a small range the
  // host writes before each run (with the inputs).
  for (ir::NodeId id : order_) {
    const ir::Node& node = graph_.node(id);
    if (node.kind == ir::NodeKind::kOp &&
        node.op->kind == ir::OpKind::kRandomUniform &&
        exe_.random_range_.bytes == 0) {
      exe_.random_range_ = {own, 16};
      own = AlignUp(own + 16, align_);
    }
  }
  ArenaPlan plan = PlanArena(lifetimes, align_);
  for (size_t i = 0; i < arena_values.size(); ++i) {
    range_[arena_values[i]].offset = own + plan.offsets[i];
  }
  exe_.arena_bytes_ = plan.size;
  // Scratch for widened operations (plan_node.h), after everything else.
  scratch_base_ = AlignUp(own + plan.size, align_);
  return absl::OkStatus();
}

void VulkanExecutable::Compiler::Stage(const ir::Node& node) {
  const bool input = node.kind != ir::NodeKind::kOutput;
  const ir::ValueId v = input ? node.outputs[0] : node.operands[0];
  const ir::TensorType& type = graph_.value(v).type;
  (input ? exe_.inputs_ : exe_.outputs_)
      .push_back({node.name, type.dtype, type.shape,
                  static_cast<size_t>(range_[v].bytes)});
  (input ? exe_.input_ranges_ : exe_.output_ranges_).push_back(range_[v]);
  (input ? exe_.input_staging_ : exe_.output_staging_).push_back(staged_);
  staged_ = AlignUp(staged_ + range_[v].bytes, 64);
}

absl::Status VulkanExecutable::Compiler::PlanOp(const ir::Node& node) {
  auto fail = [&](const absl::Status& s) {
    return absl::Status(s.code(), StrCat(node.op->name, ": ", s.message()));
  };
  // The shaders trust the types: check them with the rule again.
  if (absl::Status s = ir::CheckNodeTypes(graph_, node, options_.limits);
      !s.ok()) {
    return fail(s);
  }
  std::string why;
  if (!CanRun(graph_, node, why)) {
    // Every missing one is named at once, after all are planned.
    if (std::find(missing_.begin(), missing_.end(), why) == missing_.end()) {
      missing_.push_back(std::move(why));
    }
    return absl::OkStatus();
  }
  OpIO io{node,
          {},
          {},
          {},
          {},
          limits_.maxComputeWorkGroupCount[0],
          limits_.maxStorageBufferRange,
          align_};
  io.random_state = exe_.random_range_;
  io.subgroups = device_.subgroups();
  io.float16_storage = device_.float16_storage();
  if (node.op->kind == ir::OpKind::kRandomUniform) {
    io.random_stream = streams_++;  // as the CPU backend numbers them
  }
  absl::StatusOr<NodePlan> planned =
      PlanNode(graph_, node, range_, scratch_base_, io);
  if (!planned.ok()) return fail(planned.status());
  scratch_bytes_ = std::max(scratch_bytes_, planned->scratch_bytes);
  for (Dispatch& d : planned->dispatches) {
    // Each binding must fit the device's limit; planners that can split a
    // large tensor over several dispatches have done so.
    for (const Range& r : d.bindings) {
      if (r.bytes > limits_.maxStorageBufferRange) {
        return fail(absl::ResourceExhaustedError(
            StrCat("a tensor of ", r.bytes,
                   " bytes exceeds the device's maxStorageBufferRange of ",
                   limits_.maxStorageBufferRange,
                   " bytes, and this operation cannot split it yet")));
      }
    }
    // The executable pads a short block with zeros; a longer one is a
    // planner out of step with its shader.
    if (d.push.size() * 4 > d.shader->push_bytes) {
      return fail(absl::InternalError(StrCat(
          d.push.size() * 4, " bytes of push constants for ", d.shader->name,
          ".comp, whose block has ", d.shader->push_bytes)));
    }
    absl::StatusOr<const Pipeline*> pipeline =
        device_.GetPipeline(*d.shader, d.spec);
    if (!pipeline.ok()) return fail(pipeline.status());
    pipelines_.push_back(*pipeline);
    exe_.names_.push_back(
        StrCat(node.op->name, ": vulkan ", d.shader->name, ".comp"));
    dispatches_.push_back(std::move(d));
  }
  return absl::OkStatus();
}

// Inputs and outputs get their places in the staging buffer; operations
// their dispatches. Operations without a kernel are all named at once.
absl::Status VulkanExecutable::Compiler::Dispatches() {
  for (ir::NodeId id : order_) {
    const ir::Node& node = graph_.node(id);
    if (node.kind == ir::NodeKind::kInput ||
        node.kind == ir::NodeKind::kParameter ||
        node.kind == ir::NodeKind::kOutput) {
      Stage(node);
    } else if (node.kind == ir::NodeKind::kOp) {
      RETURN_IF_ERROR(PlanOp(node));
    }
  }
  if (!missing_.empty()) {
    std::string list;
    for (const std::string& m : missing_) {
      list = list.empty() ? m : StrCat(list, ", ", m);
    }
    return absl::UnimplementedError(
        StrCat("the vulkan backend has no kernel for ", list));
  }
  if (exe_.random_range_.bytes > 0) {
    exe_.random_staging_ = staged_;
    staged_ = AlignUp(staged_ + 16, 64);
  }
  return absl::OkStatus();
}

// The device memory and staging buffers, the carries, the command buffer
// and the constants' values.
absl::Status VulkanExecutable::Compiler::Create() {
  ASSIGN_OR_RETURN(
      exe_.memory_,
      device_.CreateBuffer(AlignUp(scratch_base_ + scratch_bytes_, 64), false));
  ASSIGN_OR_RETURN(exe_.staging_, device_.CreateBuffer(staged_, true));
  RETURN_IF_ERROR(exe_.SetCarries(graph_, options_.carries));
  RETURN_IF_ERROR(exe_.Record(dispatches_, pipelines_));
  std::vector<std::pair<Range, const void*>> uploads;
  for (const auto& [v, node] : constants_) {
    uploads.emplace_back(range_[v], node->data->bytes.data());
  }
  return exe_.Upload(uploads);
}

absl::StatusOr<std::unique_ptr<VulkanExecutable>> VulkanExecutable::Compile(
    std::shared_ptr<Device> device, const ir::Graph& original,
    const CompileOptions& options) {
  if (!options.shared_inputs.empty()) {
    return absl::UnimplementedError(
        "the vulkan backend reads no inputs from the caller's memory "
        "(CompileOptions::shared_inputs)");
  }
  ir::Graph copy;
  const ir::Graph* source = &original;
  for (const ir::Node& node : original.nodes()) {
    if (!node.dead && node.kind == ir::NodeKind::kOp &&
        node.op->unroll != nullptr && FindPlanner(node.op->kind) == nullptr) {
      copy = original;
      ASSIGN_OR_RETURN(bool unrolled, UnrollRecurrent(copy, options.limits));
      if (unrolled) source = &copy;
      break;
    }
  }
  std::unique_ptr<VulkanExecutable> exe(new VulkanExecutable(device));
  Compiler compiler(*source, options, *exe, *device);
  RETURN_IF_ERROR(compiler.Lifetimes());
  RETURN_IF_ERROR(compiler.Ranges());
  RETURN_IF_ERROR(compiler.Dispatches());
  RETURN_IF_ERROR(compiler.Create());
  return exe;
}

}  // namespace webnnm::backends::vulkan
