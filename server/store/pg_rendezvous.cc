#include "server/store/pg_rendezvous.h"

#include <gloo/common/error.h>

#include <thread>

#include "engine/base/strings.h"

namespace webnnm::server {

pg::Connection& PgRendezvous::Connection() {
  if (c_ && !c_->Broken()) return *c_;
  absl::StatusOr<std::unique_ptr<pg::Connection>> c =
      pg::Connection::Open(uri_);
  if (!c.ok()) GLOO_THROW_IO_EXCEPTION(std::string(c.status().message()));
  c_ = std::move(*c);
  return *c_;
}

void PgRendezvous::set(const std::string& key, const std::vector<char>& data) {
  const std::string_view bytes(data.data(), data.size());
  absl::Status s =
      Connection()
          .Query(
              "INSERT INTO rendezvous (key, value, created_ms) VALUES ($1, "
              "$2, webnnm_now_ms()) ON CONFLICT (key) DO UPDATE SET value "
              "= excluded.value, created_ms = excluded.created_ms",
              pg::Params().Text(key).Bytes(bytes))
          .status();
  if (!s.ok()) GLOO_THROW_IO_EXCEPTION(std::string(s.message()));
}

std::vector<char> PgRendezvous::get(const std::string& key) {
  wait({key});
  absl::StatusOr<pg::Result> got = Connection().Query(
      "SELECT value FROM rendezvous WHERE key = $1", pg::Params().Text(key));
  if (!got.ok()) GLOO_THROW_IO_EXCEPTION(std::string(got.status().message()));
  if (got->rows() != 1)
    GLOO_THROW_IO_EXCEPTION("rendezvous key ", key, " went");
  const std::string value = got->Text(0, 0);
  return std::vector<char>(value.begin(), value.end());
}

void PgRendezvous::wait(const std::vector<std::string>& keys) {
  wait(keys, kDefaultTimeout);
}

void PgRendezvous::wait(const std::vector<std::string>& keys,
                        const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  size_t found = 0;
  for (int polls = 1;; ++polls) {
    // Keys found stay found: only the rest are asked for again.
    for (; found < keys.size(); ++found) {
      absl::StatusOr<pg::Result> got =
          Connection().Query("SELECT 1 FROM rendezvous WHERE key = $1",
                             pg::Params().Text(keys[found]));
      if (!got.ok()) {
        GLOO_THROW_IO_EXCEPTION(std::string(got.status().message()));
      }
      if (got->rows() == 0) break;
    }
    if (found == keys.size()) return;
    if (std::chrono::steady_clock::now() > deadline) {
      GLOO_THROW_IO_EXCEPTION("the rendezvous timed out after ",
                              timeout.count(), " ms waiting for ", keys[found]);
    }
    if (give_up_ && polls % 25 == 0) {
      if (const std::string why = give_up_(); !why.empty()) {
        GLOO_THROW_IO_EXCEPTION(why);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

absl::Status PgRendezvous::Cleanup(const std::string& uri,
                                   const std::string& prefix) {
  absl::StatusOr<std::unique_ptr<pg::Connection>> c = pg::Connection::Open(uri);
  if (!c.ok()) return c.status();
  return (*c)
      ->Query(
          "DELETE FROM rendezvous WHERE starts_with(key, $1) OR "
          "created_ms < webnnm_now_ms() - 86400000",
          pg::Params().Text(prefix))
      .status();
}

}  // namespace webnnm::server
