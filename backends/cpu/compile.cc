// CpuExecutable::Compile: a graph's plan (steps and value lifetimes, fusion
// chains, element-wise groups; the rewrites are compile_rewrites.cc's), its
// memory (own buffers and one arena), and its kernels, in four stages of a
// Compiler (compiler.h).
#include <algorithm>

#include "backends/common/memory_plan.h"
#include "backends/cpu/compiler.h"
#include "backends/cpu/elementwise_groups.h"
#include "backends/cpu/fusion.h"
#include "backends/cpu/kernels/fused_elementwise.h"
#include "engine/base/checked_math.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/infer.h"

namespace webnnm::backends::cpu {
namespace {

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

absl::Status CpuExecutable::Compiler::Plan() {
  ASSIGN_OR_RETURN(order_, graph_.TopologicalOrder());
  step_of_.assign(graph_.num_nodes(), -1);
  int steps = 0;
  for (ir::NodeId id : order_) {
    if (graph_.node(id).kind == ir::NodeKind::kOp) step_of_[id] = steps++;
  }
  read_by_output_.assign(graph_.num_values(), false);
  last_read_.assign(graph_.num_values(), -1);
  readers_.assign(graph_.num_values(), {});
  for (ir::NodeId id : order_) {
    const ir::Node& node = graph_.node(id);
    for (ir::ValueId v : node.operands) {
      if (v == ir::kNoValue) continue;
      readers_[v].push_back(id);
      if (node.kind == ir::NodeKind::kOutput) read_by_output_[v] = true;
      if (step_of_[id] >= 0) {
        last_read_[v] = std::max(last_read_[v], step_of_[id]);
      }
    }
  }
  first_step_.assign(graph_.num_values(), -1);
  PlanChains();
  PlanGroups();
  // Before the aliases: they extend their roots' lifetimes to their own.
  PlanMaskedPoolGradients();
  PlanFoldedTransposes();
  PlanAliasedReshapes();
  return absl::OkStatus();
}

// Fusion chains (fusion.h) run at their anchor's step: what a member
// produces lives from the anchor's step, what it reads until the last
// member's step, so that buffers stay apart fused or not.
void CpuExecutable::Compiler::PlanChains() {
  if (fusing()) {
    chains_ = PlanFusion(graph_, order_, options_.library_minimum_elements);
  }
  chain_of_.assign(graph_.num_nodes(), -1);
  fused_.assign(chains_.size(), false);
  for (size_t c = 0; c < chains_.size(); ++c) {
    const int first = step_of_[chains_[c].anchor];
    const int last = step_of_[chains_[c].links.back()];
    std::vector<ir::NodeId> members = chains_[c].links;
    members.push_back(chains_[c].anchor);
    for (ir::NodeId id : members) {
      chain_of_[id] = static_cast<int>(c);
      for (ir::ValueId v : graph_.node(id).operands) {
        if (v != ir::kNoValue) last_read_[v] = std::max(last_read_[v], last);
      }
      for (ir::ValueId v : graph_.node(id).outputs) first_step_[v] = first;
    }
  }
}

// Element-wise groups (elementwise_groups.h) run at their last member's
// step; what a member produces lives from its first member's step, what it
// reads until the last member's step. Values only members read live in the
// fused kernel's registers and get no buffer.
void CpuExecutable::Compiler::PlanGroups() {
  if (fusing()) {
    std::vector<bool> taken(graph_.num_nodes(), false);
    for (ir::NodeId id : order_) taken[id] = chain_of_[id] >= 0;
    groups_ = PlanElementwiseGroups(graph_, order_, taken,
                                    options_.library_minimum_elements);
  }
  group_of_.assign(graph_.num_nodes(), -1);
  for (size_t g = 0; g < groups_.size(); ++g) {
    const int first = step_of_[groups_[g].members.front()];
    const int last = step_of_[groups_[g].members.back()];
    for (ir::NodeId id : groups_[g].members) {
      group_of_[id] = static_cast<int>(g);
      for (ir::ValueId v : graph_.node(id).operands) {
        if (v != ir::kNoValue) last_read_[v] = std::max(last_read_[v], last);
      }
      for (ir::ValueId v : graph_.node(id).outputs) first_step_[v] = first;
    }
  }
  stored_.assign(graph_.num_values(), false);
  for (ir::NodeId id : order_) {
    for (ir::ValueId v : graph_.node(id).operands) {
      if (v == ir::kNoValue) continue;
      const int g = group_of_[graph_.value(v).producer];
      if (g >= 0 && group_of_[id] != g) stored_[v] = true;
    }
  }
}

// Inputs, parameters, constants and what outputs read get their own
// buffers (a carried output computed in place shares its input's);
// every other value a place in one arena, by lifetime.
absl::Status CpuExecutable::Compiler::AllocateMemory() {
  address_.assign(graph_.num_values(), nullptr);
  sizes_.assign(graph_.num_values(), 0);
  PlanInPlaceCarries();
  std::vector<ir::ValueId> arena_values;
  std::vector<Lifetime> lifetimes;
  for (ir::NodeId id : order_) {
    const ir::Node& node = graph_.node(id);
    if (node.kind == ir::NodeKind::kOutput) continue;
    for (ir::ValueId v : node.outputs) {
      ASSIGN_OR_RETURN(size_t bytes,
                       ByteSize(graph_.value(v).type, options_.limits));
      sizes_[v] = bytes;
      if (node.kind == ir::NodeKind::kInput ||
          node.kind == ir::NodeKind::kParameter) {
        if (const SharedInput* shared = SharedInputOf(node.name)) {
          if (shared->size != bytes || shared->data == nullptr) {
            return absl::InvalidArgumentError(
                StrCat("shared input '", node.name, "' has ", shared->size,
                       " bytes; the graph's has ", bytes));
          }
          address_[v] = const_cast<std::byte*>(shared->data);
          continue;
        }
      }
      if (group_of_[id] >= 0 && !stored_[v]) continue;  // in registers only
      if (in_place_of_[v] != ir::kNoValue) {
        address_[v] = address_[in_place_of_[v]];
        continue;
      }
      if (transposed_from_[v] != ir::kNoValue ||
          reshaped_from_[v] != ir::kNoValue) {
        continue;  // below
      }
      if (node.kind == ir::NodeKind::kOp && !read_by_output_[v]) {
        arena_values.push_back(v);
        int first = first_step_[v] >= 0 ? first_step_[v] : step_of_[id];
        lifetimes.push_back({bytes, first, std::max(first, last_read_[v])});
        continue;
      }
      exe_.buffers_.push_back(Allocate(bytes));
      address_[v] = exe_.buffers_.back().data.get();
      if (node.kind == ir::NodeKind::kConstant) {
        if (!node.data || node.data->bytes.size() != bytes) {
          return absl::InvalidArgumentError(
              StrCat("constant '", node.name, "' has the wrong data size"));
        }
        std::memcpy(address_[v], node.data->bytes.data(), bytes);
      }
    }
  }
  ArenaPlan plan = PlanArena(lifetimes, kAlignment);
  exe_.buffers_.push_back(Allocate(plan.size));
  exe_.arena_size_ = plan.size;
  std::byte* arena = exe_.buffers_.back().data.get();
  for (size_t i = 0; i < arena_values.size(); ++i) {
    address_[arena_values[i]] = arena + plan.offsets[i];
  }
  for (size_t v = 0; v < reshaped_from_.size(); ++v) {
    if (reshaped_from_[v] != ir::kNoValue) {  // the operand's buffer
      address_[v] = address_[reshaped_from_[v]];
    }
  }
  for (size_t v = 0; v < transposed_from_.size(); ++v) {
    if (transposed_from_[v] != ir::kNoValue) {  // the operand's buffer
      address_[v] = address_[transposed_from_[v]];
    }
  }
  return absl::OkStatus();
}

void CpuExecutable::Compiler::Append(std::unique_ptr<Kernel> kernel,
                                     std::string name,
                                     const std::string& profile_line) {
  if (exe_.profile_) {
    exe_.profile_->Add(StrCat(profile_line, " ", kernel->implementation()));
  }
  exe_.kernels_.push_back(std::move(kernel));
  exe_.kernel_names_.push_back(std::move(name));
}

absl::StatusOr<std::unique_ptr<Kernel>> CpuExecutable::Compiler::FuseChain(
    int chain, const KernelIO& io, KernelFactory factory, std::string& name) {
  KernelIO fused_io = io;
  const ir::Node& anchor = graph_.node(chains_[chain].anchor);
  ir::ValueId value = anchor.outputs[0];
  for (ir::NodeId l : chains_[chain].links) {
    const ir::Node& link = graph_.node(l);
    FusedOp op{&link};
    if (link.operands.size() == 2) {
      ir::ValueId other = link.operands[link.operands[0] == value];
      op.other_type = &graph_.value(other).type;
      op.other = address_[other];
    }
    fused_io.fused.push_back(op);
    name = StrCat(name, "+", link.op->name);
    value = link.outputs[0];
  }
  fused_io.out_types[0] = &graph_.value(value).type;
  fused_io.out[0] = address_[value];
  return factory(fused_io);
}

absl::Status CpuExecutable::Compiler::AddKernel(ir::NodeId id) {
  // A where that masks a max-pooling gradient: the gradient's kernel,
  // masking, writes the where's result.
  const ir::NodeId masked = masked_pool_of_[id];
  const ir::Node& node = graph_.node(masked >= 0 ? masked : id);
  KernelFactory factory = FindKernel(node.op->kind);
  if (factory == nullptr) {
    return absl::UnimplementedError(
        StrCat("the cpu backend has no kernel for ", node.op->name));
  }
  const int chain = chain_of_[id];
  const bool anchor = chain >= 0 && chains_[chain].anchor == id;
  if (chain >= 0 && !anchor && fused_[chain]) {
    return absl::OkStatus();  // in the anchor
  }
  KernelIO io{node, {}, {}, {}, {}, exe_.context_};
  for (ir::ValueId v : node.operands) {
    io.in_types.push_back(v == ir::kNoValue ? nullptr : &graph_.value(v).type);
    io.in.push_back(v == ir::kNoValue ? nullptr : address_[v]);
    io.transposed.push_back(v != ir::kNoValue &&
                            transposed_from_[v] != ir::kNoValue);
  }
  for (ir::ValueId v : graph_.node(id).outputs) {
    io.out_types.push_back(&graph_.value(v).type);
    io.out.push_back(address_[v]);
  }
  std::string name = node.op->name;
  if (masked >= 0) {
    io.fused.push_back(FusedOp{&graph_.node(id)});
    name = StrCat(name, "+greater+where");
  }
  absl::StatusOr<std::unique_ptr<Kernel>> kernel;
  if (anchor) {
    kernel = FuseChain(chain, io, factory, name);
    fused_[chain] = kernel.ok() && *kernel != nullptr;
    if (!fused_[chain]) name = node.op->name;
  }
  if (!anchor || !fused_[chain]) kernel = factory(io);
  if (!kernel.ok()) {
    return absl::Status(kernel.status().code(),
                        StrCat(node.op->name, ": ", kernel.status().message()));
  }
  if (*kernel == nullptr) {
    return absl::InternalError(StrCat(node.op->name, ": no kernel"));
  }
  std::string line;  // the profile's
  if (exe_.profile_) {
    std::string types;
    for (const ir::TensorType* t : io.in_types) {
      if (t) types += StrCat(types.empty() ? "" : ", ", t->ToString());
    }
    line = StrCat(name, " (", types, ") -> ", io.out_types[0]->ToString());
  }
  Append(*std::move(kernel), std::move(name), line);
  return absl::OkStatus();
}

absl::Status CpuExecutable::Compiler::AddGroupKernel(
    const ElementwiseGroup& group) {
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      MakeFusedElementwiseKernel({graph_, group.members, address_, stored_});
  if (!kernel.ok()) {  // the planner and the kernel disagree: a bug
    return absl::InternalError(
        StrCat("element-wise group: ", kernel.status().message()));
  }
  std::string name;
  for (ir::NodeId id : group.members) {
    name = StrCat(name, name.empty() ? "" : "+", graph_.node(id).op->name);
  }
  std::string line;  // the profile's
  if (exe_.profile_) {
    const ir::Node& last = graph_.node(group.members.back());
    line = StrCat(name, " -> ", graph_.value(last.outputs[0]).type.ToString());
  }
  Append(*std::move(kernel), std::move(name), line);
  return absl::OkStatus();
}

// The bindings of inputs and outputs, and the kernels in order.
absl::Status CpuExecutable::Compiler::MakeKernels() {
  for (ir::NodeId id : order_) {
    const ir::Node& node = graph_.node(id);
    switch (node.kind) {
      case ir::NodeKind::kInput:
      case ir::NodeKind::kParameter: {
        ir::ValueId v = node.outputs[0];
        const ir::TensorType& type = graph_.value(v).type;
        exe_.inputs_.push_back({node.name, type.dtype, type.shape, sizes_[v]});
        exe_.input_views_.emplace_back(address_[v], sizes_[v]);
        break;
      }
      case ir::NodeKind::kOutput: {
        ir::ValueId v = node.operands[0];
        const ir::TensorType& type = graph_.value(v).type;
        exe_.outputs_.push_back({node.name, type.dtype, type.shape, sizes_[v]});
        exe_.output_views_.emplace_back(address_[v], sizes_[v]);
        break;
      }
      case ir::NodeKind::kConstant:
        break;
      case ir::NodeKind::kOp: {
        // The kernels trust the types: check them with the rule again.
        if (absl::Status s = ir::CheckNodeTypes(graph_, node, options_.limits);
            !s.ok()) {
          return absl::Status(s.code(),
                              StrCat(node.op->name, ": ", s.message()));
        }
        const int group = group_of_[id];
        if (transposed_from_[node.outputs[0]] != ir::kNoValue ||
            reshaped_from_[node.outputs[0]] != ir::kNoValue || absorbed_[id]) {
          break;  // folded into the kernels that read it
        }
        if (group < 0) {
          RETURN_IF_ERROR(AddKernel(id));
        } else if (id == groups_[group].members.back()) {
          RETURN_IF_ERROR(AddGroupKernel(groups_[group]));
        }
        break;
      }
    }
  }
  return absl::OkStatus();
}

// An output that reads a carried input directly keeps the value the run
// read: it gets its own buffer, filled before the carry overwrites it.
absl::Status CpuExecutable::Compiler::KeepCarriedOutputs() {
  ASSIGN_OR_RETURN(exe_.carries_,
                   exe_.ResolveCarries(graph_, options_.carries));
  exe_.carried_output_.assign(exe_.output_views_.size(), false);
  for (const auto& [out, in] : exe_.carries_) exe_.carried_output_[out] = true;
  for (size_t out = 0; out < exe_.output_views_.size(); ++out) {
    for (const auto& [carried_out, in] : exe_.carries_) {
      if (exe_.output_views_[out].data() != exe_.input_views_[in].data() ||
          static_cast<int>(out) == carried_out) {
        continue;
      }
      exe_.buffers_.push_back(Allocate(exe_.output_views_[out].size()));
      std::byte* own = exe_.buffers_.back().data.get();
      exe_.output_views_[out] = {own, exe_.output_views_[out].size()};
      exe_.kept_inputs_.emplace_back(in, own);
      break;
    }
  }
  if (exe_.profile_) {
    exe_.profile_->Add("(copies of carried values after the run)");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CpuExecutable>> CpuExecutable::Compile(
    const ir::Graph& graph, const CompileOptions& options) {
  std::unique_ptr<CpuExecutable> exe(new CpuExecutable(options.threads));
  if (KernelProfile::Enabled()) {
    exe->profile_ = std::make_unique<KernelProfile>();
  }
  exe->context_.set_use_dnnl(!options.reference_kernels);
  exe->context_.set_dnnl_minimum_elements(options.library_minimum_elements);
  // oneDNN picks an implementation for the threads it sees when a
  // primitive is made: make them for the threads Run() will give them (a
  // daemon's worker thread otherwise sees OpenMP's default, every core).
  exe->context_.EnterThreads();
  for (const SharedInput& shared : options.shared_inputs) {
    for (const CarrySpec& carry : options.carries) {
      if (carry.input == shared.name) {
        return absl::InvalidArgumentError(StrCat(
            "input '", shared.name, "' cannot be both shared and carried"));
      }
    }
  }
  Compiler compiler(graph, options, *exe);
  RETURN_IF_ERROR(compiler.Plan());
  RETURN_IF_ERROR(compiler.AllocateMemory());
  RETURN_IF_ERROR(compiler.MakeKernels());
  RETURN_IF_ERROR(compiler.KeepCarriedOutputs());
  return exe;
}

}  // namespace webnnm::backends::cpu
