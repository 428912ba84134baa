// Helpers for the operation rule tests in engine/ops/*_test.cc.
#ifndef WEBNNM_ENGINE_OPS_OP_TEST_UTIL_H_
#define WEBNNM_ENGINE_OPS_OP_TEST_UTIL_H_

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/infer.h"
#include "engine/ir/rule_errors.h"

namespace webnnm::ops::testing {

inline ir::TensorType T(ir::DType dtype, std::vector<int64_t> shape,
                        std::vector<std::string> names = {}) {
  ir::TensorType t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.names = std::move(names);
  return t;
}
inline ir::TensorType F32(std::vector<int64_t> shape,
                          std::vector<std::string> names = {}) {
  return T(ir::DType::kFloat32, std::move(shape), std::move(names));
}

inline ir::Attrs A(
    std::initializer_list<std::pair<std::string, ir::AttrValue>> values) {
  ir::Attrs attrs;
  for (const auto& [name, value] : values) attrs.Set(name, value);
  return attrs;
}

// Runs the named operation's rule; std::nullopt operands are absent.
inline absl::StatusOr<std::vector<ir::TensorType>> Infer(
    const std::string& op, std::vector<std::optional<ir::TensorType>> operands,
    const ir::Attrs& attrs = {}, const ir::Limits& limits = {}) {
  const ir::OpDef* def = ir::FindOp(op);
  if (def == nullptr) return absl::NotFoundError("no op " + op);
  std::vector<const ir::TensorType*> pointers;
  for (const auto& operand : operands) {
    pointers.push_back(operand ? &*operand : nullptr);
  }
  return ir::InferOp(*def, pointers, attrs, limits);
}

// The shape of the first result, or {-999} on error (for compact asserts).
inline std::vector<int64_t> ShapeOf(
    const absl::StatusOr<std::vector<ir::TensorType>>& result) {
  if (!result.ok() || result->empty()) return {-999};
  return result->front().shape;
}

}  // namespace webnnm::ops::testing

#endif  // WEBNNM_ENGINE_OPS_OP_TEST_UTIL_H_
