// CpuExecutable::Compile: a graph's plan (steps and value lifetimes, fusion
// chains, element-wise groups), its memory (own buffers and one arena), and
// its kernels, in four stages of a Compiler.
#include <algorithm>

#include "backends/cpu/elementwise_groups.h"
#include "backends/cpu/executable.h"
#include "backends/cpu/fusion.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/fused_elementwise.h"
#include "backends/cpu/memory_plan.h"
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

class CpuExecutable::Compiler {
 public:
  Compiler(const ir::Graph& graph, const CompileOptions& options,
           CpuExecutable& exe)
      : graph_(graph), options_(options), exe_(exe) {}

  absl::Status Plan();
  absl::Status AllocateMemory();
  absl::Status MakeKernels();
  absl::Status KeepCarriedOutputs();

 private:
  bool fusing() const { return options_.fusion && !options_.reference_kernels; }
  // The caller's memory for input `name` (CompileOptions::shared_inputs),
  // or nullptr.
  const SharedInput* SharedInputOf(const std::string& name) const {
    for (const SharedInput& s : options_.shared_inputs) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }
  void PlanChains();
  void PlanGroups();
  void PlanFoldedTransposes();
  void PlanMaskedPoolGradients();
  bool IsPlusZero(ir::ValueId v) const;
  bool ReadsFoldedIntoConv(ir::NodeId r, ir::ValueId v) const;
  bool MovesOnlyOnes(const ir::Node& node) const;
  void PlanAliasedReshapes();
  void PlanInPlaceCarries();
  // The kernel of one operation (with its post-op links when it anchors a
  // chain), appended.
  absl::Status AddKernel(ir::NodeId id);
  absl::StatusOr<std::unique_ptr<Kernel>> FuseChain(int chain,
                                                    const KernelIO& io,
                                                    KernelFactory factory,
                                                    std::string& name);
  absl::Status AddGroupKernel(const ElementwiseGroup& group);
  void Append(std::unique_ptr<Kernel> kernel, std::string name,
              const std::string& profile_line);

  const ir::Graph& graph_;
  const CompileOptions& options_;
  CpuExecutable& exe_;
  std::vector<ir::NodeId> order_;
  // Steps are the operation nodes in order; the step of each value's
  // producer and of its last reader decide its lifetime.
  std::vector<int> step_of_;
  std::vector<bool> read_by_output_;
  std::vector<int> last_read_, first_step_;
  std::vector<FusionChain> chains_;
  std::vector<int> chain_of_;  // anchors and links
  std::vector<bool> fused_;    // the anchor took its links
  std::vector<ElementwiseGroup> groups_;
  std::vector<int> group_of_;
  // A group member's result that an outside operation or an output reads.
  std::vector<bool> stored_;
  std::vector<std::byte*> address_;
  std::vector<size_t> sizes_;
  // By value id: the carried input whose buffer the value is written into
  // (kNoValue: none).
  std::vector<ir::ValueId> in_place_of_;
  // By value id: for the result of a transpose folded into the matmuls
  // that read it, the transpose's operand (kNoValue: none).
  std::vector<ir::ValueId> transposed_from_;
  // By value id: for the result of a reshape that is not run, the value
  // whose buffer it reads (itself never a reshape's; kNoValue: none).
  std::vector<ir::ValueId> reshaped_from_;
  // By value id: the nodes that read it, once per operand slot (graph
  // outputs included).
  std::vector<std::vector<ir::NodeId>> readers_;
  // By node id: run by another node's kernel (PlanMaskedPoolGradients).
  std::vector<bool> absorbed_;
  // By node id: for a where run as a masked max-pooling gradient, that
  // gradient's node (-1: none).
  std::vector<ir::NodeId> masked_pool_of_;
};

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

// Whether value `v` is a float32 constant of one element, +0.
bool CpuExecutable::Compiler::IsPlusZero(ir::ValueId v) const {
  const ir::Node& node = graph_.node(graph_.value(v).producer);
  const ir::TensorType& type = graph_.value(v).type;
  if (node.kind != ir::NodeKind::kConstant || !node.data ||
      type.dtype != ir::DType::kFloat32 || node.data->bytes.size() != 4) {
    return false;
  }
  for (auto b : node.data->bytes) {
    if (b != 0) return false;
  }
  return true;
}

// relu's gradient after a max-pooling gradient, where(y > 0, g, 0) with
// g = maxPool2dGradient(y, dy) — a CNN's backward pass through pooling
// and relu — is one kernel: the pooling gradient's, which gives a window's
// gradient to its first maximal tap only when that tap is above zero (the
// mask is zero at every other tap of a window, and g is zero there). The
// comparison's and the gradient's kernels are not run; y and dy live
// until the where's step. Not when anything else reads the mask or g, nor
// when the comparison and the where make an element-wise group (tensors
// of fewer than library_minimum_elements).
void CpuExecutable::Compiler::PlanMaskedPoolGradients() {
  absorbed_.assign(graph_.num_nodes(), false);
  masked_pool_of_.assign(graph_.num_nodes(), -1);
  if (!fusing()) return;
  auto op = [&](ir::ValueId v, ir::OpKind kind) -> const ir::Node* {
    const ir::NodeId id = graph_.value(v).producer;
    const ir::Node& node = graph_.node(id);
    const bool alone = readers_[v].size() == 1 && !read_by_output_[v] &&
                       group_of_[id] < 0 && chain_of_[id] < 0;
    return node.kind == ir::NodeKind::kOp && node.op->kind == kind && alone
               ? &node
               : nullptr;
  };
  for (ir::NodeId id : order_) {
    const ir::Node& where = graph_.node(id);
    if (where.kind != ir::NodeKind::kOp ||
        where.op->kind != ir::OpKind::kWhere || where.operands.size() != 3 ||
        group_of_[id] >= 0 || chain_of_[id] >= 0 ||
        std::count(where.operands.begin(), where.operands.end(), ir::kNoValue) >
            0) {
      continue;
    }
    const ir::Node* greater = op(where.operands[0], ir::OpKind::kGreater);
    const ir::Node* pool =
        op(where.operands[1], ir::OpKind::kMaxPool2dGradient);
    if (greater == nullptr || pool == nullptr ||
        greater->operands.size() != 2 || pool->operands.size() != 2 ||
        greater->operands[0] != pool->operands[0] ||
        !IsPlusZero(greater->operands[1]) || !IsPlusZero(where.operands[2]) ||
        graph_.value(pool->operands[0]).type.dtype != ir::DType::kFloat32 ||
        !graph_.value(where.outputs[0])
             .type.SameShapeAndType(graph_.value(pool->outputs[0]).type)) {
      continue;
    }
    const ir::NodeId pool_id = graph_.value(where.operands[1]).producer;
    absorbed_[pool_id] = true;
    absorbed_[graph_.value(where.operands[0]).producer] = true;
    masked_pool_of_[id] = pool_id;
    for (ir::ValueId v : pool->operands) {
      last_read_[v] = std::max(last_read_[v], step_of_[id]);
    }
  }
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

// Whether `node` swaps the first two of four dimensions.
bool SwapsFirstTwoOfFour(const ir::Node& node, int rank) {
  return rank == 4 && node.attrs.GetInts("permutation", {}) ==
                          std::vector<int64_t>{1, 0, 2, 3};
}

// Whether `node` swaps the last two dimensions of its operand and keeps
// the others.
bool SwapsLastTwo(const ir::Node& node, int rank) {
  if (rank < 2) return false;
  std::vector<int64_t> perm = node.attrs.GetInts("permutation", {});
  if (perm.empty() && rank == 2) return true;  // the default reverses
  if (static_cast<int>(perm.size()) != rank) return false;
  for (int i = 0; i < rank - 2; ++i) {
    if (perm[i] != i) return false;
  }
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

// A float32 transpose of the last two dimensions whose result only
// matmuls read (as a or b; no output, no other operation) is not run: the
// matmuls read its operand's buffer with the strides swapped (KernelIO::
// transposed), which oneDNN's matmul takes as it is. The training step's
// weight gradients (x^T dy) and input gradients (dy w^T) no longer pay a
// copy of x or w each step. Likewise a transpose of the first two of four
// dimensions that only conv2d nodes on the direct loops of a large filter
// read as image or filter (a convolution's filter gradient reads its images
// and dy so). The operand then lives until the last reader.
void CpuExecutable::Compiler::PlanFoldedTransposes() {
  transposed_from_.assign(graph_.num_values(), ir::kNoValue);
  if (!fusing()) return;
  for (ir::NodeId id : order_) {
    const ir::Node& node = graph_.node(id);
    if (node.kind != ir::NodeKind::kOp ||
        node.op->kind != ir::OpKind::kTranspose || chain_of_[id] >= 0 ||
        group_of_[id] >= 0) {
      continue;
    }
    const ir::ValueId x = node.operands[0], v = node.outputs[0];
    const ir::TensorType& type = graph_.value(x).type;
    if (type.dtype != ir::DType::kFloat32 || read_by_output_[v] ||
        readers_[v].empty()) {
      continue;
    }
    bool folds = SwapsLastTwo(node, type.rank());
    if (folds) {
      for (ir::NodeId r : readers_[v]) {
        const ir::Node& reader = graph_.node(r);
        folds &= reader.kind == ir::NodeKind::kOp &&
                 reader.op->kind == ir::OpKind::kMatmul && group_of_[r] < 0 &&
                 reader.operands.size() == 2;
      }
    } else {
      folds = SwapsFirstTwoOfFour(node, type.rank());
      for (ir::NodeId r : readers_[v]) {
        folds &= folds && ReadsFoldedIntoConv(r, v);
      }
    }
    if (!folds) continue;
    transposed_from_[v] = x;
    last_read_[x] = std::max(last_read_[x], last_read_[v]);
  }
}

// Whether node `r` reads `v` only as a conv2d's image or filter, on the
// direct loops of a large filter.
bool CpuExecutable::Compiler::ReadsFoldedIntoConv(ir::NodeId r,
                                                  ir::ValueId v) const {
  const ir::Node& conv = graph_.node(r);
  if (conv.kind != ir::NodeKind::kOp || conv.op->kind != ir::OpKind::kConv2d ||
      chain_of_[r] >= 0 || conv.operands.size() < 2 ||
      conv.outputs.size() != 1 || conv.operands[0] == ir::kNoValue ||
      conv.operands[1] == ir::kNoValue) {
    return false;
  }
  const bool bias =
      conv.operands.size() > 2 && conv.operands[2] != ir::kNoValue;
  if (bias && conv.operands[2] == v) return false;
  return DirectLargeFilterConv2dRuns(conv, graph_.value(conv.operands[0]).type,
                                     graph_.value(conv.operands[1]).type,
                                     graph_.value(conv.outputs[0]).type, bias,
                                     exe_.context_.threads());
}

// Whether `node` is a transpose that moves only dimensions of size one (its
// result has its operand's bytes: a reshape).
bool CpuExecutable::Compiler::MovesOnlyOnes(const ir::Node& node) const {
  if (node.op->kind != ir::OpKind::kTranspose || node.operands.empty() ||
      node.operands[0] == ir::kNoValue ||
      transposed_from_[node.outputs[0]] != ir::kNoValue) {
    return false;
  }
  const std::vector<int64_t>& shape = graph_.value(node.operands[0]).type.shape;
  const std::vector<int64_t> perm = node.attrs.GetInts("permutation", {});
  if (perm.size() != shape.size()) return false;
  int64_t last = -1;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(shape.size())) return false;
    if (shape[p] == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}

// A reshape changes no byte: its result is its operand's buffer, read in
// place (a CNN's step reshapes tens of thousands of floats a few times over
// around its pooling gradients and its dense layer). The operand's buffer
// then lives until the last reader of the result. Not for a result a graph
// output reads (its view would be an arena slot), nor an operand that lives
// only in an element-wise group's registers or is a folded transpose, nor
// a graph input's (a carried input may be updated in place).
void CpuExecutable::Compiler::PlanAliasedReshapes() {
  reshaped_from_.assign(graph_.num_values(), ir::kNoValue);
  if (!fusing()) return;
  for (ir::NodeId id : order_) {
    const ir::Node& node = graph_.node(id);
    if (node.kind != ir::NodeKind::kOp ||
        (node.op->kind != ir::OpKind::kReshape && !MovesOnlyOnes(node)) ||
        chain_of_[id] >= 0 || group_of_[id] >= 0 || node.operands.empty() ||
        node.operands[0] == ir::kNoValue) {
      continue;
    }
    const ir::ValueId out = node.outputs[0];
    ir::ValueId root = node.operands[0];
    if (reshaped_from_[root] != ir::kNoValue) root = reshaped_from_[root];
    const ir::NodeId producer = graph_.value(root).producer;
    const ir::NodeKind kind = graph_.node(producer).kind;
    if (read_by_output_[out] || transposed_from_[root] != ir::kNoValue ||
        (kind != ir::NodeKind::kOp && kind != ir::NodeKind::kConstant) ||
        (group_of_[producer] >= 0 && !stored_[root]) ||
        graph_.value(root).type.dtype != graph_.value(out).type.dtype) {
      continue;
    }
    reshaped_from_[out] = root;
    last_read_[root] = std::max(last_read_[root], last_read_[out]);
  }
}

// A carried output (CompileOptions::carries) computed by an element-wise
// group is written straight into its input's buffer when nothing reads the
// input after the group has written it: every reader outside the group runs
// before it, no output reads the input, and no member after the one that
// computes the output reads it (a member reads and writes element by
// element, block by block). Run() then has nothing to copy for it: an
// optimizer's new parameters and momenta (two copies of every parameter a
// step) are updated in place.
void CpuExecutable::Compiler::PlanInPlaceCarries() {
  in_place_of_.assign(graph_.num_values(), ir::kNoValue);
  for (const CarrySpec& c : options_.carries) {
    ir::ValueId out = ir::kNoValue, in = ir::kNoValue;
    for (const ir::Node& node : graph_.nodes()) {
      if (node.dead) continue;
      if (node.kind == ir::NodeKind::kOutput && node.name == c.output) {
        out = node.operands[0];
      } else if ((node.kind == ir::NodeKind::kInput ||
                  node.kind == ir::NodeKind::kParameter) &&
                 node.name == c.input) {
        in = node.outputs[0];
      }
    }
    if (out == ir::kNoValue || in == ir::kNoValue) continue;
    const ir::NodeId producer = graph_.value(out).producer;
    const int g = group_of_[producer];
    if (g < 0 || read_by_output_[in] ||
        graph_.value(out).type.dtype != graph_.value(in).type.dtype ||
        graph_.value(out).type.shape != graph_.value(in).type.shape ||
        in_place_of_[out] != ir::kNoValue) {
      continue;
    }
    const std::vector<ir::NodeId>& members = groups_[g].members;
    if (last_read_[in] > step_of_[members.back()]) continue;
    auto at = std::find(members.begin(), members.end(), producer);
    bool read_after = false;
    for (auto m = at + 1; m != members.end(); ++m) {
      const std::vector<ir::ValueId>& operands = graph_.node(*m).operands;
      read_after |=
          std::find(operands.begin(), operands.end(), in) != operands.end();
    }
    if (!read_after) {
      in_place_of_[out] = in;
      ++exe_.in_place_carries_;
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
