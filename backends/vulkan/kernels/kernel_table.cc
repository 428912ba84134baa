// Which operations the Vulkan backend runs, on which types, and with which
// planner.
#include <algorithm>

#include "backends/vulkan/kernels/kernel.h"

namespace webnnm::backends::vulkan {

bool IsUnaryFloat(ir::OpKind op);
bool IsBinaryFloat(ir::OpKind op);
bool IsReduction(ir::OpKind op);
bool IsPredicate(ir::OpKind op);
bool CastSupported(ir::DType t);

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
  if (op == K::kBatchNormalization || op == K::kLayerNormalization ||
      op == K::kInstanceNormalization) {
    return PlanNorm;
  }
  if (op == K::kRandomUniform) return PlanRandom;
  if (op == K::kAveragePool2d || op == K::kMaxPool2d || op == K::kL2Pool2d) {
    return PlanPool;
  }
  return nullptr;
}

bool Supports(K op, ir::DType dtype) {
  if (FindPlanner(op) == nullptr) return false;
  if (IsMovement(op) || op == K::kWhere || op == K::kTile || op == K::kPad ||
      op == K::kTriangular || op == K::kGatherElements) {
    return FourBytes(dtype);
  }
  if (op == K::kGather) {
    return FourBytes(dtype) || dtype == ir::DType::kInt64 ||
           dtype == ir::DType::kUint64;
  }
  if (op == K::kCast) return CastSupported(dtype);
  if (op == K::kLogicalAnd || op == K::kLogicalOr || op == K::kLogicalXor ||
      op == K::kLogicalNot) {
    return dtype == ir::DType::kUint8;
  }
  if (op == K::kEqual || op == K::kNotEqual || op == K::kGreater ||
      op == K::kGreaterOrEqual || op == K::kLesser || op == K::kLesserOrEqual) {
    return FourBytes(dtype);
  }
  return dtype == ir::DType::kFloat32;
}

uint32_t GridGroups(int64_t n, uint32_t size, uint32_t max_groups) {
  int64_t groups = (n + size - 1) / size;
  return static_cast<uint32_t>(
      std::clamp<int64_t>(groups, 1, static_cast<int64_t>(max_groups)));
}

std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * shape[d + 1];
  }
  return strides;
}

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace webnnm::backends::vulkan
