// Reductions over any axes (reduce.comp: float32, and 32- and 64-bit integers
// for the sums, products, extremes, L1 and sumSquare) and softmax along one
// axis (softmax.comp, float32).
#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

using K = ir::OpKind;

// Reductions of at most this many elements per output run one invocation
// per output rather than a workgroup.
constexpr int64_t kSerialReduction = 64;

// reduce.comp's OP numbers.
int ReduceCode(K op) {
  switch (op) {
    case K::kReduceSum:
      return 0;
    case K::kReduceMean:
      return 1;
    case K::kReduceMax:
      return 2;
    case K::kReduceMin:
      return 3;
    case K::kReduceProduct:
      return 4;
    case K::kReduceL1:
      return 5;
    case K::kReduceL2:
      return 6;
    case K::kReduceLogSum:
      return 7;
    case K::kReduceLogSumExp:
      return 8;
    case K::kReduceSumSquare:
      return 9;
    default:
      return -1;
  }
}

}  // namespace

bool IsReduction(K op) { return ReduceCode(op) >= 0; }

bool ReductionSupported(K op, ir::DType dtype) {
  if (dtype == ir::DType::kFloat32) return IsReduction(op);
  if (dtype != ir::DType::kInt32 && dtype != ir::DType::kUint32 &&
      dtype != ir::DType::kInt64 && dtype != ir::DType::kUint64) {
    return false;
  }
  return op == K::kReduceSum || op == K::kReduceMax || op == K::kReduceMin ||
         op == K::kReduceProduct || op == K::kReduceL1 ||
         op == K::kReduceSumSquare;
}

absl::StatusOr<std::vector<Dispatch>> PlanReduce(const OpIO& io) {
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  const int rank = static_cast<int>(in.size());
  std::vector<int64_t> all(rank);
  for (int d = 0; d < rank; ++d) all[d] = d;
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : io.attrs().GetInts("axes", all)) {
    if (axis < 0 || axis >= rank) {
      return absl::InvalidArgumentError(StrCat("axis ", axis, " out of range"));
    }
    reduced[axis] = true;
  }
  const std::vector<int64_t> strides = Strides(in);
  std::vector<int64_t> kept_shape, kept_stride, red_shape, red_stride;
  int64_t outputs = 1, count = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) {
      red_shape.push_back(in[d]);
      red_stride.push_back(strides[d]);
      count *= in[d];
    } else {
      kept_shape.push_back(in[d]);
      kept_stride.push_back(strides[d]);
      outputs *= in[d];
    }
  }
  // Neighbouring kept (or reduced) dimensions merged: the groups alternate,
  // so each has at most half of the rank rounded up (4 for rank 8), within
  // what reduce.comp takes; the error is a guard past rank 12.
  const Walk kept = FoldDims({kept_shape, {kept_stride}});
  const Walk red = FoldDims({red_shape, {red_stride}});
  if (static_cast<int>(kept.shape.size()) > kReduceGroupRank ||
      static_cast<int>(red.shape.size()) > kReduceGroupRank) {
    return absl::UnimplementedError(StrCat(
        "rank ", rank, " reduction (the vulkan backend takes up to ",
        kReduceGroupRank, " unmerged dimensions each kept and reduced)"));
  }
  const ir::DType dtype = io.in_types[0]->dtype;
  const uint32_t type = dtype == ir::DType::kInt32    ? 1
                        : dtype == ir::DType::kUint32 ? 2
                        : dtype == ir::DType::kInt64  ? 3
                        : dtype == ir::DType::kUint64 ? 4
                                                      : 0;
  // Short reductions: one invocation per output; longer ones: a workgroup.
  const bool serial = count <= kSerialReduction;
  Dispatch d;
  d.shader = &ReduceShader(io.subgroups && !serial);
  d.spec = {static_cast<uint32_t>(ReduceCode(io.node.op->kind)), type,
            serial ? 1u : 0u};
  d.bindings = {io.in[0], io.out[0]};
  d.push = {Word(outputs), Word(count),
            Word(static_cast<int64_t>(kept.shape.size())),
            Word(static_cast<int64_t>(red.shape.size()))};
  auto pad = [&](const std::vector<int64_t>& v, int64_t fill) {
    for (int k = 0; k < kReduceGroupRank; ++k) {
      d.push.push_back(Word(k < static_cast<int>(v.size()) ? v[k] : fill));
    }
  };
  pad(kept.shape, 1);
  pad(kept.strides[0], 0);
  pad(red.shape, 1);
  pad(red.strides[0], 0);
  d.groups[0] = serial ? GridGroups(outputs, 256, io.max_groups)
                       : static_cast<uint32_t>(std::min<int64_t>(
                             outputs, static_cast<int64_t>(io.max_groups)));
  return std::vector<Dispatch>{d};
}

absl::StatusOr<std::vector<Dispatch>> PlanArgReduce(const OpIO& io) {
  ASSIGN_OR_RETURN(AxisSplit s, SplitAt(io.in_types[0]->shape,
                                        io.attrs().GetInt("axis", -1)));
  const int64_t outputs = s.outer * s.inner;
  Dispatch d;
  d.shader = &ArgShader();
  uint32_t type = 0;
  switch (io.in_types[0]->dtype) {
    case ir::DType::kInt32:
      type = 1;
      break;
    case ir::DType::kUint32:
      type = 2;
      break;
    case ir::DType::kInt64:
      type = 3;
      break;
    case ir::DType::kUint64:
      type = 4;
      break;
    default:
      break;
  }
  d.spec = {io.node.op->kind == K::kArgMax ? 1u : 0u,
            io.out_types[0]->dtype == ir::DType::kInt64 ? 1u : 0u, type};
  d.bindings = {io.in[0], io.out[0]};
  d.push = {Word(outputs), Word(s.length), Word(s.inner)};
  d.groups[0] = GridGroups(outputs, 256, io.max_groups);
  return std::vector<Dispatch>{d};
}

absl::StatusOr<std::vector<Dispatch>> PlanSoftmax(const OpIO& io) {
  const int rank = static_cast<int>(io.in_types[0]->shape.size());
  ASSIGN_OR_RETURN(AxisSplit s, SplitAt(io.in_types[0]->shape,
                                        io.attrs().GetInt("axis", rank - 1)));
  const int64_t rows = s.outer * s.inner;
  const bool serial = s.length <= kSerialReduction;
  Dispatch d;
  d.shader = &SoftmaxShader(io.subgroups && !serial);
  d.spec = {serial ? 1u : 0u};
  d.bindings = {io.in[0], io.out[0]};
  d.push = {Word(rows), Word(s.length), Word(s.inner)};
  d.groups[0] = serial ? GridGroups(rows, 256, io.max_groups)
                       : static_cast<uint32_t>(std::min<int64_t>(
                             rows, static_cast<int64_t>(io.max_groups)));
  return std::vector<Dispatch>{d};
}

}  // namespace webnnm::backends::vulkan
