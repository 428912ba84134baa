// What the webnnm.v1 service's source files share (service.cc and
// service_uploads.cc): the call prologue.
#ifndef WEBNNM_SERVER_RPC_SERVICE_INTERNAL_H_
#define WEBNNM_SERVER_RPC_SERVICE_INTERNAL_H_

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "absl/synchronization/mutex.h"
#include "server/rpc/service.h"

namespace webnnm::server {

// Authenticates the call (a handler's `context`) or returns its status;
// then `who` is the caller.
#define AUTHENTICATE(who)                                              \
  absl::StatusOr<Principal> who##_or = tokens_.Authenticate(*context); \
  if (!who##_or.ok()) return ToGrpc(who##_or.status());                \
  const Principal& who = *who##_or

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_SERVICE_INTERNAL_H_
