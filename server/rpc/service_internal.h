// What the webnnm.v1 service's source files share (service.cc and
// service_uploads.cc): an upload in progress and the call prologue.
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

// Set when the upload starts: principal, kind, total_bytes, folder and the
// dataset's name, format and sha256; the rest changes under `mutex`, but
// `touched`, which the service's uploads_mutex_ guards.
struct WebnnmService::Upload {
  absl::Mutex mutex;
  std::string principal;
  enum Kind { kDataset, kSnapshot } kind = kDataset;
  Dataset dataset;  // name, format, sha256; files and id at the finish
  int64_t total_bytes = 0;
  int64_t received ABSL_GUARDED_BY(mutex) = 0;
  std::filesystem::path folder;  // the temporary folder
  std::map<std::string, int64_t> files ABSL_GUARDED_BY(mutex);  // bytes so far
  std::chrono::steady_clock::time_point touched;
  // Set once the upload is finished (it then no longer counts as open).
  std::atomic<bool> finished{false};
  // Once finished, what the finish answered: a retried or concurrent
  // finish answers the same (the upload stays known until it expires).
  std::optional<Dataset> finished_dataset ABSL_GUARDED_BY(mutex);
  std::optional<Job> finished_job ABSL_GUARDED_BY(mutex);
};

// Authenticates the call (a handler's `context`) or returns its status;
// then `who` is the caller.
#define AUTHENTICATE(who)                                              \
  absl::StatusOr<Principal> who##_or = tokens_.Authenticate(*context); \
  if (!who##_or.ok()) return ToGrpc(who##_or.status());                \
  const Principal& who = *who##_or

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_SERVICE_INTERNAL_H_
