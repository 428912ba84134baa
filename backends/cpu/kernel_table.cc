// Which factory makes the kernel of each operation.
#include "backends/cpu/kernel.h"
#include "backends/cpu/kernels/factories.h"

namespace webnnm::backends::cpu {
namespace {

// The helpers WebNN lacks (internal operations).
KernelFactory FindInternalKernel(ir::OpKind op) {
  switch (op) {
    case ir::OpKind::kRandomUniform:
      return MakeRandomUniformKernel;
    case ir::OpKind::kMaxPool2dGradient:
      return MakeMaxPoolGradientKernel;
    default:
      return nullptr;
  }
}

}  // namespace

KernelFactory FindKernel(ir::OpKind op) {
  using K = ir::OpKind;
  switch (op) {
    case K::kAbs:
    case K::kCeil:
    case K::kFloor:
    case K::kRoundEven:
    case K::kCos:
    case K::kSin:
    case K::kTan:
    case K::kErf:
    case K::kExp:
    case K::kLog:
    case K::kReciprocal:
    case K::kSqrt:
    case K::kNeg:
    case K::kSign:
    case K::kIdentity:
    case K::kIsNaN:
    case K::kIsInfinite:
    case K::kLogicalNot:
    case K::kRelu:
    case K::kSigmoid:
    case K::kTanh:
    case K::kSoftplus:
    case K::kSoftsign:
    case K::kGelu:
    case K::kHardSwish:
    case K::kHardSigmoid:
    case K::kElu:
    case K::kLeakyRelu:
    case K::kLinear:
      return MakeUnaryKernel;
    case K::kClamp:
      return MakeClampKernel;
    case K::kAdd:
    case K::kSub:
    case K::kMul:
    case K::kDiv:
    case K::kMax:
    case K::kMin:
    case K::kPow:
    case K::kEqual:
    case K::kNotEqual:
    case K::kGreater:
    case K::kGreaterOrEqual:
    case K::kLesser:
    case K::kLesserOrEqual:
    case K::kLogicalAnd:
    case K::kLogicalOr:
    case K::kLogicalXor:
    case K::kPrelu:
      return MakeBinaryKernel;
    case K::kWhere:
      return MakeWhereKernel;
    case K::kCast:
      return MakeCastKernel;
    case K::kQuantizeLinear:
      return MakeQuantizeKernel;
    case K::kDequantizeLinear:
      return MakeDequantizeKernel;
    case K::kReduceL1:
    case K::kReduceL2:
    case K::kReduceLogSum:
    case K::kReduceLogSumExp:
    case K::kReduceMax:
    case K::kReduceMean:
    case K::kReduceMin:
    case K::kReduceProduct:
    case K::kReduceSum:
    case K::kReduceSumSquare:
      return MakeReduceKernel;
    case K::kArgMax:
    case K::kArgMin:
      return MakeArgReduceKernel;
    case K::kCumulativeSum:
      return MakeCumulativeSumKernel;
    case K::kReshape:
      return MakeCopyKernel;
    case K::kExpand:
      return MakeExpandKernel;
    case K::kTranspose:
      return MakeTransposeKernel;
    case K::kTile:
      return MakeTileKernel;
    case K::kReverse:
      return MakeReverseKernel;
    case K::kTriangular:
      return MakeTriangularKernel;
    case K::kSlice:
      return MakeSliceKernel;
    case K::kPad:
      return MakePadKernel;
    case K::kConcat:
      return MakeConcatKernel;
    case K::kSplit:
      return MakeSplitKernel;
    case K::kGather:
      return MakeGatherKernel;
    case K::kGatherElements:
      return MakeGatherElementsKernel;
    case K::kGatherND:
      return MakeGatherNDKernel;
    case K::kScatterElements:
      return MakeScatterElementsKernel;
    case K::kScatterND:
      return MakeScatterNDKernel;
    case K::kMatmul:
      return MakeMatmulKernel;
    case K::kGemm:
      return MakeGemmKernel;
    case K::kConv2d:
      return MakeConv2dKernel;
    case K::kConvTranspose2d:
      return MakeConvTranspose2dKernel;
    case K::kAveragePool2d:
    case K::kL2Pool2d:
    case K::kMaxPool2d:
      return MakePoolKernel;
    case K::kSoftmax:
      return MakeSoftmaxKernel;
    case K::kBatchNormalization:
      return MakeBatchNormalizationKernel;
    case K::kInstanceNormalization:
      return MakeInstanceNormalizationKernel;
    case K::kLayerNormalization:
      return MakeLayerNormalizationKernel;
    case K::kResample2d:
      return MakeResample2dKernel;
    case K::kGru:
    case K::kGruCell:
      return MakeGruKernel;
    case K::kLstm:
    case K::kLstmCell:
      return MakeLstmKernel;
    case K::kRandomUniform:
    case K::kMaxPool2dGradient:
      return FindInternalKernel(op);
    // High-level operations are decomposed before a graph reaches a backend.
    case K::kResidual:
    case K::kAttend:
    case K::kDropout:
    case K::kReduceVariance:
    case K::kLogSoftmax:
    case K::kEmbedding:
    case K::kCount:
      return nullptr;
  }
  return nullptr;
}

}  // namespace webnnm::backends::cpu
