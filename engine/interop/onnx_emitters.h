// The operator table's entries (onnx_ops.cc), by family: element-wise
// (onnx_ops_elementwise.cc), tensor movement (onnx_ops_tensor.cc), and
// networks' operations (onnx_ops_nn.cc). Each writes one WebNN operation
// as ONNX nodes (OnnxEmitter's contract).
#ifndef WEBNNM_ENGINE_INTEROP_ONNX_EMITTERS_H_
#define WEBNNM_ENGINE_INTEROP_ONNX_EMITTERS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/interop/onnx_writer.h"

namespace webnnm::interop {

// Element-wise: one ONNX operator of the same operands, its result as is
// (Unary/Binary of op_type), or a truth value cast back to uint8 (Compare),
// or uint8 truth operands cast to bool first (Logical).
absl::Status EmitSame(OnnxWriter& w, const ir::Node& node, const char* op);
absl::Status EmitCompare(OnnxWriter& w, const ir::Node& node, const char* op);
absl::Status EmitLogical(OnnxWriter& w, const ir::Node& node, const char* op);
absl::Status EmitNotEqual(OnnxWriter& w, const ir::Node& node);
absl::Status EmitIsNaN(OnnxWriter& w, const ir::Node& node);
absl::Status EmitIsInfinite(OnnxWriter& w, const ir::Node& node);
absl::Status EmitClamp(OnnxWriter& w, const ir::Node& node);
absl::Status EmitLeakyRelu(OnnxWriter& w, const ir::Node& node);
absl::Status EmitElu(OnnxWriter& w, const ir::Node& node);
absl::Status EmitHardSigmoid(OnnxWriter& w, const ir::Node& node);
absl::Status EmitLinear(OnnxWriter& w, const ir::Node& node);
absl::Status EmitGelu(OnnxWriter& w, const ir::Node& node);
absl::Status EmitWhere(OnnxWriter& w, const ir::Node& node);
absl::Status EmitCast(OnnxWriter& w, const ir::Node& node);

// Tensor movement.
absl::Status EmitReshape(OnnxWriter& w, const ir::Node& node);
absl::Status EmitTranspose(OnnxWriter& w, const ir::Node& node);
absl::Status EmitConcat(OnnxWriter& w, const ir::Node& node);
absl::Status EmitSlice(OnnxWriter& w, const ir::Node& node);
absl::Status EmitSplit(OnnxWriter& w, const ir::Node& node);
absl::Status EmitPad(OnnxWriter& w, const ir::Node& node);
absl::Status EmitExpand(OnnxWriter& w, const ir::Node& node);
absl::Status EmitTile(OnnxWriter& w, const ir::Node& node);
absl::Status EmitReverse(OnnxWriter& w, const ir::Node& node);
absl::Status EmitGather(OnnxWriter& w, const ir::Node& node);
absl::Status EmitGatherElements(OnnxWriter& w, const ir::Node& node);
absl::Status EmitGatherND(OnnxWriter& w, const ir::Node& node);
absl::Status EmitScatterElements(OnnxWriter& w, const ir::Node& node);
absl::Status EmitScatterND(OnnxWriter& w, const ir::Node& node);
absl::Status EmitTriangular(OnnxWriter& w, const ir::Node& node);
absl::Status EmitCumulativeSum(OnnxWriter& w, const ir::Node& node);
absl::Status EmitArgMinMax(OnnxWriter& w, const ir::Node& node, const char* op);

// Networks' operations.
absl::Status EmitMatmul(OnnxWriter& w, const ir::Node& node);
absl::Status EmitGemm(OnnxWriter& w, const ir::Node& node);
absl::Status EmitSoftmax(OnnxWriter& w, const ir::Node& node, const char* op);
absl::Status EmitReduce(OnnxWriter& w, const ir::Node& node, const char* op);
absl::Status EmitReduceVariance(OnnxWriter& w, const ir::Node& node);
absl::Status EmitConv2d(OnnxWriter& w, const ir::Node& node);
absl::Status EmitConvTranspose2d(OnnxWriter& w, const ir::Node& node);
absl::Status EmitResample2d(OnnxWriter& w, const ir::Node& node);
absl::Status EmitPool(OnnxWriter& w, const ir::Node& node, const char* op);
absl::Status EmitLayerNormalization(OnnxWriter& w, const ir::Node& node);
absl::Status EmitBatchNormalization(OnnxWriter& w, const ir::Node& node);
absl::Status EmitInstanceNormalization(OnnxWriter& w, const ir::Node& node);
absl::Status EmitPrelu(OnnxWriter& w, const ir::Node& node);

// Recurrent layers (onnx_ops_recurrent.cc).
absl::Status EmitLstm(OnnxWriter& w, const ir::Node& node);
absl::Status EmitGru(OnnxWriter& w, const ir::Node& node);
absl::Status EmitLstmCell(OnnxWriter& w, const ir::Node& node);
absl::Status EmitGruCell(OnnxWriter& w, const ir::Node& node);

// Shared: the reduced axes of a node (its "axes", else `fallback`; every
// axis when `fallback` is empty and the node has none: all of `rank`).
std::vector<int64_t> AxesOf(const ir::Node& node, int rank,
                            std::vector<int64_t> fallback = {});
// A Transpose of `x` by `perm`.
std::string Transposed(OnnxWriter& w, const std::string& x,
                       const std::vector<int64_t>& perm);
// `x` (with `rank` dimensions) as a tensor that broadcasts along `axes` of
// a tensor of `target_rank`: a Reshape to 1s everywhere else.
std::string AlongAxes(OnnxWriter& w, const std::string& x,
                      const ir::TensorType& type,
                      const std::vector<int64_t>& axes, int target_rank);

}  // namespace webnnm::interop

#endif  // WEBNNM_ENGINE_INTEROP_ONNX_EMITTERS_H_
