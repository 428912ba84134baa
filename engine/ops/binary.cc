#include "engine/ops/binary.h"

#include "engine/base/status_macros.h"

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

absl::Status ExtremeBinaryGradient(ir::GradientBuilder& g, ir::OpKind wins) {
  ir::ValueId a = g.x(0), b = g.x(1);
  ASSIGN_OR_RETURN(ir::ValueId half, g.MulScalar(g.dy(), 0.5));
  ASSIGN_OR_RETURN(ir::ValueId tie, g.Op(ir::OpKind::kEqual, {a, b}));
  ASSIGN_OR_RETURN(ir::ValueId shared, g.WhereOrZero(tie, half));
  if (g.wants(0)) {
    ASSIGN_OR_RETURN(ir::ValueId first, g.Op(wins, {a, b}));
    RETURN_IF_ERROR(g.Set(0, g.Where(first, g.dy(), shared)));
  }
  if (g.wants(1)) {
    ASSIGN_OR_RETURN(ir::ValueId second, g.Op(wins, {b, a}));
    RETURN_IF_ERROR(g.Set(1, g.Where(second, g.dy(), shared)));
  }
  return absl::OkStatus();
}

}  // namespace webnnm::ops
