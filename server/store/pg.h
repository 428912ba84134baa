// A thin RAII layer over libpq, PostgreSQL's C client: connections, a small
// pool of them, parameterized statements, results, transactions and
// LISTEN/NOTIFY. Errors are absl::Status values naming the statement:
//   - a unique-key violation (SQLSTATE 23505) is AlreadyExists;
//   - a serialization failure or deadlock (40001, 40P01) is Aborted (retry);
//   - a connection that failed or broke is Unavailable;
//   - anything else is Internal, with the server's message.
// Results come back in binary format (Int and Double decode both forms):
// bytea columns arrive as their bytes, without hex. Parameters go as text,
// but Bytes(), which goes as binary.
//
// A Connection is not thread-safe; the Pool hands each one to one thread
// at a time.
#ifndef WEBNNM_SERVER_STORE_PG_H_
#define WEBNNM_SERVER_STORE_PG_H_

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace webnnm::server::pg {

// Whether `database` names a PostgreSQL server (a libpq URI starting
// postgresql:// or postgres://) rather than a SQLite file.
bool IsUri(std::string_view database);
// The URI without its password (for messages and logs).
std::string Redacted(std::string_view uri);

// A statement's parameters, $1, $2, ... in the order added.
class Params {
 public:
  Params() = default;
  Params(const Params&) = delete;
  Params& Text(std::string_view v);
  Params& Int(int64_t v);
  Params& Double(double v);  // non-finite values go as NULL
  Params& Bool(bool v);
  // Binary; the bytes are not copied: they must outlive the statement.
  Params& Bytes(std::string_view v);
  Params& Null();

  int size() const { return static_cast<int>(values_.size()); }
  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  Params& Owned(std::string v);
  std::deque<std::string> owned_;  // stable addresses
  std::vector<const char*> values_;
  std::vector<int> lengths_, formats_;
};

class Result {
 public:
  explicit Result(PGresult* r) : r_(r) {}
  Result(Result&& o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
  Result& operator=(Result&& o) noexcept {
    std::swap(r_, o.r_);
    return *this;
  }
  Result(const Result&) = delete;
  ~Result() { PQclear(r_); }

  int rows() const { return r_ ? PQntuples(r_) : 0; }
  // Rows an UPDATE, INSERT or DELETE touched.
  int64_t affected() const;
  bool IsNull(int row, int column) const;
  std::string Text(int row, int column) const;  // text or bytea: the bytes
  int64_t Int(int row, int column) const;       // int2/4/8 or bool; 0: NULL
  double Double(int row, int column) const;     // float4/8; NaN: NULL
  bool Bool(int row, int column) const;

 private:
  PGresult* r_;
};

// Limits the server enforces on a session (zero: PostgreSQL's default,
// none). A process that stops running inside a transaction (SIGSTOP, a VM
// migration) would otherwise hold its row locks for as long as it is
// stopped: `idle_in_transaction` ends such a session, and its locks with
// it.
struct SessionTimeouts {
  std::chrono::milliseconds idle_in_transaction{0};
  std::chrono::milliseconds lock{0};       // waiting for a lock
  std::chrono::milliseconds statement{0};  // one statement
};

class Connection {
 public:
  // Connects (`uri`: a libpq connection URI), with a 10 s timeout, and
  // sets the session's timeouts.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(
      const std::string& uri, const SessionTimeouts& timeouts = {});
  ~Connection();

  // One statement with parameters; rows in binary format.
  absl::StatusOr<Result> Query(std::string_view sql, const Params& params);
  absl::StatusOr<Result> Query(std::string_view sql);
  // One or more statements without parameters or rows (a migration).
  absl::Status Script(const std::string& sql);

  // Whether the connection broke (the pool opens a new one).
  bool Broken() const { return PQstatus(conn_) != CONNECTION_OK; }
  // For LISTEN: the socket to wait on, and the notifications read so far
  // (channel, payload) after reading what arrived.
  int Socket() const { return PQsocket(conn_); }
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
  Notifications();

 private:
  explicit Connection(PGconn* conn) : conn_(conn) {}
  absl::StatusOr<Result> Check(PGresult* r, std::string_view sql);
  PGconn* conn_;
};

// Connections to one server, opened as needed up to `size`, each lent to
// one thread at a time.
class Pool {
 public:
  Pool(std::string uri, int size, SessionTimeouts timeouts = {})
      : uri_(std::move(uri)), size_(size), timeouts_(timeouts) {}
  ~Pool();

  class Lent {
   public:
    Lent(Pool* pool, std::unique_ptr<Connection> c)
        : pool_(pool), c_(std::move(c)) {}
    Lent(Lent&& o) noexcept = default;
    ~Lent();
    Connection& operator*() { return *c_; }
    Connection* operator->() { return c_.get(); }

   private:
    Pool* pool_;
    std::unique_ptr<Connection> c_;
  };
  // A connection (waiting while all `size` are lent): Unavailable when a
  // new one cannot be opened.
  absl::StatusOr<Lent> Get();
  const std::string& uri() const { return uri_; }

 private:
  void Return(std::unique_ptr<Connection> c);
  const std::string uri_;
  const int size_;
  const SessionTimeouts timeouts_;
  absl::Mutex mutex_;
  std::vector<std::unique_ptr<Connection>> idle_ ABSL_GUARDED_BY(mutex_);
  int open_ ABSL_GUARDED_BY(mutex_) = 0;
};

// BEGIN now; ROLLBACK unless Commit() was called.
class Transaction {
 public:
  explicit Transaction(Connection& c) : c_(c) {}
  absl::Status Begin();
  // Commits; the time since Begin goes to the write-latency metric.
  absl::Status Commit();
  ~Transaction();

 private:
  Connection& c_;
  bool open_ = false;
  std::chrono::steady_clock::time_point begun_;
};

}  // namespace webnnm::server::pg

#endif  // WEBNNM_SERVER_STORE_PG_H_
