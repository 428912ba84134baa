#include "backends/cpu/executable.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backends/cpu/elementwise_groups.h"
#include "backends/cpu/fusion.h"
#include "backends/cpu/kernels/fused_elementwise.h"
#include "backends/cpu/memory_plan.h"
#include "engine/base/checked_math.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/infer.h"

namespace webnnm::backends::cpu {
namespace {

int64_t NanosecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now() - start)
      .count();
}

constexpr size_t kAlignment = 64;

absl::StatusOr<size_t> ByteSize(const ir::TensorType& type,
                                const ir::Limits& limits) {
  std::optional<int64_t> count = CheckedProduct(type.shape);
  std::optional<int64_t> bytes =
      count ? CheckedMul(*count, ir::RuntimeElementSize(type.dtype))
            : std::nullopt;
  for (int64_t d : type.shape) {
    if (d < 1) {
      return absl::InvalidArgumentError(
          StrCat("tensor ", type.ToString(), " is not concrete"));
    }
  }
  if (!bytes || *bytes > limits.max_tensor_bytes) {
    return absl::InvalidArgumentError(
        StrCat("tensor ", type.ToString(), " exceeds the limit of ",
               limits.max_tensor_bytes, " bytes"));
  }
  return static_cast<size_t>(*bytes);
}

}  // namespace

CpuExecutable::Buffer CpuExecutable::Allocate(size_t bytes) {
  size_t size =
      (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kAlignment, size));
  std::memset(p, 0, size);
  Buffer buffer;
  buffer.data = {p, [](std::byte* q) { std::free(q); }};
  buffer.size = bytes;
  return buffer;
}

absl::StatusOr<std::unique_ptr<CpuExecutable>> CpuExecutable::Compile(
    const ir::Graph& graph, const CompileOptions& options) {
  std::unique_ptr<CpuExecutable> exe(new CpuExecutable(options.threads));
  if (KernelProfile::Enabled())
    exe->profile_ = std::make_unique<KernelProfile>();
  exe->context_.set_use_dnnl(!options.reference_kernels);
  exe->context_.set_dnnl_minimum_elements(options.library_minimum_elements);
  absl::StatusOr<std::vector<ir::NodeId>> order = graph.TopologicalOrder();
  if (!order.ok()) return order.status();

  // Steps are the operation nodes in order; the step of each value's
  // producer and of its last reader decide its lifetime.
  std::vector<int> step_of(graph.num_nodes(), -1);
  int steps = 0;
  for (ir::NodeId id : *order) {
    if (graph.node(id).kind == ir::NodeKind::kOp) step_of[id] = steps++;
  }
  std::vector<bool> read_by_output(graph.num_values(), false);
  std::vector<int> last_read(graph.num_values(), -1);
  for (ir::NodeId id : *order) {
    const ir::Node& node = graph.node(id);
    for (ir::ValueId v : node.operands) {
      if (v == ir::kNoValue) continue;
      if (node.kind == ir::NodeKind::kOutput) read_by_output[v] = true;
      if (step_of[id] >= 0) last_read[v] = std::max(last_read[v], step_of[id]);
    }
  }

  // Fusion chains (fusion.h) run at their anchor's step: what a member
  // produces lives from the anchor's step, what it reads until the last
  // member's step, so that buffers stay apart fused or not.
  std::vector<FusionChain> chains;
  if (options.fusion && !options.reference_kernels) {
    chains = PlanFusion(graph, *order, options.library_minimum_elements);
  }
  std::vector<int> chain_of(graph.num_nodes(), -1);  // anchors and links
  std::vector<int> first_step(graph.num_values(), -1);
  for (size_t c = 0; c < chains.size(); ++c) {
    const int first = step_of[chains[c].anchor];
    const int last = step_of[chains[c].links.back()];
    std::vector<ir::NodeId> members = chains[c].links;
    members.push_back(chains[c].anchor);
    for (ir::NodeId id : members) {
      chain_of[id] = static_cast<int>(c);
      for (ir::ValueId v : graph.node(id).operands) {
        if (v != ir::kNoValue) last_read[v] = std::max(last_read[v], last);
      }
      for (ir::ValueId v : graph.node(id).outputs) first_step[v] = first;
    }
  }

  // Element-wise groups (elementwise_groups.h) run at their last member's
  // step; what a member produces lives from its first member's step, what
  // it reads until the last member's step. Values only members read live in
  // the fused kernel's registers and get no buffer.
  std::vector<ElementwiseGroup> groups;
  if (options.fusion && !options.reference_kernels) {
    std::vector<bool> taken(graph.num_nodes(), false);
    for (ir::NodeId id : *order) taken[id] = chain_of[id] >= 0;
    groups = PlanElementwiseGroups(graph, *order, taken,
                                   options.library_minimum_elements);
  }
  std::vector<int> group_of(graph.num_nodes(), -1);
  for (size_t g = 0; g < groups.size(); ++g) {
    const int first = step_of[groups[g].members.front()];
    const int last = step_of[groups[g].members.back()];
    for (ir::NodeId id : groups[g].members) {
      group_of[id] = static_cast<int>(g);
      for (ir::ValueId v : graph.node(id).operands) {
        if (v != ir::kNoValue) last_read[v] = std::max(last_read[v], last);
      }
      for (ir::ValueId v : graph.node(id).outputs) first_step[v] = first;
    }
  }
  // A member's result that an outside operation or a graph output reads.
  std::vector<bool> stored(graph.num_values(), false);
  for (ir::NodeId id : *order) {
    for (ir::ValueId v : graph.node(id).operands) {
      if (v == ir::kNoValue) continue;
      const int g = group_of[graph.value(v).producer];
      if (g >= 0 && group_of[id] != g) stored[v] = true;
    }
  }

  std::vector<std::byte*> address(graph.num_values(), nullptr);
  std::vector<size_t> sizes(graph.num_values(), 0);
  std::vector<ir::ValueId> arena_values;
  std::vector<Lifetime> lifetimes;
  for (ir::NodeId id : *order) {
    const ir::Node& node = graph.node(id);
    if (node.kind == ir::NodeKind::kOutput) continue;
    for (ir::ValueId v : node.outputs) {
      absl::StatusOr<size_t> bytes =
          ByteSize(graph.value(v).type, options.limits);
      if (!bytes.ok()) return bytes.status();
      sizes[v] = *bytes;
      if (group_of[id] >= 0 && !stored[v]) continue;  // in registers only
      bool own = node.kind != ir::NodeKind::kOp || read_by_output[v];
      if (own) {
        exe->buffers_.push_back(Allocate(*bytes));
        address[v] = exe->buffers_.back().data.get();
        if (node.kind == ir::NodeKind::kConstant) {
          if (!node.data || node.data->bytes.size() != *bytes) {
            return absl::InvalidArgumentError(
                StrCat("constant '", node.name, "' has the wrong data size"));
          }
          std::memcpy(address[v], node.data->bytes.data(), *bytes);
        }
      } else {
        arena_values.push_back(v);
        int first = first_step[v] >= 0 ? first_step[v] : step_of[id];
        lifetimes.push_back({*bytes, first, std::max(first, last_read[v])});
      }
    }
  }
  ArenaPlan plan = PlanArena(lifetimes, kAlignment);
  exe->buffers_.push_back(Allocate(plan.size));
  exe->arena_size_ = plan.size;
  std::byte* arena = exe->buffers_.back().data.get();
  for (size_t i = 0; i < arena_values.size(); ++i) {
    address[arena_values[i]] = arena + plan.offsets[i];
  }

  std::vector<bool> fused(chains.size(), false);  // the anchor took its links
  // Makes the kernel of one operation (with its post-op links when it is
  // a chain's anchor) and appends it.
  auto add_kernel = [&](ir::NodeId id) -> absl::Status {
    const ir::Node& node = graph.node(id);
    KernelFactory factory = FindKernel(node.op->kind);
    if (factory == nullptr) {
      return absl::UnimplementedError(
          StrCat("the cpu backend has no kernel for ", node.op->name));
    }
    const int chain = chain_of[id];
    const bool anchor = chain >= 0 && chains[chain].anchor == id;
    if (chain >= 0 && !anchor && fused[chain]) {
      return absl::OkStatus();  // in the anchor
    }
    KernelIO io{node, {}, {}, {}, {}, exe->context_};
    for (ir::ValueId v : node.operands) {
      io.in_types.push_back(v == ir::kNoValue ? nullptr : &graph.value(v).type);
      io.in.push_back(v == ir::kNoValue ? nullptr : address[v]);
    }
    for (ir::ValueId v : node.outputs) {
      io.out_types.push_back(&graph.value(v).type);
      io.out.push_back(address[v]);
    }
    std::string name = node.op->name;
    absl::StatusOr<std::unique_ptr<Kernel>> kernel;
    if (anchor) {
      KernelIO fused_io = io;
      ir::ValueId value = node.outputs[0];
      for (ir::NodeId l : chains[chain].links) {
        const ir::Node& link = graph.node(l);
        FusedOp op{&link};
        if (link.operands.size() == 2) {
          ir::ValueId other = link.operands[link.operands[0] == value];
          op.other_type = &graph.value(other).type;
          op.other = address[other];
        }
        fused_io.fused.push_back(op);
        name = StrCat(name, "+", link.op->name);
        value = link.outputs[0];
      }
      fused_io.out_types[0] = &graph.value(value).type;
      fused_io.out[0] = address[value];
      kernel = factory(fused_io);
      fused[chain] = kernel.ok() && *kernel != nullptr;
      if (!fused[chain]) name = node.op->name;
    }
    if (!anchor || !fused[chain]) kernel = factory(io);
    if (!kernel.ok()) {
      return absl::Status(
          kernel.status().code(),
          StrCat(node.op->name, ": ", kernel.status().message()));
    }
    if (*kernel == nullptr) {
      return absl::InternalError(StrCat(node.op->name, ": no kernel"));
    }
    if (exe->profile_) {
      std::string types;
      for (const ir::TensorType* t : io.in_types) {
        if (t) types += StrCat(types.empty() ? "" : ", ", t->ToString());
      }
      exe->profile_->Add(StrCat(name, " (", types, ") -> ",
                                io.out_types[0]->ToString(), " ",
                                (*kernel)->implementation()));
    }
    exe->kernels_.push_back(*std::move(kernel));
    exe->kernel_names_.push_back(std::move(name));
    return absl::OkStatus();
  };
  auto add_group_kernel = [&](const ElementwiseGroup& group) -> absl::Status {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        MakeFusedElementwiseKernel({graph, group.members, address, stored});
    if (!kernel.ok()) {  // the planner and the kernel disagree: a bug
      return absl::InternalError(
          StrCat("element-wise group: ", kernel.status().message()));
    }
    std::string name;
    for (ir::NodeId id : group.members) {
      name = StrCat(name, name.empty() ? "" : "+", graph.node(id).op->name);
    }
    if (exe->profile_) {
      const ir::Node& last = graph.node(group.members.back());
      exe->profile_->Add(StrCat(name, " -> ",
                                graph.value(last.outputs[0]).type.ToString(),
                                " ", (*kernel)->implementation()));
    }
    exe->kernels_.push_back(*std::move(kernel));
    exe->kernel_names_.push_back(std::move(name));
    return absl::OkStatus();
  };

  for (ir::NodeId id : *order) {
    const ir::Node& node = graph.node(id);
    switch (node.kind) {
      case ir::NodeKind::kInput:
      case ir::NodeKind::kParameter: {
        ir::ValueId v = node.outputs[0];
        const ir::TensorType& type = graph.value(v).type;
        exe->inputs_.push_back({node.name, type.dtype, type.shape, sizes[v]});
        exe->input_views_.emplace_back(address[v], sizes[v]);
        break;
      }
      case ir::NodeKind::kOutput: {
        ir::ValueId v = node.operands[0];
        const ir::TensorType& type = graph.value(v).type;
        exe->outputs_.push_back({node.name, type.dtype, type.shape, sizes[v]});
        exe->output_views_.emplace_back(address[v], sizes[v]);
        break;
      }
      case ir::NodeKind::kConstant:
        break;
      case ir::NodeKind::kOp: {
        // The kernels trust the types: check them with the rule again.
        if (absl::Status s = ir::CheckNodeTypes(graph, node, options.limits);
            !s.ok()) {
          return absl::Status(s.code(),
                              StrCat(node.op->name, ": ", s.message()));
        }
        const int group = group_of[id];
        if (group < 0) {
          RETURN_IF_ERROR(add_kernel(id));
        } else if (id == groups[group].members.back()) {
          RETURN_IF_ERROR(add_group_kernel(groups[group]));
        }
        break;
      }
    }
  }
  ASSIGN_OR_RETURN(exe->carries_, exe->ResolveCarries(graph, options.carries));
  // An output that reads a carried input directly keeps the value the run
  // read: it gets its own buffer, filled before the carry overwrites it.
  for (size_t out = 0; out < exe->output_views_.size(); ++out) {
    for (const auto& [carried_out, in] : exe->carries_) {
      if (exe->output_views_[out].data() != exe->input_views_[in].data() ||
          static_cast<int>(out) == carried_out) {
        continue;
      }
      exe->buffers_.push_back(Allocate(exe->output_views_[out].size()));
      std::byte* own = exe->buffers_.back().data.get();
      exe->output_views_[out] = {own, exe->output_views_[out].size()};
      exe->kept_inputs_.emplace_back(in, own);
      break;
    }
  }
  if (exe->profile_) {
    exe->profile_->Add("(copies of carried values after the run)");
  }
  return exe;
}

std::span<std::byte> CpuExecutable::input(size_t i) { return input_views_[i]; }

std::span<const std::byte> CpuExecutable::output(size_t i) const {
  for (const auto& [out, in] : carries_) {
    if (out == static_cast<int>(i)) return {};
  }
  return output_views_[i];
}

std::vector<std::string> CpuExecutable::implementations() const {
  std::vector<std::string> result;
  for (size_t i = 0; i < kernels_.size(); ++i) {
    result.push_back(
        StrCat(kernel_names_[i], ": ", kernels_[i]->implementation()));
  }
  return result;
}

CpuExecutable::~CpuExecutable() {
  if (profile_) std::fputs(profile_->Report().c_str(), stderr);
}

absl::Status CpuExecutable::Run() {
  context_.EnterThreads();
  for (size_t i = 0; i < kernels_.size(); ++i) {
    absl::Status status;
    if (profile_) {
      auto start = std::chrono::steady_clock::now();
      status = kernels_[i]->Run();
      profile_->Record(i, NanosecondsSince(start));
    } else {
      status = kernels_[i]->Run();
    }
    if (!status.ok()) {
      return absl::Status(status.code(),
                          StrCat(kernel_names_[i], ": ", status.message()));
    }
  }
  context_.AdvanceRandomStep();
  auto start = profile_ ? std::chrono::steady_clock::now()
                        : std::chrono::steady_clock::time_point();
  for (const auto& [in, to] : kept_inputs_) {
    std::memcpy(to, input_views_[in].data(), input_views_[in].size());
  }
  for (const auto& [out, in] : carries_) {
    if (output_views_[out].data() != input_views_[in].data()) {
      std::memcpy(input_views_[in].data(), output_views_[out].data(),
                  input_views_[in].size());
    }
  }
  if (profile_) {  // the last entry: the copies of carried values
    profile_->Record(kernels_.size(), NanosecondsSince(start));
  }
  return absl::OkStatus();
}

}  // namespace webnnm::backends::cpu
