#include "engine/ir/op_def.h"

namespace webnnm::ir {

const AttrSpec* OpDef::FindAttr(std::string_view attr_name) const {
  for (const AttrSpec& spec : attrs) {
    if (attr_name == spec.name) return &spec;
  }
  return nullptr;
}

int OpDef::FindOperand(std::string_view operand_name) const {
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operand_name == operands[i].name) return static_cast<int>(i);
  }
  return -1;
}

bool OverflowsFloat16(const OpDef& op) {
  switch (op.kind) {
    case OpKind::kSoftmax:
    case OpKind::kLogSoftmax:
    case OpKind::kExp:
    case OpKind::kReduceLogSumExp:
    case OpKind::kLog:
      return true;
    default:
      return op.category == OpCategory::kNormalization;
  }
}

}  // namespace webnnm::ir
