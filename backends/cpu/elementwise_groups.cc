#include "backends/cpu/elementwise_groups.h"

#include <algorithm>

#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/fused_elementwise.h"

namespace webnnm::backends::cpu {
namespace {

// Groups this large stream whatever `streaming_from` says: broadcast
// operands would need an index of this many elements.
constexpr int64_t kGatherLimit = int64_t{1} << 20;

// Whether `node` may be a member of a group of result shape `shape` (its
// operands broadcast to its result by its rule). From `streaming_from`
// elements on, only float32 results over operands of that shape or of one
// element: the fused kernel then streams through memory without gathers or
// byte conversions.
bool Fits(const ir::Graph& graph, const ir::Node& node,
          const std::vector<int64_t>& shape, int64_t streaming_from) {
  const ir::TensorType& out = graph.value(node.outputs[0]).type;
  if (out.shape != shape) return false;
  const bool streaming =
      ElementCount(shape) >= std::min(streaming_from, kGatherLimit);
  if (streaming && out.dtype != ir::DType::kFloat32) return false;
  // At these sizes such an operation on its own runs on oneDNN's eltwise,
  // whose zeros may differ in sign (relu of a negative: -0): not fused, so
  // that fused or not, the results are the same bits.
  if (streaming && DnnlEltwiseFusible(node)) return false;
  for (ir::ValueId v : node.operands) {
    if (v == ir::kNoValue) return false;
    const std::vector<int64_t>& s = graph.value(v).type.shape;
    if (streaming && s != shape && ElementCount(s) != 1) return false;
  }
  return true;
}

// Groups under construction, joined by union-find.
class Groups {
 public:
  int Add(ir::NodeId first, std::vector<int64_t> shape) {
    parent_.push_back(static_cast<int>(parent_.size()));
    members_.push_back({first});
    shape_.push_back(std::move(shape));
    sealed_.push_back(false);
    return parent_.back();
  }
  int Find(int g) {
    while (parent_[g] != g) g = parent_[g] = parent_[parent_[g]];
    return g;
  }
  // Joins `from` into `into` (both roots).
  void Merge(int into, int from) {
    parent_[from] = into;
    members_[into].insert(members_[into].end(), members_[from].begin(),
                          members_[from].end());
    members_[from].clear();
  }
  std::vector<ir::NodeId>& members(int g) { return members_[g]; }
  const std::vector<int64_t>& shape(int g) const { return shape_[g]; }
  bool sealed(int g) const { return sealed_[g]; }
  void Seal(int g) { sealed_[g] = true; }
  int size() const { return static_cast<int>(parent_.size()); }

 private:
  std::vector<int> parent_;
  std::vector<std::vector<ir::NodeId>> members_;
  std::vector<std::vector<int64_t>> shape_;
  std::vector<bool> sealed_;
};

}  // namespace

std::vector<ElementwiseGroup> PlanElementwiseGroups(
    const ir::Graph& graph, const std::vector<ir::NodeId>& order,
    const std::vector<bool>& taken, int64_t streaming_from) {
  std::vector<int> group_of(graph.num_nodes(), -1);
  std::vector<int> position(graph.num_nodes(), -1);
  Groups groups;
  for (size_t i = 0; i < order.size(); ++i) {
    const ir::NodeId id = order[i];
    position[id] = static_cast<int>(i);
    const ir::Node& node = graph.node(id);
    if (node.kind != ir::NodeKind::kOp) continue;  // outputs do not seal
    // The groups this node reads from.
    std::vector<int> read;
    for (ir::ValueId v : node.operands) {
      if (v == ir::kNoValue) continue;
      const int g = group_of[graph.value(v).producer];
      if (g >= 0) read.push_back(groups.Find(g));
    }
    const bool member = !taken[id] && node.outputs.size() == 1 &&
                        FusedElementwiseSupports(graph, node);
    const std::vector<int64_t>* shape =
        member ? &graph.value(node.outputs[0]).type.shape : nullptr;
    if (member && !Fits(graph, node, *shape, streaming_from)) {
      shape = nullptr;
    }
    int joined = -1;
    for (int g : read) {
      if (shape && !groups.sealed(g) && groups.shape(g) == *shape) {
        if (joined < 0) {
          joined = g;
        } else if (g != joined) {
          groups.Merge(joined, g);
        }
      } else {
        groups.Seal(g);  // read from outside
      }
    }
    if (!shape) continue;
    if (joined < 0) {
      joined = groups.Add(id, *shape);
    } else {
      groups.members(joined).push_back(id);
    }
    group_of[id] = joined;
  }
  std::vector<ElementwiseGroup> result;
  for (int g = 0; g < groups.size(); ++g) {
    std::vector<ir::NodeId>& members = groups.members(g);
    if (groups.Find(g) != g || members.size() < 2) continue;
    std::sort(members.begin(), members.end(), [&](ir::NodeId a, ir::NodeId b) {
      return position[a] < position[b];
    });
    result.push_back({std::move(members)});
  }
  return result;
}

}  // namespace webnnm::backends::cpu
