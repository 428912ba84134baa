// Declared shapes: checks shared by block inputs and outputs, constants and
// layers' shape= options.
#ifndef WEBNNM_ENGINE_MODEL_SHAPE_SPEC_H_
#define WEBNNM_ENGINE_MODEL_SHAPE_SPEC_H_

#include <optional>

#include "engine/base/diagnostics.h"
#include "engine/lang/ast.h"

namespace webnnm::model {

enum class ShapeUse {
  kInput,   // may list the bare name `sequence`
  kOutput,  // may list the bare name `sequence`
  kConstant,
  kLayer,  // shape= on a layer
};

// Checks names (unique, not `batch`; `sequence` only bare and only in inputs
// and outputs) and sizes; reports each problem and returns false if any.
bool CheckShapeSpec(const lang::ShapeSpec& shape, ShapeUse use,
                    Diagnostics& diagnostics);

// A shape written as an option value ([..] or {..}); nullopt after
// reporting when it is not one.
std::optional<lang::ShapeSpec> ShapeFromValue(const lang::Value& value,
                                              ShapeUse use,
                                              Diagnostics& diagnostics);

}  // namespace webnnm::model

#endif  // WEBNNM_ENGINE_MODEL_SHAPE_SPEC_H_
