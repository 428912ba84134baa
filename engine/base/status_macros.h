// Status propagation helpers used across WebNNM.
//
// RETURN_IF_ERROR(expr) returns the absl::Status of `expr` from the enclosing
// function when it is not OK. ASSIGN_OR_RETURN(lhs, expr) evaluates an
// absl::StatusOr<T>, returns its status on failure and otherwise assigns (or
// declares, with `auto x`) the value. Both keep the success path flat.
#ifndef WEBNNM_ENGINE_BASE_STATUS_MACROS_H_
#define WEBNNM_ENGINE_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define WEBNNM_CONCAT_INNER_(a, b) a##b
#define WEBNNM_CONCAT_(a, b) WEBNNM_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                        \
  do {                                               \
    ::absl::Status webnnm_status_ = (expr);          \
    if (!webnnm_status_.ok()) return webnnm_status_; \
  } while (false)

#define ASSIGN_OR_RETURN(lhs, expr) \
  WEBNNM_ASSIGN_OR_RETURN_IMPL_(WEBNNM_CONCAT_(webnnm_or_, __LINE__), lhs, expr)

#define WEBNNM_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return std::move(tmp).status();      \
  lhs = std::move(tmp).value()

#endif  // WEBNNM_ENGINE_BASE_STATUS_MACROS_H_
