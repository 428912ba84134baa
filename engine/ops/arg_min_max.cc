#include "engine/ops/arg_min_max.h"

#include "engine/ops/reduce.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferArgReduce(const InferContext& c) {
  int rank = c.operand(0).rank();
  if (rank == 0) {
    return OperandError(0, StrCat(c.op.name,
                                  " needs an input of rank 1 or "
                                  "more"));
  }
  absl::StatusOr<int> axis = AxisAttr(c, "axis", -1, rank);
  if (!axis.ok()) return axis.status();
  absl::StatusOr<std::string> type = EnumAttr(c, "outputDataType", "int32");
  if (!type.ok()) return type.status();
  bool keep = c.attrs.GetBool("keepDimensions", false);
  return Result(
      c, ReducedType(c.operand(0), {*axis}, keep, *ir::ParseDType(*type)));
}

}  // namespace

ir::OpDef ArgReduceOp(ir::OpKind kind, const char* name) {
  return ir::OpDef{
      .kind = kind,
      .name = name,
      .category = ir::OpCategory::kReduction,
      .operands = {{.name = "input", .types = ir::kNumericTypes}},
      .attrs = {{.name = "axis", .kind = ir::AttrKind::kAxis, .required = true},
                {.name = "keepDimensions", .kind = ir::AttrKind::kBool},
                {.name = "outputDataType",
                 .kind = ir::AttrKind::kEnum,
                 .choices = {"int32", "int64"}}},
      .infer = InferArgReduce};
}

}  // namespace webnnm::ops
