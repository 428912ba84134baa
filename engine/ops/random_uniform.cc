// randomUniform (internal): uniform random numbers in [0, 1) with the type
// and shape of its operand. WebNN has no random operation; training graphs
// need one for dropout. The generator and its seed belong to the executable
// that runs the graph (one seeded counter-based stream per training step).
// Operand: input (float32, float16; only its type is read). Result: its type.
#include "engine/ops/unary.h"

namespace webnnm::ops {

const ir::OpDef& RandomUniformOp() {
  static const ir::OpDef def = [] {
    ir::OpDef d =
        UnaryOp(ir::OpKind::kRandomUniform, "randomUniform", ir::kFloatTypes);
    d.category = ir::OpCategory::kInternal;
    return d;
  }();
  return def;
}

}  // namespace webnnm::ops
