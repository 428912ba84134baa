// gather: picks whole slices of the input along `axis` at `indices`.
// Operands: input (any type), indices (int32, uint32, int64; values in
// [-N, N) for N the size of `axis`; out-of-range values are clamped as the
// WebNN vectors expect). Option: axis (default 0; the model language
// defaults to the first feature dimension).
// Result: input[:axis] + indices.shape + input[axis+1:], the input's type.
#include "engine/ops/rules.h"

namespace webnnm::ops {
namespace {

absl::StatusOr<Types> InferGather(const InferContext& c) {
  const TensorType& input = c.operand(0);
  const TensorType& indices = c.operand(1);
  if (input.rank() == 0) {
    return OperandError(0, "gather needs an input of rank 1 or more");
  }
  absl::StatusOr<int> axis = AxisAttr(c, "axis", 0, input.rank());
  if (!axis.ok()) return axis.status();
  TensorType out;
  out.dtype = input.dtype;
  bool names = input.has_names();
  for (int i = 0; i < *axis; ++i) {
    out.shape.push_back(input.shape[i]);
    if (names) out.names.push_back(input.names[i]);
  }
  for (int i = 0; i < indices.rank(); ++i) {
    out.shape.push_back(indices.shape[i]);
    if (names) {
      out.names.push_back(
          indices.has_names()
              ? indices.names[i]
              : (indices.rank() == 1 ? "indices" : StrCat("indices", i)));
    }
  }
  for (int i = *axis + 1; i < input.rank(); ++i) {
    out.shape.push_back(input.shape[i]);
    if (names) out.names.push_back(input.names[i]);
  }
  return Result(c, std::move(out));
}

}  // namespace

const ir::OpDef& GatherOp() {
  static const ir::OpDef def{
      .kind = ir::OpKind::kGather,
      .name = "gather",
      .category = ir::OpCategory::kMovement,
      .operands = {{.name = "input"},
                   {.name = "indices",
                    .types = ir::kIndexTypes,
                    .in_type_group = false}},
      .attrs = {{.name = "axis",
                 .kind = ir::AttrKind::kAxis,
                 .language_default = ir::LanguageDefault::kFirstFeatureAxis}},
      .infer = InferGather};
  return def;
}

}  // namespace webnnm::ops
