#include "server/store/pg.h"

#include <endian.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/base/strings.h"
#include "server/core/daemon_metrics.h"

namespace webnnm::server::pg {
namespace {

// The statement as messages show it: its first line, shortened.
std::string Shown(std::string_view sql) {
  size_t start = sql.find_first_not_of(" \n");
  if (start == std::string_view::npos) return "";
  sql.remove_prefix(start);
  std::string_view line = sql.substr(0, sql.find('\n'));
  if (line.size() > 60) return StrCat(line.substr(0, 57), "...");
  return std::string(line);
}

absl::Status FromServer(PGconn* conn, PGresult* r, std::string_view sql) {
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  std::string message = r ? PQresultErrorMessage(r) : PQerrorMessage(conn);
  while (!message.empty() &&
         (message.back() == '\n' || message.back() == ' ')) {
    message.pop_back();
  }
  const std::string text =
      StrCat("PostgreSQL: ", message, " (in ", Shown(sql), ")");
  if (PQstatus(conn) != CONNECTION_OK) return absl::UnavailableError(text);
  const std::string_view code = state ? state : "";
  if (code == "23505") return absl::AlreadyExistsError(text);
  if (code == "40001" || code == "40P01") return absl::AbortedError(text);
  if (code.starts_with("08") || code == "57P01" || code == "57P02" ||
      code == "57P03") {
    return absl::UnavailableError(text);
  }
  return absl::InternalError(text);
}

}  // namespace

bool IsUri(std::string_view database) {
  return database.starts_with("postgresql://") ||
         database.starts_with("postgres://");
}

std::string Redacted(std::string_view uri) {
  // scheme://user:password@host -> scheme://user:***@host
  const size_t scheme = uri.find("://");
  if (scheme == std::string_view::npos) return std::string(uri);
  const size_t at = uri.find('@', scheme + 3);
  const size_t slash = uri.find('/', scheme + 3);
  if (at == std::string_view::npos ||
      (slash != std::string_view::npos && slash < at)) {
    return std::string(uri);
  }
  const size_t colon = uri.find(':', scheme + 3);
  if (colon == std::string_view::npos || colon > at) return std::string(uri);
  return StrCat(uri.substr(0, colon + 1), "***", uri.substr(at));
}

Params& Params::Owned(std::string v) {
  owned_.push_back(std::move(v));
  values_.push_back(owned_.back().c_str());
  lengths_.push_back(static_cast<int>(owned_.back().size()));
  formats_.push_back(0);
  return *this;
}

Params& Params::Text(std::string_view v) { return Owned(std::string(v)); }
Params& Params::Int(int64_t v) { return Owned(std::to_string(v)); }
Params& Params::Bool(bool v) { return Owned(v ? "t" : "f"); }

Params& Params::Double(double v) {
  if (!std::isfinite(v)) return Null();
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return Owned(buffer);
}

Params& Params::Bytes(std::string_view v) {
  // libpq reads a binary parameter by its length; an empty one still
  // needs a non-null pointer (NULL means SQL NULL).
  static const char kEmpty = 0;
  values_.push_back(v.empty() ? &kEmpty : v.data());
  lengths_.push_back(static_cast<int>(v.size()));
  formats_.push_back(1);
  return *this;
}

Params& Params::Null() {
  values_.push_back(nullptr);
  lengths_.push_back(0);
  formats_.push_back(0);
  return *this;
}

int64_t Result::affected() const {
  const char* n = r_ ? PQcmdTuples(r_) : nullptr;
  return n && *n ? std::strtoll(n, nullptr, 10) : 0;
}

bool Result::IsNull(int row, int column) const {
  return PQgetisnull(r_, row, column) != 0;
}

std::string Result::Text(int row, int column) const {
  if (IsNull(row, column)) return "";
  return std::string(PQgetvalue(r_, row, column),
                     static_cast<size_t>(PQgetlength(r_, row, column)));
}

int64_t Result::Int(int row, int column) const {
  if (IsNull(row, column)) return 0;
  const char* v = PQgetvalue(r_, row, column);
  if (PQfformat(r_, column) == 0) return std::strtoll(v, nullptr, 10);
  switch (PQgetlength(r_, row, column)) {
    case 1:
      return static_cast<unsigned char>(v[0]);
    case 2: {
      uint16_t x;
      std::memcpy(&x, v, 2);
      return static_cast<int16_t>(be16toh(x));
    }
    case 4: {
      uint32_t x;
      std::memcpy(&x, v, 4);
      return static_cast<int32_t>(be32toh(x));
    }
    case 8: {
      uint64_t x;
      std::memcpy(&x, v, 8);
      return static_cast<int64_t>(be64toh(x));
    }
    default:
      return 0;
  }
}

double Result::Double(int row, int column) const {
  if (IsNull(row, column)) return std::numeric_limits<double>::quiet_NaN();
  const char* v = PQgetvalue(r_, row, column);
  if (PQfformat(r_, column) == 0) return std::strtod(v, nullptr);
  if (PQgetlength(r_, row, column) == 4) {
    uint32_t x;
    std::memcpy(&x, v, 4);
    x = be32toh(x);
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
  uint64_t x;
  std::memcpy(&x, v, 8);
  x = be64toh(x);
  double d;
  std::memcpy(&d, &x, 8);
  return d;
}

bool Result::Bool(int row, int column) const { return Int(row, column) != 0; }

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(
    const std::string& uri, const SessionTimeouts& timeouts) {
  const char* keys[] = {"dbname", "connect_timeout", "application_name",
                        nullptr};
  const char* values[] = {uri.c_str(), "10", "webnnmd", nullptr};
  // expand_dbname: the URI's own settings, then the defaults above.
  PGconn* conn = PQconnectdbParams(keys, values, 1);
  if (conn == nullptr) {
    return absl::ResourceExhaustedError("PostgreSQL: out of memory");
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    PQfinish(conn);
    return absl::UnavailableError(StrCat("cannot connect to PostgreSQL at ",
                                         Redacted(uri), ": ", message));
  }
  std::unique_ptr<Connection> c(new Connection(conn));
  // Quiet NOTICEs (they would go to stderr) and UTC for now().
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  std::string set = "SET TIME ZONE 'UTC'";
  for (const auto& [name, value] :
       {std::pair{"idle_in_transaction_session_timeout",
                  timeouts.idle_in_transaction},
        std::pair{"lock_timeout", timeouts.lock},
        std::pair{"statement_timeout", timeouts.statement}}) {
    if (value.count() > 0) set += StrCat("; SET ", name, " = ", value.count());
  }
  if (absl::Status s = c->Script(set); !s.ok()) return s;
  return c;
}

Connection::~Connection() { PQfinish(conn_); }

absl::StatusOr<Result> Connection::Check(PGresult* r, std::string_view sql) {
  const ExecStatusType status = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    return Result(r);
  }
  absl::Status error = FromServer(conn_, r, sql);
  PQclear(r);
  return error;
}

absl::StatusOr<Result> Connection::Query(std::string_view sql,
                                         const Params& params) {
  const std::string text(sql);
  PGresult* r =
      PQexecParams(conn_, text.c_str(), params.size(), nullptr, params.values(),
                   params.lengths(), params.formats(), /*resultFormat=*/1);
  return Check(r, sql);
}

absl::StatusOr<Result> Connection::Query(std::string_view sql) {
  return Query(sql, Params());
}

absl::Status Connection::Script(const std::string& sql) {
  return Check(PQexec(conn_, sql.c_str()), sql).status();
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
Connection::Notifications() {
  if (PQconsumeInput(conn_) == 0) {
    return absl::UnavailableError(
        StrCat("PostgreSQL: ", PQerrorMessage(conn_)));
  }
  std::vector<std::pair<std::string, std::string>> out;
  while (PGnotify* n = PQnotifies(conn_)) {
    out.emplace_back(n->relname, n->extra);
    PQfreemem(n);
  }
  return out;
}

Pool::~Pool() {
  absl::MutexLock lock(&mutex_);
  idle_.clear();
}

absl::StatusOr<Pool::Lent> Pool::Get() {
  {
    absl::MutexLock lock(&mutex_);
    auto can_go = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return !idle_.empty() || open_ < size_;
    };
    mutex_.Await(absl::Condition(&can_go));
    if (!idle_.empty()) {
      std::unique_ptr<Connection> c = std::move(idle_.back());
      idle_.pop_back();
      return Lent(this, std::move(c));
    }
    ++open_;  // a new one, opened outside the lock
  }
  absl::StatusOr<std::unique_ptr<Connection>> c =
      Connection::Open(uri_, timeouts_);
  if (!c.ok()) {
    absl::MutexLock lock(&mutex_);
    --open_;
    return c.status();
  }
  return Lent(this, std::move(*c));
}

void Pool::Return(std::unique_ptr<Connection> c) {
  absl::MutexLock lock(&mutex_);
  if (c->Broken()) {
    --open_;  // closed; the next Get opens a new one
    return;
  }
  idle_.push_back(std::move(c));
}

Pool::Lent::~Lent() {
  if (c_) pool_->Return(std::move(c_));
}

absl::Status Transaction::Begin() {
  begun_ = std::chrono::steady_clock::now();
  absl::Status s = c_.Script("BEGIN");
  open_ = s.ok();
  return s;
}

absl::Status Transaction::Commit() {
  absl::Status s = c_.Script("COMMIT");
  open_ = false;
  if (s.ok()) {
    Metrics().store_write_seconds.Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begun_)
            .count());
  }
  return s;
}

Transaction::~Transaction() {
  if (open_) (void)c_.Script("ROLLBACK");
}

}  // namespace webnnm::server::pg
