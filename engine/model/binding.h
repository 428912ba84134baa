// Binding a layer's written arguments to its operation's operand slots and
// attributes (model language rules, docs/language.md):
//  - the layer's input (the previous layer) is operand 0;
//  - positional arguments fill the op's language operand slots in order
//    (OpDef::language_operands), or its positional attribute (dropout(0.2));
//  - key=value sets the operand slot or the attribute of that name (or
//    alias); anything else is an error with a suggestion;
//  - concat takes its operands as a list, `concat([a, b])`, to leave out the
//    input; where takes `where(t, f)` on a condition, or
//    `where(f, condition=c)` on a trueValue.
#ifndef WEBNNM_ENGINE_MODEL_BINDING_H_
#define WEBNNM_ENGINE_MODEL_BINDING_H_

#include <functional>
#include <optional>
#include <vector>

#include "engine/base/diagnostics.h"
#include "engine/model/model.h"

namespace webnnm::model {

// Turns a written operand value into a reference (reporting bad values).
using RefMaker = std::function<std::optional<TensorRef>(const lang::Value&)>;

// Fills layer.operands and layer.options; reports problems and carries on.
void BindArguments(const ir::OpDef& op,
                   const std::vector<const lang::Argument*>& args,
                   const std::optional<TensorRef>& input, Layer& layer,
                   Diagnostics& diagnostics, const RefMaker& make_ref);

}  // namespace webnnm::model

#endif  // WEBNNM_ENGINE_MODEL_BINDING_H_
