// The table: each WebNN operation that has an ONNX form, and the ONNX
// operators it becomes (onnx_ops.h). What is not here is refused by the
// export naming the operation, its layer and line: the quantized
// operations (their blockwise scales), and the high-level and
// training-only operations
// the DAG has no more at export (attend, residual, embedding, dropout,
// randomUniform, maxPool2dGradient).
#include "engine/interop/onnx_ops.h"

#include <array>

#include "engine/interop/onnx_emitters.h"

namespace webnnm::interop {
namespace {

using ir::OpKind;

template <const char* Op>
absl::Status Same(OnnxWriter& w, const ir::Node& n) {
  return EmitSame(w, n, Op);
}
template <const char* Op>
absl::Status Compare(OnnxWriter& w, const ir::Node& n) {
  return EmitCompare(w, n, Op);
}
template <const char* Op>
absl::Status Logical(OnnxWriter& w, const ir::Node& n) {
  return EmitLogical(w, n, Op);
}
template <const char* Op>
absl::Status Reduce(OnnxWriter& w, const ir::Node& n) {
  return EmitReduce(w, n, Op);
}
template <const char* Op>
absl::Status Pool(OnnxWriter& w, const ir::Node& n) {
  return EmitPool(w, n, Op);
}
template <const char* Op>
absl::Status Softmax(OnnxWriter& w, const ir::Node& n) {
  return EmitSoftmax(w, n, Op);
}
template <const char* Op>
absl::Status Arg(OnnxWriter& w, const ir::Node& n) {
  return EmitArgMinMax(w, n, Op);
}

#define ONNX_NAME(id) constexpr char k##id[] = #id;
ONNX_NAME(Abs)
ONNX_NAME(Add)
ONNX_NAME(And)
ONNX_NAME(ArgMax)
ONNX_NAME(ArgMin)
ONNX_NAME(AveragePool)
ONNX_NAME(Ceil)
ONNX_NAME(Cos)
ONNX_NAME(Div)
ONNX_NAME(Equal)
ONNX_NAME(Erf)
ONNX_NAME(Exp)
ONNX_NAME(Floor)
ONNX_NAME(Greater)
ONNX_NAME(GreaterOrEqual)
ONNX_NAME(HardSwish)
ONNX_NAME(Identity)
ONNX_NAME(Less)
ONNX_NAME(LessOrEqual)
ONNX_NAME(Log)
ONNX_NAME(LogSoftmax)
ONNX_NAME(LpPool)
ONNX_NAME(Max)
ONNX_NAME(MaxPool)
ONNX_NAME(Min)
ONNX_NAME(Mul)
ONNX_NAME(Neg)
ONNX_NAME(Not)
ONNX_NAME(Or)
ONNX_NAME(Pow)
ONNX_NAME(Reciprocal)
ONNX_NAME(ReduceL1)
ONNX_NAME(ReduceL2)
ONNX_NAME(ReduceLogSum)
ONNX_NAME(ReduceLogSumExp)
ONNX_NAME(ReduceMax)
ONNX_NAME(ReduceMean)
ONNX_NAME(ReduceMin)
ONNX_NAME(ReduceProd)
ONNX_NAME(ReduceSum)
ONNX_NAME(ReduceSumSquare)
ONNX_NAME(Relu)
ONNX_NAME(Round)
ONNX_NAME(Sigmoid)
ONNX_NAME(Sign)
ONNX_NAME(Sin)
ONNX_NAME(Softmax)
ONNX_NAME(Softplus)
ONNX_NAME(Softsign)
ONNX_NAME(Sqrt)
ONNX_NAME(Sub)
ONNX_NAME(Tan)
ONNX_NAME(Tanh)
ONNX_NAME(Xor)
#undef ONNX_NAME

absl::Status LogicalNot(OnnxWriter& w, const ir::Node& n) {
  return EmitLogical(w, n, kNot);
}

const std::vector<OnnxMapping>& Table() {
  static const std::vector<OnnxMapping> table = {
      {OpKind::kAbs, Same<kAbs>, "Abs"},
      {OpKind::kAdd, Same<kAdd>, "Add"},
      {OpKind::kArgMax, Arg<kArgMax>, "ArgMax (+ Cast)"},
      {OpKind::kArgMin, Arg<kArgMin>, "ArgMin (+ Cast)"},
      {OpKind::kAveragePool2d, Pool<kAveragePool>,
       "AveragePool (count_include_pad 0)"},
      {OpKind::kBatchNormalization, EmitBatchNormalization,
       "Sub, Div, Sqrt, Mul, Add"},
      {OpKind::kCast, EmitCast, "Cast"},
      {OpKind::kCeil, Same<kCeil>, "Ceil"},
      {OpKind::kClamp, EmitClamp, "Clip"},
      {OpKind::kConcat, EmitConcat, "Concat"},
      {OpKind::kConv2d, EmitConv2d, "Conv (+ Transpose for nhwc, hwio...)"},
      {OpKind::kConvTranspose2d, EmitConvTranspose2d,
       "ConvTranspose (output_padding from the output's size)"},
      {OpKind::kCos, Same<kCos>, "Cos"},
      {OpKind::kCumulativeSum, EmitCumulativeSum, "CumSum"},
      {OpKind::kDiv, Same<kDiv>, "Div"},
      {OpKind::kElu, EmitElu, "Elu"},
      {OpKind::kEqual, Compare<kEqual>, "Equal + Cast"},
      {OpKind::kErf, Same<kErf>, "Erf"},
      {OpKind::kExp, Same<kExp>, "Exp"},
      {OpKind::kExpand, EmitExpand, "Expand"},
      {OpKind::kFloor, Same<kFloor>, "Floor"},
      {OpKind::kGather, EmitGather, "Gather (indices clamped)"},
      {OpKind::kGatherElements, EmitGatherElements,
       "GatherElements (indices clamped)"},
      {OpKind::kGatherND, EmitGatherND, "GatherND (indices clamped)"},
      {OpKind::kGelu, EmitGelu, "Mul, Erf, Add (opset 17 has no Gelu)"},
      {OpKind::kGemm, EmitGemm, "Gemm"},
      {OpKind::kGreater, Compare<kGreater>, "Greater + Cast"},
      {OpKind::kGruCell, EmitGruCell, "GRU over one step (Unsqueeze, Squeeze)"},
      {OpKind::kGru, EmitGru,
       "GRU (linear_before_reset from resetAfter; rzn reordered)"},
      {OpKind::kGreaterOrEqual, Compare<kGreaterOrEqual>,
       "GreaterOrEqual + Cast"},
      {OpKind::kHardSigmoid, EmitHardSigmoid, "HardSigmoid"},
      {OpKind::kHardSwish, Same<kHardSwish>, "HardSwish"},
      {OpKind::kIdentity, Same<kIdentity>, "Identity"},
      {OpKind::kInstanceNormalization, EmitInstanceNormalization,
       "InstanceNormalization"},
      {OpKind::kIsInfinite, EmitIsInfinite, "IsInf + Cast (float16 cast up)"},
      {OpKind::kIsNaN, EmitIsNaN, "IsNaN + Cast"},
      {OpKind::kL2Pool2d, Pool<kLpPool>, "LpPool (p 2)"},
      {OpKind::kLayerNormalization, EmitLayerNormalization,
       "LayerNormalization (trailing axes), else ReduceMean..."},
      {OpKind::kLeakyRelu, EmitLeakyRelu, "LeakyRelu"},
      {OpKind::kLesser, Compare<kLess>, "Less + Cast"},
      {OpKind::kLesserOrEqual, Compare<kLessOrEqual>, "LessOrEqual + Cast"},
      {OpKind::kLinear, EmitLinear, "Mul, Add"},
      {OpKind::kLog, Same<kLog>, "Log"},
      {OpKind::kLogicalAnd, Logical<kAnd>, "And"},
      {OpKind::kLogicalNot, LogicalNot, "Not"},
      {OpKind::kLogicalOr, Logical<kOr>, "Or"},
      {OpKind::kLogicalXor, Logical<kXor>, "Xor"},
      {OpKind::kLstmCell, EmitLstmCell,
       "LSTM over one step (Unsqueeze, Squeeze)"},
      {OpKind::kLstm, EmitLstm, "LSTM (peepholes as P; ifgo reordered)"},
      {OpKind::kMatmul, EmitMatmul, "MatMul"},
      {OpKind::kMax, Same<kMax>, "Max"},
      {OpKind::kMaxPool2d, Pool<kMaxPool>, "MaxPool"},
      {OpKind::kMin, Same<kMin>, "Min"},
      {OpKind::kMul, Same<kMul>, "Mul"},
      {OpKind::kNeg, Same<kNeg>, "Neg"},
      {OpKind::kNotEqual, EmitNotEqual, "Equal, Not + Cast"},
      {OpKind::kPad, EmitPad, "Pad"},
      {OpKind::kPow, Same<kPow>, "Pow"},
      {OpKind::kPrelu, EmitPrelu, "PRelu"},
      {OpKind::kReciprocal, Same<kReciprocal>, "Reciprocal"},
      {OpKind::kReduceL1, Reduce<kReduceL1>, "ReduceL1"},
      {OpKind::kReduceL2, Reduce<kReduceL2>, "ReduceL2"},
      {OpKind::kReduceLogSum, Reduce<kReduceLogSum>, "ReduceLogSum"},
      {OpKind::kReduceLogSumExp, Reduce<kReduceLogSumExp>, "ReduceLogSumExp"},
      {OpKind::kReduceMax, Reduce<kReduceMax>, "ReduceMax"},
      {OpKind::kReduceMean, Reduce<kReduceMean>, "ReduceMean"},
      {OpKind::kReduceMin, Reduce<kReduceMin>, "ReduceMin"},
      {OpKind::kReduceProduct, Reduce<kReduceProd>, "ReduceProd"},
      {OpKind::kReduceSum, Reduce<kReduceSum>, "ReduceSum"},
      {OpKind::kReduceSumSquare, Reduce<kReduceSumSquare>, "ReduceSumSquare"},
      {OpKind::kReduceVariance, EmitReduceVariance, "ReduceMean, Sub, Mul"},
      {OpKind::kRelu, Same<kRelu>, "Relu"},
      {OpKind::kResample2d, EmitResample2d,
       "Resize (half_pixel, round_prefer_floor, sizes)"},
      {OpKind::kReshape, EmitReshape, "Reshape"},
      {OpKind::kReverse, EmitReverse, "Slice (steps -1)"},
      {OpKind::kRoundEven, Same<kRound>, "Round"},
      {OpKind::kScatterElements, EmitScatterElements,
       "ScatterElements (indices clamped)"},
      {OpKind::kScatterND, EmitScatterND, "ScatterND (indices clamped)"},
      {OpKind::kSigmoid, Same<kSigmoid>, "Sigmoid"},
      {OpKind::kSign, Same<kSign>, "Sign"},
      {OpKind::kSin, Same<kSin>, "Sin"},
      {OpKind::kSlice, EmitSlice, "Slice"},
      {OpKind::kSoftmax, Softmax<kSoftmax>, "Softmax"},
      {OpKind::kLogSoftmax, Softmax<kLogSoftmax>, "LogSoftmax"},
      {OpKind::kSoftplus, Same<kSoftplus>, "Softplus"},
      {OpKind::kSoftsign, Same<kSoftsign>, "Softsign"},
      {OpKind::kSplit, EmitSplit, "Split"},
      {OpKind::kSqrt, Same<kSqrt>, "Sqrt"},
      {OpKind::kSub, Same<kSub>, "Sub"},
      {OpKind::kTan, Same<kTan>, "Tan"},
      {OpKind::kTanh, Same<kTanh>, "Tanh"},
      {OpKind::kTile, EmitTile, "Tile"},
      {OpKind::kTranspose, EmitTranspose, "Transpose"},
      {OpKind::kTriangular, EmitTriangular, "Trilu"},
      {OpKind::kWhere, EmitWhere, "Where"},
  };
  return table;
}

}  // namespace

const std::vector<OnnxMapping>& OnnxMappings() { return Table(); }

const OnnxMapping* FindOnnxMapping(ir::OpKind kind) {
  static const auto index = [] {
    std::array<const OnnxMapping*, static_cast<size_t>(OpKind::kCount)> a{};
    for (const OnnxMapping& m : Table()) a[static_cast<size_t>(m.kind)] = &m;
    return a;
  }();
  return index[static_cast<size_t>(kind)];
}

}  // namespace webnnm::interop
