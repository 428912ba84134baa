#include "engine/ir/rule_errors.h"

#include "absl/strings/cord.h"
#include "engine/base/strings.h"

namespace webnnm::ir {
namespace {
constexpr char kAttrPayload[] = "webnnm/attr";
constexpr char kOperandPayload[] = "webnnm/operand";

absl::string_view View(std::string_view s) { return {s.data(), s.size()}; }
}  // namespace

absl::Status AttrError(std::string_view attr, std::string_view message) {
  absl::Status status = absl::InvalidArgumentError(View(message));
  status.SetPayload(kAttrPayload, absl::Cord(View(attr)));
  return status;
}

absl::Status AttrError(std::string_view attr, const absl::Status& cause) {
  absl::Status status = absl::InvalidArgumentError(cause.message());
  status.SetPayload(kAttrPayload, absl::Cord(View(attr)));
  return status;
}

absl::Status OperandError(int slot, std::string_view message) {
  absl::Status status = absl::InvalidArgumentError(View(message));
  status.SetPayload(kOperandPayload, absl::Cord(std::to_string(slot)));
  return status;
}

absl::Status OperandError(int slot, const absl::Status& cause) {
  absl::Status status = absl::InvalidArgumentError(cause.message());
  status.SetPayload(kOperandPayload, absl::Cord(std::to_string(slot)));
  return status;
}

std::optional<std::string> BlamedAttr(const absl::Status& status) {
  auto payload = status.GetPayload(kAttrPayload);
  if (!payload) return std::nullopt;
  return std::string(*payload);
}

std::optional<int> BlamedOperand(const absl::Status& status) {
  auto payload = status.GetPayload(kOperandPayload);
  if (!payload) return std::nullopt;
  return std::stoi(std::string(*payload));
}

}  // namespace webnnm::ir
