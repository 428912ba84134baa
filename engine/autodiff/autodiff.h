// Reverse-mode automatic differentiation, graph to graph.
//
// Differentiate() adds to a concrete graph the operations that compute the
// gradient of L = Σ_k <seed_k, value_k> (each seed a tensor of its value's
// type) with respect to each requested value. It walks the operations on a
// path from the requested values to the seeded ones in reverse topological
// order and asks each one's gradient rule (OpDef::gradient, in the op's own
// file under engine/ops) for the gradients of its operands; contributions
// from every consumer of a value are summed (fan-out, residual connections).
// Nothing flows into integer values or into values that no requested value
// reaches (constants, indices), and an operation without a rule on such a
// path is an error naming it. Recurrent operations are first replaced by
// their unrolled steps (OpDef::unroll).
//
// Seeds may sit on any value, not only on outputs: the training graph seeds
// the logits of a softmax + cross-entropy pair with (p - y) directly, which
// is how that pair is differentiated as one fused node (ERRATA 17).
#ifndef WEBNNM_ENGINE_AUTODIFF_AUTODIFF_H_
#define WEBNNM_ENGINE_AUTODIFF_AUTODIFF_H_

#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"
#include "engine/ir/limits.h"

namespace webnnm::autodiff {

struct Seed {
  ir::ValueId value = ir::kNoValue;  // the value L depends on
  ir::ValueId seed = ir::kNoValue;   // dL/d(value), of value's type
};

// Returns one gradient per value of `wrt` (of that value's type; a zero
// tensor when L does not depend on it). `seeds` and `wrt` may name values
// of unrolled nodes' results only by their replacements, so the call
// updates both vectors in place when it unrolls.
absl::StatusOr<std::vector<ir::ValueId>> Differentiate(
    ir::Graph& graph, const ir::Limits& limits, std::vector<Seed>& seeds,
    std::vector<ir::ValueId>& wrt);

}  // namespace webnnm::autodiff

#endif  // WEBNNM_ENGINE_AUTODIFF_AUTODIFF_H_
