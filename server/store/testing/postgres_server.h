// A private PostgreSQL server for tests: initdb and pg_ctl in a temporary
// folder, listening on 127.0.0.1 at a free port (and a socket in that
// folder), run as an unprivileged user — the `postgres` user when the test
// runs as root, since PostgreSQL refuses to — with fsync off (a test's data
// need not survive a power cut). Stopped, and its folder removed, when the
// object goes.
#ifndef WEBNNM_SERVER_STORE_TESTING_POSTGRES_SERVER_H_
#define WEBNNM_SERVER_STORE_TESTING_POSTGRES_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace webnnm::server::testing {

class PostgresServer {
 public:
  // Unavailable (saying why) when PostgreSQL's programs are not installed
  // or the server does not start.
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Start();
  ~PostgresServer();

  // The URI of a new, empty database named `name` on the server.
  absl::StatusOr<std::string> NewDatabase(const std::string& name);
  int port() const { return port_; }

 private:
  PostgresServer() = default;
  std::string bin_, folder_;
  int port_ = 0;
  bool as_postgres_ = false;
};

}  // namespace webnnm::server::testing

#endif  // WEBNNM_SERVER_STORE_TESTING_POSTGRES_SERVER_H_
