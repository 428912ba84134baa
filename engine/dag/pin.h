// Pins: declared output shapes of layers (shape=, shapes=, a template
// instance's shape, a block's output shape).
//
// A pin gives the feature dimensions of a layer's result (batch and sequence
// excluded) and, when written with braces, their names. The DAG builder
// propagates pins backwards through shape-preserving layers so that an
// operation with parameters knows the output it must produce (ERRATA 10b),
// and checks every layer's result against its own pin.
#ifndef WEBNNM_ENGINE_DAG_PIN_H_
#define WEBNNM_ENGINE_DAG_PIN_H_

#include <string>
#include <vector>

#include "engine/base/source.h"
#include "engine/ir/tensor_type.h"
#include "engine/lang/ast.h"

namespace webnnm::dag {

struct Pin {
  std::vector<int64_t> dims;       // feature sizes
  std::vector<std::string> names;  // empty unless written with braces
  SourceRange range;
  bool from_output = false;  // a block's declared output shape
  // Propagated from a later layer: guides parameter shapes but is not
  // checked here (the later layer checks its own).
  bool inherited = false;

  static Pin FromSpec(const lang::ShapeSpec& spec);
  std::string ToString() const;  // "[128]" or "{hidden: 128}"
};

// `type` with its feature dimensions replaced by the pin's (symbolic
// dimensions stay where they are); nullopt when the pin's rank does not
// match the type's feature rank.
std::optional<ir::TensorType> ApplyPin(const ir::TensorType& type,
                                       const Pin& pin);

// The expected type of a value with `pin`, laid out like `like` (its
// symbolic dimensions first, then the pin's features); used before the
// value's own type is known.
ir::TensorType ExpectedType(const Pin& pin, const ir::TensorType& like);

}  // namespace webnnm::dag

#endif  // WEBNNM_ENGINE_DAG_PIN_H_
