// The prelude: templates every model may use without writing them — the
// common layers (dense, conv, pool) that every model file used to define
// for itself. A model's own block of the same name wins; the prelude's
// templates that a model does not use are not reported as unused.
//
// AddPrelude() appends the prelude's block properties (parsed from
// PreludeText(), marked `prelude`) for every block name the module does
// not use. Diagnostics inside a prelude template point into the prelude
// (kPreludeName, appended to the model's source: base/source.h).
//
// The templates (docs/language.md, "The prelude"):
//   dense    matmul(w), add(b), activation()       activation: a macro
//   conv     conv2d(filter), add(bias), activation()
//   pool     maxPool2d 2×2, stride 2
#ifndef WEBNNM_ENGINE_MODEL_PRELUDE_H_
#define WEBNNM_ENGINE_MODEL_PRELUDE_H_

#include <string_view>

#include "engine/lang/ast.h"

namespace webnnm::model {

inline constexpr char kPreludeName[] = "prelude.wnm";

std::string_view PreludeText();

// Appends to `module` the properties of `prelude` (PreludeText() parsed)
// whose block `module` does not name.
void AddPrelude(lang::Module& module, const lang::Module& prelude);

}  // namespace webnnm::model

#endif  // WEBNNM_ENGINE_MODEL_PRELUDE_H_
