// model::Build: from a parsed Module to an instantiated Model (model.h).
//
// Reports every problem it finds to `diagnostics` (unknown operators with a
// suggestion, unbound macros, options that no layer takes, operands given
// twice or missing, duplicate names, blocks that instantiate themselves, ...)
// pointing at what the user wrote, and keeps going; the Model is usable only
// when no error was reported. Expansion is bounded (nesting depth and total
// layer count), so hostile input cannot make it run away.
#ifndef WEBNNM_ENGINE_MODEL_BUILD_H_
#define WEBNNM_ENGINE_MODEL_BUILD_H_

#include "engine/base/diagnostics.h"
#include "engine/lang/ast.h"
#include "engine/model/model.h"

namespace webnnm::model {

inline constexpr int kMaxLayers = 100000;
inline constexpr int kMaxNesting = 64;

Model Build(const lang::Module& module, Diagnostics& diagnostics);

}  // namespace webnnm::model

#endif  // WEBNNM_ENGINE_MODEL_BUILD_H_
