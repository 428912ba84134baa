// What the PostgreSQL store's source files share.
#ifndef WEBNNM_SERVER_STORE_POSTGRES_INTERNAL_H_
#define WEBNNM_SERVER_STORE_POSTGRES_INTERNAL_H_

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/base/strings.h"
#include "server/core/job.h"

namespace webnnm::server::postgres_internal {

inline int64_t Millis(Time t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             t.time_since_epoch())
      .count();
}

inline Time FromMillis(int64_t ms) {
  return Time(std::chrono::milliseconds(ms));
}

// A stored message, or DataLoss naming what did not parse.
template <typename Message>
absl::StatusOr<Message> Parse(const std::string& bytes, std::string_view what) {
  Message m;
  if (!m.ParseFromString(bytes)) {
    return absl::DataLossError(
        StrCat("database: a stored ", what, " does not parse"));
  }
  return m;
}

// A name no other process or thread picks: for temporary folders.
std::string Unique(std::string_view stem);

// Writes (or appends) `bytes` to `path`; ResourceExhausted when it cannot.
absl::Status WriteFile(const std::filesystem::path& path,
                       std::string_view bytes, bool append);

}  // namespace webnnm::server::postgres_internal

#endif  // WEBNNM_SERVER_STORE_POSTGRES_INTERNAL_H_
