#include "engine/ir/infer.h"

#include <cmath>

#include "engine/base/strings.h"
#include "engine/ir/rule_errors.h"

namespace webnnm::ir {
namespace {

bool KindAccepts(AttrKind kind, const AttrValue& value) {
  switch (kind) {
    case AttrKind::kInt:
    case AttrKind::kUint:
    case AttrKind::kAxis:
      return std::holds_alternative<int64_t>(value);
    case AttrKind::kFloat:
      return std::holds_alternative<double>(value) ||
             std::holds_alternative<int64_t>(value);
    case AttrKind::kBool:
      return std::holds_alternative<bool>(value);
    case AttrKind::kEnum:
    case AttrKind::kDType:
      return std::holds_alternative<std::string>(value);
    case AttrKind::kAxes:
    case AttrKind::kPermutation:
    case AttrKind::kInts:
    case AttrKind::kShape:
    case AttrKind::kSpatial:
    case AttrKind::kPadding:
    case AttrKind::kFeatureInts:
      return std::holds_alternative<std::vector<int64_t>>(value);
    case AttrKind::kFloats:
      return std::holds_alternative<std::vector<double>>(value) ||
             std::holds_alternative<std::vector<int64_t>>(value);
    case AttrKind::kEnums:
      return std::holds_alternative<std::vector<std::string>>(value);
    case AttrKind::kSplits:
      return std::holds_alternative<int64_t>(value) ||
             std::holds_alternative<std::vector<int64_t>>(value);
  }
  return false;
}

const char* KindName(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt:
      return "an integer";
    case AttrKind::kUint:
      return "a non-negative integer";
    case AttrKind::kAxis:
      return "an axis";
    case AttrKind::kFloat:
      return "a number";
    case AttrKind::kBool:
      return "true or false";
    case AttrKind::kEnum:
      return "a name";
    case AttrKind::kDType:
      return "a data type";
    case AttrKind::kAxes:
      return "a list of axes";
    case AttrKind::kPermutation:
      return "a permutation";
    case AttrKind::kInts:
      return "a list of integers";
    case AttrKind::kShape:
      return "a shape";
    case AttrKind::kSpatial:
      return "two integers";
    case AttrKind::kPadding:
      return "four integers";
    case AttrKind::kFeatureInts:
      return "a list of integers";
    case AttrKind::kFloats:
      return "a list of numbers";
    case AttrKind::kEnums:
      return "a list of names";
    case AttrKind::kSplits:
      return "an integer or a list of integers";
  }
  return "?";
}

}  // namespace

absl::Status CheckAttrs(const OpDef& op, const Attrs& attrs) {
  for (const auto& [name, value] : attrs.values()) {
    const AttrSpec* spec = op.FindAttr(name);
    if (spec == nullptr) {
      return AttrError(name, StrCat(op.name, " has no option '", name, "'"));
    }
    if (!KindAccepts(spec->kind, value)) {
      return AttrError(
          name, StrCat(op.name, " option '", name, "' must be ",
                       KindName(spec->kind), ", not ", AttrToString(value)));
    }
    if (spec->kind == AttrKind::kUint && std::get<int64_t>(value) < 0) {
      return AttrError(name, StrCat(op.name, " option '", name,
                                    "' must be non-negative, not ",
                                    std::get<int64_t>(value)));
    }
    if (spec->kind == AttrKind::kDType &&
        !ParseDType(std::get<std::string>(value))) {
      return AttrError(
          name, StrCat(op.name, " option '", name, "': '",
                       std::get<std::string>(value), "' is not a data type"));
    }
  }
  for (const AttrSpec& spec : op.attrs) {
    if (spec.required && !attrs.Has(spec.name)) {
      return AttrError(spec.name,
                       StrCat(op.name, " needs the option '", spec.name, "'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TensorType>> InferOp(
    const OpDef& op, const std::vector<const TensorType*>& operands,
    const Attrs& attrs, const Limits& limits) {
  const size_t slots = op.operands.size();
  if (op.variadic()) {
    if (operands.empty()) {
      return absl::InvalidArgumentError(
          StrCat(op.name, " needs at least one input"));
    }
  } else if (operands.size() > slots) {
    return absl::InvalidArgumentError(StrCat(
        op.name, " takes at most ", slots, " operands, not ", operands.size()));
  }
  int group_slot = -1;
  for (size_t i = 0; i < std::max(slots, operands.size()); ++i) {
    const OperandSpec& spec = op.operands[op.variadic() ? 0 : i];
    const TensorType* type = i < operands.size() ? operands[i] : nullptr;
    if (type == nullptr) {
      if (!spec.optional) {
        return OperandError(
            static_cast<int>(i),
            StrCat(op.name, " needs its operand '", spec.name, "'"));
      }
      continue;
    }
    if (!spec.types.Contains(type->dtype)) {
      return OperandError(
          static_cast<int>(i),
          StrCat("'", spec.name, "' of ", op.name, " must be ",
                 spec.types.ToString(), ", not ", DTypeName(type->dtype)));
    }
    if (spec.in_type_group) {
      if (group_slot < 0) {
        group_slot = static_cast<int>(i);
      } else if (operands[group_slot]->dtype != type->dtype) {
        const OperandSpec& first = op.operands[op.variadic() ? 0 : group_slot];
        return OperandError(
            static_cast<int>(i),
            StrCat("'", spec.name, "' of ", op.name, " is ",
                   DTypeName(type->dtype), " but '", first.name, "' is ",
                   DTypeName(operands[group_slot]->dtype),
                   "; they must have the same data type"));
      }
    }
  }
  absl::Status status = CheckAttrs(op, attrs);
  if (!status.ok()) return status;
  InferContext context{op, operands, attrs, limits};
  return op.infer(context);
}

absl::Status CheckNodeTypes(const Graph& graph, const Node& node,
                            const Limits& limits) {
  std::vector<const TensorType*> types;
  for (ValueId v : node.operands) {
    types.push_back(v == kNoValue ? nullptr : &graph.value(v).type);
  }
  absl::StatusOr<std::vector<TensorType>> inferred =
      InferOp(*node.op, types, node.attrs, limits);
  if (!inferred.ok()) return inferred.status();
  if (inferred->size() != node.outputs.size()) {
    return absl::InvalidArgumentError("the wrong number of results");
  }
  for (size_t i = 0; i < inferred->size(); ++i) {
    const TensorType& have = graph.value(node.outputs[i]).type;
    if (!have.SameShapeAndType((*inferred)[i])) {
      return absl::InvalidArgumentError(
          StrCat("result ", i, " is ", have.ToString(), " but its rule gives ",
                 (*inferred)[i].ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace webnnm::ir
