// Which operations the Vulkan backend runs, on which types, and with which
// planner.
#include <algorithm>

#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {

bool IsUnaryFloat(ir::OpKind op);
bool IsBinaryFloat(ir::OpKind op);
bool IsReduction(ir::OpKind op);
bool ReductionSupported(ir::OpKind op, ir::DType dtype);
bool IsPredicate(ir::OpKind op);
bool CastSupported(ir::DType t);
bool QuantizeSupported(ir::OpKind op, ir::DType t);

namespace {

using K = ir::OpKind;

bool IsMovement(K op) {
  switch (op) {
    case K::kReshape:
    case K::kIdentity:
    case K::kTranspose:
    case K::kExpand:
    case K::kSlice:
    case K::kReverse:
    case K::kConcat:
    case K::kSplit:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool MovesBits(K op) {
  return IsMovement(op) || op == K::kWhere || op == K::kTile || op == K::kPad ||
         op == K::kTriangular || op == K::kGather || op == K::kGatherElements ||
         op == K::kGatherND || op == K::kScatterElements || op == K::kScatterND;
}

namespace {

bool FourBytes(ir::DType t) {
  return t == ir::DType::kFloat32 || t == ir::DType::kInt32 ||
         t == ir::DType::kUint32;
}

}  // namespace

Planner FindPlanner(K op) {
  if (IsMovement(op)) return PlanMovement;
  if (IsUnaryFloat(op)) return PlanUnary;
  if (IsBinaryFloat(op)) return PlanBinary;
  if (IsReduction(op)) return PlanReduce;
  if (op == K::kMatmul || op == K::kGemm) return PlanMatmul;
  if (op == K::kSoftmax) return PlanSoftmax;
  if (IsPredicate(op)) return PlanPredicate;
  if (op == K::kWhere) return PlanWhere;
  if (op == K::kCast) return PlanCast;
  if (op == K::kArgMax || op == K::kArgMin) return PlanArgReduce;
  if (op == K::kConv2d || op == K::kConvTranspose2d) return PlanConv;
  if (op == K::kGather) return PlanGather;
  if (op == K::kTile || op == K::kPad || op == K::kTriangular) {
    return PlanRemap;
  }
  if (op == K::kCumulativeSum) return PlanScan;
  if (op == K::kGatherElements) return PlanGatherElements;
  if (op == K::kGatherND) return PlanGatherNd;
  if (op == K::kScatterElements || op == K::kScatterND) return PlanScatter;
  if (op == K::kBatchNormalization || op == K::kLayerNormalization ||
      op == K::kInstanceNormalization) {
    return PlanNorm;
  }
  if (op == K::kRandomUniform) return PlanRandom;
  if (op == K::kResample2d) return PlanResample;
  if (op == K::kQuantizeLinear || op == K::kDequantizeLinear) {
    return PlanQuantize;
  }
  if (op == K::kAveragePool2d || op == K::kMaxPool2d || op == K::kL2Pool2d) {
    return PlanPool;
  }
  if (op == K::kMaxPool2dGradient) return PlanMaxPoolGradient;
  return nullptr;
}

bool Supports(K op, ir::DType dtype) {
  if (FindPlanner(op) == nullptr) return false;
  // Operations that copy bits: 32-bit elements as one word, 64-bit as two.
  if (IsMovement(op) || op == K::kWhere || op == K::kTile || op == K::kPad ||
      op == K::kTriangular || op == K::kGather || op == K::kGatherElements ||
      op == K::kGatherND || op == K::kScatterElements || op == K::kScatterND) {
    return FourBytes(dtype) || dtype == ir::DType::kInt64 ||
           dtype == ir::DType::kUint64;
  }
  if (op == K::kCast) return CastSupported(dtype);
  if (op == K::kMaxPool2d || op == K::kResample2d) {
    return dtype == ir::DType::kFloat32 || dtype == ir::DType::kInt32 ||
           dtype == ir::DType::kUint32;
  }
  if (op == K::kRandomUniform) {
    return dtype == ir::DType::kFloat32 || dtype == ir::DType::kFloat16;
  }
  if (op == K::kMaxPool2dGradient) return dtype == ir::DType::kFloat32;
  if (IsReduction(op)) return ReductionSupported(op, dtype);
  if (op == K::kArgMax || op == K::kArgMin || op == K::kCumulativeSum) {
    return dtype == ir::DType::kFloat32 || dtype == ir::DType::kInt32 ||
           dtype == ir::DType::kUint32 || dtype == ir::DType::kInt64 ||
           dtype == ir::DType::kUint64;
  }
  if (op == K::kQuantizeLinear || op == K::kDequantizeLinear) {
    return QuantizeSupported(op, dtype);
  }
  if (op == K::kLogicalAnd || op == K::kLogicalOr || op == K::kLogicalXor ||
      op == K::kLogicalNot) {
    return dtype == ir::DType::kUint8;
  }
  if (op == K::kEqual || op == K::kNotEqual || op == K::kGreater ||
      op == K::kGreaterOrEqual || op == K::kLesser || op == K::kLesserOrEqual) {
    return FourBytes(dtype) || dtype == ir::DType::kInt64 ||
           dtype == ir::DType::kUint64;
  }
  // Integer arithmetic (wrapping, as on the CPU) on 32- and 64-bit
  // integers.
  const bool integer =
      dtype == ir::DType::kInt32 || dtype == ir::DType::kUint32 ||
      dtype == ir::DType::kInt64 || dtype == ir::DType::kUint64;
  switch (op) {
    case K::kAdd:
    case K::kSub:
    case K::kMul:
    case K::kDiv:
    case K::kMax:
    case K::kMin:
    case K::kPow:
    case K::kPrelu:
    case K::kAbs:
    case K::kNeg:
    case K::kSign:
    case K::kRelu:
    case K::kClamp:
      return dtype == ir::DType::kFloat32 || integer;
    default:
      return dtype == ir::DType::kFloat32;
  }
}

uint32_t GridGroups(int64_t n, uint32_t size, uint32_t max_groups) {
  int64_t groups = (n + size - 1) / size;
  return static_cast<uint32_t>(
      std::clamp<int64_t>(groups, 1, static_cast<int64_t>(max_groups)));
}

absl::Status CheckRank(size_t rank, int most) {
  if (rank <= static_cast<size_t>(most)) return absl::OkStatus();
  return absl::UnimplementedError(
      StrCat("rank ", rank, " (the vulkan backend takes up to ", most, ")"));
}

Walk FoldDims(const Walk& walk) {
  Walk folded;
  folded.strides.resize(walk.strides.size());
  for (size_t d = 0; d < walk.shape.size(); ++d) {
    if (walk.shape[d] == 1) continue;
    bool merges = !folded.shape.empty();
    for (size_t t = 0; merges && t < walk.strides.size(); ++t) {
      merges = folded.strides[t].back() == walk.strides[t][d] * walk.shape[d];
    }
    if (merges) {
      folded.shape.back() *= walk.shape[d];
      for (size_t t = 0; t < walk.strides.size(); ++t) {
        folded.strides[t].back() = walk.strides[t][d];
      }
      continue;
    }
    folded.shape.push_back(walk.shape[d]);
    for (size_t t = 0; t < walk.strides.size(); ++t) {
      folded.strides[t].push_back(walk.strides[t][d]);
    }
  }
  return folded;
}

std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& out) {
  std::vector<int64_t> strides = backends::BroadcastStrides(shape, out);
  strides.resize(std::max<size_t>(strides.size(), kMaxRank), 0);
  return strides;
}

absl::StatusOr<uint32_t> IndexKind(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kInt32:
      return 0;
    case ir::DType::kUint32:
      return 1;
    case ir::DType::kInt64:
      return 2;
    case ir::DType::kUint64:
      return 3;
    default:
      return absl::UnimplementedError(
          StrCat("indices of type ", ir::DTypeName(dtype)));
  }
}

absl::StatusOr<AxisSplit> SplitAt(const std::vector<int64_t>& shape,
                                  int64_t axis) {
  const int rank = static_cast<int>(shape.size());
  if (axis < 0 || axis >= rank) {
    return absl::InvalidArgumentError(StrCat("axis ", axis, " out of range"));
  }
  AxisSplit s;
  for (int d = 0; d < axis; ++d) s.outer *= shape[d];
  s.length = shape[axis];
  for (int d = static_cast<int>(axis) + 1; d < rank; ++d) s.inner *= shape[d];
  return s;
}

}  // namespace webnnm::backends::vulkan
