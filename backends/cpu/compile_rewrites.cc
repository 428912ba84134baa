// The compiler's rewrites (compiler.h): operations that run inside
// others' kernels or not at all — transposes folded into the matmuls and
// convolutions that read them, reshapes read in place, relu's gradient in
// the max-pooling gradient before it — and carried outputs updated in
// place. Each marks what it removes and extends the lifetimes of what the
// remaining kernels read.
#include <algorithm>

#include "backends/cpu/compiler.h"
#include "backends/cpu/kernels/dnnl_kernels.h"

namespace webnnm::backends::cpu {

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
// a carried input's (updated in place during the run) or a shared one's
// (another executable's buffer). Other inputs keep their bytes through a
// run: a loss's mask reshaped for broadcasting reads it in place.
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
    const ir::Node& source = graph_.node(producer);
    const ir::NodeKind kind = source.kind;
    const bool fixed_input =
        (kind == ir::NodeKind::kInput || kind == ir::NodeKind::kParameter) &&
        SharedInputOf(source.name) == nullptr &&
        std::none_of(
            options_.carries.begin(), options_.carries.end(),
            [&](const CarrySpec& c) { return c.input == source.name; });
    if (read_by_output_[out] || transposed_from_[root] != ir::kNoValue ||
        (kind != ir::NodeKind::kOp && kind != ir::NodeKind::kConstant &&
         !fixed_input) ||
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

}  // namespace webnnm::backends::cpu
