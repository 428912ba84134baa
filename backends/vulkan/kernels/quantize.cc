// quantizeLinear and dequantizeLinear (quantize.comp), with the CPU
// backend's blockwise broadcast of scale and zeroPoint (BlockLayout).
#include "backends/vulkan/kernels/kernel.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::backends::vulkan {
namespace {

absl::StatusOr<uint32_t> QuantizedCode(ir::DType t) {
  switch (t) {
    case ir::DType::kInt8:
      return 0;
    case ir::DType::kUint8:
      return 1;
    case ir::DType::kInt32:
      return 2;
    case ir::DType::kInt4:
      return 3;
    case ir::DType::kUint4:
      return 4;
    case ir::DType::kUint32:
      return 5;
    default:
      return absl::UnimplementedError(
          StrCat("quantized type ", ir::DTypeName(t)));
  }
}

}  // namespace

bool QuantizeSupported(ir::OpKind op, ir::DType t) {
  if (op == ir::OpKind::kQuantizeLinear) {
    return t == ir::DType::kFloat32 || t == ir::DType::kFloat16;
  }
  return QuantizedCode(t).ok();
}

absl::StatusOr<std::vector<Dispatch>> PlanQuantize(const OpIO& io) {
  const bool dequantize = io.node.op->kind == ir::OpKind::kDequantizeLinear;
  if (io.in_types.size() < 3 || io.in_types[1] == nullptr ||
      io.in_types[2] == nullptr) {
    return absl::InvalidArgumentError("needs scale and zeroPoint");
  }
  const std::vector<int64_t>& in = io.in_types[0]->shape;
  RETURN_IF_ERROR(CheckRank(in.size()));
  const int rank = static_cast<int>(in.size());
  ASSIGN_OR_RETURN(BlockLayout layout,
                   MakeBlockLayout(in, io.in_types[1]->shape));
  const std::vector<int64_t>& block = layout.block;
  const std::vector<int64_t>& pstride = layout.pstride;
  const ir::DType qtype =
      dequantize ? io.in_types[0]->dtype : io.in_types[2]->dtype;
  ASSIGN_OR_RETURN(uint32_t code, QuantizedCode(qtype));
  const bool half = io.in_types[1]->dtype == ir::DType::kFloat16;
  const int64_t n = Count(in);
  Dispatch d;
  d.shader = &QuantizeShader();
  d.spec = {dequantize ? 1u : 0u, code, half ? 1u : 0u};
  d.bindings = {io.in[0], io.in[1], io.in[2], io.out[0]};
  d.push = {Word(n), Word(int64_t{rank})};
  for (int k = 0; k < kMaxRank; ++k)
    d.push.push_back(Word(k < rank ? in[k] : 1));
  for (int k = 0; k < kMaxRank; ++k) {
    d.push.push_back(Word(k < rank ? block[k] : 1));
  }
  for (int k = 0; k < kMaxRank; ++k) {
    d.push.push_back(Word(k < rank ? pstride[k] : 0));
  }
  d.groups[0] = GridGroups(n, 256, io.max_groups);
  return std::vector<Dispatch>{std::move(d)};
}

}  // namespace webnnm::backends::vulkan
