// Compute types (lazy up-casting): the operands of an operation's type group
// share one data type, the most precise of theirs (or dataType= when the
// layer gives one). Literals and new parameters take that type; other
// operands are cast up to it. Integer data needing a float operation goes to
// float32 (float16 cannot hold every int32). An operation that overflows
// float16 easily computes float16 data in float32 (widened) unless the
// layer's dataType= says float16.
#include "absl/strings/str_join.h"
#include "engine/base/strings.h"
#include "engine/dag/builder.h"

namespace webnnm::dag {
namespace {

// The least precise type in `allowed` at least as precise as `type`;
// integers move to float32 when no integer type fits.
std::optional<ir::DType> Promote(ir::DType type, ir::DTypeSet allowed) {
  if (allowed.Contains(type)) return type;
  std::optional<ir::DType> best;
  for (ir::DType candidate : allowed.Members()) {
    if (ir::Precision(candidate) < ir::Precision(type)) continue;
    if (!ir::IsFloat(type) && ir::IsFloat(candidate) &&
        candidate != ir::DType::kFloat32) {
      continue;  // int -> float16 would lose integers
    }
    if (!best || ir::Precision(candidate) < ir::Precision(*best)) {
      best = candidate;
    }
  }
  return best;
}

bool IsIntegral(const lang::Value& literal) {
  bool integral = true;
  std::vector<const lang::Value*> stack = {&literal};
  while (!stack.empty()) {
    const lang::Value* v = stack.back();
    stack.pop_back();
    if (v->is_number()) integral &= v->integral;
    for (const lang::Value& item : v->items) stack.push_back(&item);
  }
  return integral;
}

// The first type of `allowed` a literal of these numbers can take.
ir::DType LiteralType(const lang::Value& literal, ir::DTypeSet allowed) {
  if (!IsIntegral(literal) && allowed.Contains(ir::DType::kFloat32)) {
    return ir::DType::kFloat32;
  }
  if (allowed.Contains(ir::DType::kInt32)) return ir::DType::kInt32;
  return allowed.Members().empty() ? ir::DType::kFloat32
                                   : allowed.Members().front();
}

}  // namespace

bool DagBuilder::ResolveTypes(const model::Layer& layer,
                              std::vector<ir::ValueId>& operands,
                              bool& widened) {
  widened = false;
  const ir::OpDef& op = *layer.op;
  auto spec_of = [&](size_t slot) -> const ir::OperandSpec& {
    return op.operands[op.variadic() ? 0 : slot];
  };
  // What the typed members of the group ask for.
  std::optional<ir::DType> widest;
  bool wants_float = false;  // a non-integer literal or a new parameter
  ir::DTypeSet allowed;
  for (size_t slot = 0; slot < operands.size(); ++slot) {
    ir::ValueId v = operands[slot];
    if (v == ir::kNoValue || !spec_of(slot).in_type_group) continue;
    allowed = spec_of(slot).types;
    if (IsPendingLiteral(v)) {
      wants_float |= !IsIntegral(pending_literals_[v]);
      continue;
    }
    if (IsUnshapedParameter(v)) {
      wants_float = true;
      continue;
    }
    ir::DType t = graph_.value(v).type.dtype;
    widest = widest ? ir::MorePrecise(*widest, t) : t;
  }
  if (allowed.empty()) {
    for (size_t slot = 0; slot < op.operands.size(); ++slot) {
      if (op.operands[slot].in_type_group) allowed = op.operands[slot].types;
    }
  }
  ir::DType compute = widest.value_or(ir::DType::kFloat32);
  if (wants_float && !ir::IsFloat(compute)) compute = ir::DType::kFloat32;
  bool explicit_type =
      layer.data_type.has_value() && op.kind != ir::OpKind::kCast;
  if (explicit_type) {
    compute = *layer.data_type;
    if (!allowed.Contains(compute)) {
      diagnostics_.Error(
          layer.data_type_range,
          StrCat(op.name, " cannot compute in ", ir::DTypeName(compute),
                 "; it takes ", allowed.ToString(), layer.context));
      return false;
    }
  } else {
    std::optional<ir::DType> promoted = Promote(compute, allowed);
    if (!promoted) {
      diagnostics_.Error(
          layer.op_range,
          StrCat(op.name, " takes ", allowed.ToString(), " but its input is ",
                 ir::DTypeName(compute),
                 "; an implicit cast never lowers precision, so cast it first "
                 "(cast(dataType=...)) or give this layer dataType=",
                 layer.context));
      return false;
    }
    compute = *promoted;
    // Exponentials and sums of squares overflow float16: float32 here.
    if (compute == ir::DType::kFloat16 && ir::OverflowsFloat16(op) &&
        allowed.Contains(ir::DType::kFloat32)) {
      compute = ir::DType::kFloat32;
      widened = true;
    }
  }
  for (size_t slot = 0; slot < operands.size(); ++slot) {
    ir::ValueId& v = operands[slot];
    if (v == ir::kNoValue) continue;
    const ir::OperandSpec& spec = spec_of(slot);
    if (!spec.in_type_group) {
      // Indices, conditions, zero points: literals take a type of the slot.
      if (IsPendingLiteral(v) &&
          !EncodeLiteral(v, LiteralType(pending_literals_[v], spec.types))) {
        return false;
      }
      continue;
    }
    if (IsPendingLiteral(v)) {
      if (!EncodeLiteral(v, compute)) return false;
      continue;
    }
    if (IsUnshapedParameter(v)) {
      graph_.value(v).type.dtype = compute;
      continue;
    }
    ir::DType t = graph_.value(v).type.dtype;
    if (t != compute) v = Cast(v, compute);
  }
  return true;
}

}  // namespace webnnm::dag
