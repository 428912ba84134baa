#include "engine/ops/unary.h"

namespace webnnm::ops {

absl::StatusOr<Types> InferSameAsInput(const InferContext& c) {
  return Result(c, SameShape(c, 0, c.operand(0).dtype));
}

namespace {
absl::StatusOr<Types> InferPredicate(const InferContext& c) {
  return Result(c, SameShape(c, 0, DType::kUint8));
}
}  // namespace

ir::OpDef UnaryOp(ir::OpKind kind, const char* name, DTypeSet types) {
  return ir::OpDef{.kind = kind,
                   .name = name,
                   .category = ir::OpCategory::kElementwise,
                   .operands = {{.name = "input", .types = types}},
                   .infer = InferSameAsInput,
                   .shape_preserving = true};
}

ir::OpDef ActivationOp(ir::OpKind kind, const char* name, DTypeSet types,
                       ir::WeightInit init, std::vector<ir::AttrSpec> attrs) {
  ir::OpDef def = UnaryOp(kind, name, types);
  def.category = ir::OpCategory::kActivation;
  def.weight_init = init;
  def.attrs = std::move(attrs);
  return def;
}

ir::OpDef PredicateOp(ir::OpKind kind, const char* name) {
  ir::OpDef def = UnaryOp(kind, name, ir::kFloatTypes);
  def.category = ir::OpCategory::kComparison;
  def.infer = InferPredicate;
  return def;
}

}  // namespace webnnm::ops
