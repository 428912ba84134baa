// What the SQLite store's source files share (sqlite_store.cc and
// sqlite_data.cc): times as milliseconds, and a stored message parsed.
#ifndef WEBNNM_SERVER_STORE_SQLITE_INTERNAL_H_
#define WEBNNM_SERVER_STORE_SQLITE_INTERNAL_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/base/strings.h"
#include "server/core/job.h"

namespace webnnm::server::sqlite_store {

inline int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             Now().time_since_epoch())
      .count();
}

inline int64_t Millis(Time t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             t.time_since_epoch())
      .count();
}

template <typename Message>
absl::StatusOr<Message> ParseBlob(const std::string& bytes,
                                  std::string_view what) {
  Message m;
  if (!m.ParseFromString(bytes)) {
    return absl::DataLossError(
        StrCat("database: a stored ", what, " does not parse"));
  }
  return m;
}

}  // namespace webnnm::server::sqlite_store

#endif  // WEBNNM_SERVER_STORE_SQLITE_INTERNAL_H_
