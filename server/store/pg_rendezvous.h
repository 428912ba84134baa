// Gloo's rendezvous over the cluster's PostgreSQL database: the replicas of
// a data-parallel job publish their addresses as keys of the rendezvous
// table (under a prefix of the job and its attempt) and wait for each
// other's. A small gloo::rendezvous::Store: set, get and wait, the waits
// polling every 20 ms up to their timeout; failures throw
// gloo::IoException, as Gloo's own stores do. Cleanup() removes a claim's
// keys once it ends, and stale ones of claims that died. A wait asks
// `give_up` (when given) every half second: a reason ends it at once
// (gloo::IoException with the reason) — the claim it waits for is over.
//
// Thread-safety: one thread uses a PgRendezvous at a time (Gloo does).
#ifndef WEBNNM_SERVER_STORE_PG_RENDEZVOUS_H_
#define WEBNNM_SERVER_STORE_PG_RENDEZVOUS_H_

#include <gloo/rendezvous/store.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/store/pg.h"

namespace webnnm::server {

class PgRendezvous final : public gloo::rendezvous::Store {
 public:
  explicit PgRendezvous(std::string uri,
                        std::function<std::string()> give_up = nullptr)
      : uri_(std::move(uri)), give_up_(std::move(give_up)) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  // Removes the keys under `prefix`, and every key older than a day.
  static absl::Status Cleanup(const std::string& uri,
                              const std::string& prefix);

 private:
  // The connection (made again when it broke); throws when it cannot be.
  pg::Connection& Connection();
  const std::string uri_;
  const std::function<std::string()> give_up_;
  std::unique_ptr<pg::Connection> c_;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_STORE_PG_RENDEZVOUS_H_
