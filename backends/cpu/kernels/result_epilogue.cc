#include "backends/cpu/kernels/result_epilogue.h"

#include "backends/cpu/kernels/shape_util.h"

namespace webnnm::backends::cpu {
namespace {

// How the other operand of a binary link spreads over a result of type `y`
// (nothing: it does not, or is not float32).
std::optional<int> ExtentOf(const ir::TensorType& other,
                            const ir::TensorType& y) {
  if (other.dtype != ir::DType::kFloat32 || y.shape.empty()) return {};
  const int64_t count = ElementCount(other.shape);
  if (other.shape == y.shape) return 0;
  if (count == 1 && other.shape.size() <= y.shape.size()) return 2;
  // [..., 1, 1, n] against [..., n]: one value per column.
  if (count == y.shape.back() && !other.shape.empty() &&
      other.shape.back() == count && other.shape.size() <= y.shape.size()) {
    return 1;
  }
  return {};
}

template <typename Op>
void Binary(float* y, int64_t count, int64_t row, int extent, bool left,
            const float* o, Op op) {
  switch (extent) {
    case 0:
      for (int64_t i = 0; i < count; ++i) {
        y[i] = left ? op(y[i], o[i]) : op(o[i], y[i]);
      }
      break;
    case 1:
      for (int64_t base = 0; base < count; base += row) {
        float* r = y + base;
        for (int64_t j = 0; j < row; ++j) {
          r[j] = left ? op(r[j], o[j]) : op(o[j], r[j]);
        }
      }
      break;
    default: {
      const float v = o[0];
      for (int64_t i = 0; i < count; ++i) {
        y[i] = left ? op(y[i], v) : op(v, y[i]);
      }
      break;
    }
  }
}

}  // namespace

bool ResultEpilogueTakes(const ir::Graph& graph, const ir::Node& link,
                         ir::ValueId v) {
  if (link.kind != ir::NodeKind::kOp || link.outputs.size() != 1) return false;
  const ir::TensorType& y = graph.value(link.outputs[0]).type;
  if (y.dtype != ir::DType::kFloat32) return false;
  switch (link.op->kind) {
    case ir::OpKind::kRelu:
      return link.operands.size() == 1 && link.operands[0] == v;
    case ir::OpKind::kAdd:
    case ir::OpKind::kSub:
    case ir::OpKind::kMul:
    case ir::OpKind::kDiv: {
      if (link.operands.size() != 2) return false;
      const int slot = link.operands[0] == v ? 0 : 1;
      const ir::ValueId other = link.operands[1 - slot];
      if (link.operands[slot] != v || other == v || other == ir::kNoValue) {
        return false;
      }
      return ExtentOf(graph.value(other).type, y).has_value();
    }
    default:
      return false;
  }
}

std::optional<ResultEpilogue> ResultEpilogue::Make(
    const std::vector<FusedOp>& fused, const ir::TensorType& y) {
  ResultEpilogue e;
  e.row_ = y.shape.empty() ? 1 : y.shape.back();
  if (e.row_ <= 0) return {};
  for (const FusedOp& f : fused) {
    Step s;
    switch (f.node->op->kind) {
      case ir::OpKind::kRelu:
        e.steps_.push_back(s);
        continue;
      case ir::OpKind::kAdd:
        s.kind = Kind::kAdd;
        break;
      case ir::OpKind::kSub:
        s.kind = Kind::kSub;
        break;
      case ir::OpKind::kMul:
        s.kind = Kind::kMul;
        break;
      case ir::OpKind::kDiv:
        s.kind = Kind::kDiv;
        break;
      default:
        return {};
    }
    if (f.other_type == nullptr || f.other == nullptr) return {};
    const std::optional<int> extent = ExtentOf(*f.other_type, y);
    if (!extent) return {};
    s.extent = static_cast<Other>(*extent);
    s.other = reinterpret_cast<const float*>(f.other);
    s.result_left = !f.value_second;
    e.steps_.push_back(s);
  }
  return e;
}

void ResultEpilogue::Apply(float* y, int64_t count) const {
  for (const Step& s : steps_) {
    const int extent = static_cast<int>(s.extent);
    switch (s.kind) {
      case Kind::kRelu:
        for (int64_t i = 0; i < count; ++i) y[i] = y[i] > 0.0f ? y[i] : 0.0f;
        break;
      case Kind::kAdd:
        Binary(y, count, row_, extent, s.result_left, s.other,
               [](float a, float b) { return a + b; });
        break;
      case Kind::kSub:
        Binary(y, count, row_, extent, s.result_left, s.other,
               [](float a, float b) { return a - b; });
        break;
      case Kind::kMul:
        Binary(y, count, row_, extent, s.result_left, s.other,
               [](float a, float b) { return a * b; });
        break;
      case Kind::kDiv:
        Binary(y, count, row_, extent, s.result_left, s.other,
               [](float a, float b) { return a / b; });
        break;
    }
  }
}

}  // namespace webnnm::backends::cpu
