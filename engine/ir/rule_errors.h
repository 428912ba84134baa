// Errors from shape/type rules that blame one attribute or one operand.
//
// A rule returns AttrError("padding", "...") or OperandError(1, "..."): an
// InvalidArgument status carrying what it blames as a payload. The DAG
// builder reads the payload back to point the diagnostic at the option or
// operand the user wrote; other callers just print the message.
#ifndef WEBNNM_ENGINE_IR_RULE_ERRORS_H_
#define WEBNNM_ENGINE_IR_RULE_ERRORS_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace webnnm::ir {

absl::Status AttrError(std::string_view attr, std::string_view message);
absl::Status OperandError(int slot, std::string_view message);
// `cause`'s message, blamed on `attr` / operand `slot`.
absl::Status AttrError(std::string_view attr, const absl::Status& cause);
absl::Status OperandError(int slot, const absl::Status& cause);

std::optional<std::string> BlamedAttr(const absl::Status& status);
std::optional<int> BlamedOperand(const absl::Status& status);

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_RULE_ERRORS_H_
