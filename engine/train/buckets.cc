#include "engine/train/buckets.h"

#include <algorithm>

#include "engine/base/philox.h"
#include "engine/ir/op_def.h"

namespace webnnm::train {
namespace {

bool FixedOperand(const ir::Graph& g, ir::ValueId v) {
  const ir::NodeKind kind = g.node(g.value(v).producer).kind;
  return kind == ir::NodeKind::kParameter || kind == ir::NodeKind::kConstant;
}

// Whether `node`, reading the sequenced value `v`, works step by step.
bool StepWise(const ir::Graph& g, const ir::Node& node, ir::ValueId v) {
  const ir::OpDef& op = *node.op;
  switch (op.category) {
    case ir::OpCategory::kElementwise:
    case ir::OpCategory::kCast:
    case ir::OpCategory::kComparison:
    case ir::OpCategory::kLogical:
      return true;
    case ir::OpCategory::kInternal:  // dropout's random numbers
      return op.kind == ir::OpKind::kRandomUniform;
    case ir::OpCategory::kActivation: {
      if (op.kind != ir::OpKind::kSoftmax) return true;
      // Softmax over a step's own features (not the batch or sequence).
      const ir::TensorType& t = g.value(v).type;
      const int64_t axis = node.attrs.GetInt("axis", t.rank() - 1);
      return axis >= 0 && axis < t.rank() && !ir::IsSymbolic(t.shape[axis]);
    }
    case ir::OpCategory::kMatrix:
      for (ir::ValueId o : node.operands) {
        if (o != ir::kNoValue && o != v && !FixedOperand(g, o)) return false;
      }
      return true;
    case ir::OpCategory::kMovement:
      if (op.kind == ir::OpKind::kTranspose) return true;
      return op.kind == ir::OpKind::kGather && node.operands.size() > 1 &&
             node.operands[1] == v && node.operands[0] != v;
    default:
      return false;
  }
}

bool Sequenced(const ir::TensorType& type) {
  return std::find(type.shape.begin(), type.shape.end(), ir::kSequenceDim) !=
         type.shape.end();
}

}  // namespace

bool BucketsKeepTheModel(const dag::Dag& dag) {
  const ir::Graph& g = dag.graph;
  std::vector<ir::ValueId> values;
  for (const dag::Endpoint& e : dag.inputs) {
    const ir::ValueId v = g.node(e.node).outputs[0];
    if (Sequenced(g.value(v).type)) values.push_back(v);
  }
  std::vector<bool> seen(g.num_values(), false);
  while (!values.empty()) {
    const ir::ValueId v = values.back();
    values.pop_back();
    if (seen[v]) continue;
    seen[v] = true;
    for (ir::NodeId id : g.Consumers(v)) {
      const ir::Node& node = g.node(id);
      if (node.kind != ir::NodeKind::kOp) {
        // An output: a sequenced one is scored step by step, its padded
        // steps masked.
        if (Sequenced(g.value(v).type)) continue;
        return false;
      }
      if (node.op->kind == ir::OpKind::kLstm ||
          node.op->kind == ir::OpKind::kGru) {
        // Masked: its state ignores the padding; a returned sequence holds
        // zeros there and goes on step by step.
        for (ir::ValueId out : node.outputs) {
          if (Sequenced(g.value(out).type)) values.push_back(out);
        }
        continue;
      }
      if (!StepWise(g, node, v)) return false;
      for (ir::ValueId out : node.outputs) values.push_back(out);
    }
  }
  return true;
}

int64_t BucketLength(int64_t length, int64_t steps) {
  const int64_t width = std::max<int64_t>(1, (steps + 3) / 4);
  const int64_t bucket = (std::max<int64_t>(length, 1) + width - 1) / width;
  return std::min(steps, bucket * width);
}

std::vector<int64_t> BucketedOrder(const std::vector<int64_t>& order,
                                   const std::vector<int64_t>& lengths,
                                   int64_t steps, int64_t batch, uint64_t seed,
                                   int epoch) {
  std::vector<int64_t> grouped = order;
  std::stable_sort(grouped.begin(), grouped.end(), [&](int64_t a, int64_t b) {
    return BucketLength(lengths[a], steps) < BucketLength(lengths[b], steps);
  });
  if (batch < 1) return grouped;
  const int64_t full = static_cast<int64_t>(grouped.size()) / batch;
  std::vector<int64_t> batches(full);
  for (int64_t i = 0; i < full; ++i) batches[i] = i;
  for (int64_t i = full - 1; i > 0; --i) {
    PhiloxBlock bits = Philox4x32({static_cast<uint32_t>(i),
                                   static_cast<uint32_t>(epoch), 0xb0c7, 0},
                                  seed);
    std::swap(batches[i],
              batches[bits[0] % static_cast<uint32_t>(i + 1)]);
  }
  std::vector<int64_t> result;
  result.reserve(grouped.size());
  for (int64_t b : batches) {
    result.insert(result.end(), grouped.begin() + b * batch,
                  grouped.begin() + (b + 1) * batch);
  }
  result.insert(result.end(), grouped.begin() + full * batch, grouped.end());
  return result;
}

int64_t BatchLength(const std::vector<int64_t>& order, int64_t begin,
                    int64_t batch, const std::vector<int64_t>& lengths,
                    int64_t steps) {
  int64_t longest = 1;
  const int64_t end =
      std::min<int64_t>(begin + batch, static_cast<int64_t>(order.size()));
  for (int64_t i = begin; i < end; ++i) {
    longest = std::max(longest, lengths[order[i]]);
  }
  return BucketLength(longest, steps);
}

}  // namespace webnnm::train
