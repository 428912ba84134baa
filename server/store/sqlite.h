// A thin RAII layer over SQLite's C API: a connection and prepared
// statements, with errors as absl::Status values naming the statement.
// Not thread-safe: the store (store.h) serializes every use.
#ifndef WEBNNM_SERVER_STORE_SQLITE_H_
#define WEBNNM_SERVER_STORE_SQLITE_H_

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

namespace webnnm::server {

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement(Statement&& other) noexcept
      : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}
  Statement(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }

  // Parameters are 1-based, as in SQL's ?1, ?2, ...
  Statement& Bind(int i, int64_t v);
  Statement& Bind(int i, double v);
  Statement& Bind(int i, std::string_view text);
  Statement& BindBlob(int i, std::string_view bytes);
  Statement& BindNull(int i);

  // Steps once: true with a row, false when done.
  absl::StatusOr<bool> Step();
  // Steps to the end (for statements without rows).
  absl::Status Run();

  int64_t Int(int column) const;
  double Double(int column) const;
  bool IsNull(int column) const;
  std::string Text(int column) const;
  std::string Blob(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class Database {
 public:
  // Opens (creating) the file, with a busy timeout.
  static absl::StatusOr<std::unique_ptr<Database>> Open(
      const std::string& path);
  ~Database();

  absl::StatusOr<Statement> Prepare(std::string_view sql);
  // Runs one or more statements without parameters.
  absl::Status Exec(const std::string& sql);
  int64_t Changes() const { return sqlite3_changes64(db_); }

 private:
  explicit Database(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// A transaction: BEGIN IMMEDIATE now, ROLLBACK unless Commit() was called.
class Transaction {
 public:
  explicit Transaction(Database& db) : db_(db) {}
  absl::Status Begin();
  // Commits; the time since Begin goes to the write-latency metric.
  absl::Status Commit();
  ~Transaction();

 private:
  Database& db_;
  bool done_ = false;
  std::chrono::steady_clock::time_point begun_;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_STORE_SQLITE_H_
