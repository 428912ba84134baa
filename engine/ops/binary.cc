#include "engine/ops/binary.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferArithmetic(const InferContext& c) {
  absl::StatusOr<TensorType> out = Broadcast(c, 0, 1, c.operand(0).dtype);
  if (!out.ok()) return out.status();
  return Result(c, *std::move(out));
}

absl::StatusOr<Types> InferUint8Result(const InferContext& c) {
  absl::StatusOr<TensorType> out = Broadcast(c, 0, 1, DType::kUint8);
  if (!out.ok()) return out.status();
  return Result(c, *std::move(out));
}

}  // namespace

ir::OpDef ArithmeticOp(ir::OpKind kind, const char* name, ir::ParamRole role) {
  return ir::OpDef{
      .kind = kind,
      .name = name,
      .category = ir::OpCategory::kElementwise,
      .operands = {{.name = "a", .types = ir::kNumericTypes},
                   {.name = "b", .types = ir::kNumericTypes, .param = role}},
      .infer = InferArithmetic,
      .shape_preserving = true};
}

ir::OpDef ComparisonOp(ir::OpKind kind, const char* name) {
  return ir::OpDef{.kind = kind,
                   .name = name,
                   .category = ir::OpCategory::kComparison,
                   .operands = {{.name = "a", .types = ir::kNumericTypes},
                                {.name = "b", .types = ir::kNumericTypes}},
                   .infer = InferUint8Result};
}

ir::OpDef LogicalOp(ir::OpKind kind, const char* name) {
  return ir::OpDef{.kind = kind,
                   .name = name,
                   .category = ir::OpCategory::kLogical,
                   .operands = {{.name = "a", .types = {DType::kUint8}},
                                {.name = "b", .types = {DType::kUint8}}},
                   .infer = InferUint8Result};
}

}  // namespace webnnm::ops
