#include "server/store/sqlite.h"

#include "engine/base/strings.h"
#include "server/core/daemon_metrics.h"

namespace webnnm::server {

Statement& Statement::Bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}
Statement& Statement::Bind(int i, double v) {
  sqlite3_bind_double(stmt_, i, v);
  return *this;
}
Statement& Statement::Bind(int i, std::string_view text) {
  sqlite3_bind_text64(stmt_, i, text.data(), text.size(), SQLITE_TRANSIENT,
                      SQLITE_UTF8);
  return *this;
}
Statement& Statement::BindBlob(int i, std::string_view bytes) {
  sqlite3_bind_blob64(stmt_, i, bytes.empty() ? "" : bytes.data(), bytes.size(),
                      SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::BindNull(int i) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return absl::InternalError(StrCat("database: ", sqlite3_errmsg(db_), " (in ",
                                    sqlite3_sql(stmt_), ")"));
}

absl::Status Statement::Run() {
  while (true) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
  }
}

int64_t Statement::Int(int c) const { return sqlite3_column_int64(stmt_, c); }
double Statement::Double(int c) const {
  return sqlite3_column_double(stmt_, c);
}
bool Statement::IsNull(int c) const {
  return sqlite3_column_type(stmt_, c) == SQLITE_NULL;
}
std::string Statement::Text(int c) const {
  const unsigned char* p = sqlite3_column_text(stmt_, c);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         sqlite3_column_bytes(stmt_, c))
           : std::string();
}
std::string Statement::Blob(int c) const {
  const void* p = sqlite3_column_blob(stmt_, c);
  return p ? std::string(static_cast<const char*>(p),
                         sqlite3_column_bytes(stmt_, c))
           : std::string();
}

absl::StatusOr<std::unique_ptr<Database>> Database::Open(
    const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
      nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::UnavailableError(
        StrCat("cannot open the database '", path, "': ", message));
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Database>(new Database(db));
}

Database::~Database() { sqlite3_close(db_); }

absl::StatusOr<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()),
                              &stmt, nullptr);
  if (rc != SQLITE_OK) {
    return absl::InternalError(
        StrCat("database: ", sqlite3_errmsg(db_), " (preparing ", sql, ")"));
  }
  return Statement(db_, stmt);
}

absl::Status Database::Exec(const std::string& sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    return absl::InternalError(
        StrCat("database: ", message, " (in ", sql, ")"));
  }
  return absl::OkStatus();
}

absl::Status Transaction::Begin() {
  begun_ = std::chrono::steady_clock::now();
  return db_.Exec("BEGIN IMMEDIATE");
}

absl::Status Transaction::Commit() {
  absl::Status s = db_.Exec("COMMIT");
  if (s.ok()) {
    done_ = true;
    Metrics().store_write_seconds.Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begun_)
            .count());
  }
  return s;
}

Transaction::~Transaction() {
  if (!done_) (void)db_.Exec("ROLLBACK");
}

}  // namespace webnnm::server
