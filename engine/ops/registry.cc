// The table of every operation, built from op_list.def.
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/ir/op_def.h"

namespace webnnm::ops {
#define OP(id, name) const ir::OpDef& id##Op();
#include "engine/ir/op_list.def"
#undef OP
}  // namespace webnnm::ops

namespace webnnm::ir {
namespace {

std::vector<const OpDef*> BuildTable() {
  std::vector<const OpDef*> table = {
#define OP(id, name) &ops::id##Op(),
#include "engine/ir/op_list.def"
#undef OP
  };
  // Each definition must describe its own entry of op_list.def.
  static constexpr const char* kNames[] = {
#define OP(id, name) name,
#include "engine/ir/op_list.def"
#undef OP
  };
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumOps);
  for (int i = 0; i < kNumOps; ++i) {
    if (static_cast<int>(table[i]->kind) != i ||
        std::string(table[i]->name) != kNames[i]) {
      std::abort();  // a programming error in engine/ops, caught by any test
    }
  }
  return table;
}

}  // namespace

const std::vector<const OpDef*>& AllOps() {
  static const auto* table = new std::vector<const OpDef*>(BuildTable());
  return *table;
}

const OpDef& GetOp(OpKind kind) { return *AllOps()[static_cast<int>(kind)]; }

const OpDef* FindOp(std::string_view name) {
  for (const OpDef* op : AllOps()) {
    if (name == op->name) return op;
    for (const char* alias : op->aliases) {
      if (name == alias) return op;
    }
  }
  return nullptr;
}

std::vector<std::string> AllOpNames() {
  std::vector<std::string> names;
  for (const OpDef* op : AllOps()) {
    names.push_back(op->name);
    for (const char* alias : op->aliases) names.push_back(alias);
  }
  return names;
}

}  // namespace webnnm::ir
