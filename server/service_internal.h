// What the webnnm.v1 service's source files share (service.cc and
// service_uploads.cc): an upload in progress and the call prologue.
#ifndef WEBNNM_SERVER_SERVICE_INTERNAL_H_
#define WEBNNM_SERVER_SERVICE_INTERNAL_H_

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include "server/service.h"

namespace webnnm::server {

struct WebnnmService::Upload {
  std::mutex mutex;
  std::string principal;
  enum Kind { kDataset, kSnapshot } kind = kDataset;
  v1::Dataset dataset;  // name, format, sha256
  int64_t total_bytes = 0;
  int64_t received = 0;
  std::filesystem::path folder;          // the temporary folder
  std::map<std::string, int64_t> files;  // name -> bytes so far
  std::chrono::steady_clock::time_point touched;
};

// Authenticates the call (a handler's `context`) or returns its status;
// then `who` is the caller.
#define AUTHENTICATE(who)                                              \
  absl::StatusOr<Principal> who##_or = tokens_.Authenticate(*context); \
  if (!who##_or.ok()) return ToGrpc(who##_or.status());                \
  const Principal& who = *who##_or

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_SERVICE_INTERNAL_H_
