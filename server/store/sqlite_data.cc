// The SQLite store's events, metrics, snapshots, datasets and integrity
// check (sqlite_store.h); jobs and leases are in sqlite_store.cc.
#include <string>
#include <vector>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/convert/convert.h"
#include "server/store/sqlite_internal.h"
#include "server/store/sqlite_store.h"

namespace webnnm::server {

using sqlite_store::Millis;
using sqlite_store::NowMillis;
using sqlite_store::ParseBlob;

absl::StatusOr<std::vector<JobEvent>> SqliteStore::Events(const std::string& id,
                                                          int64_t from_seq,
                                                          int limit) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement list,
                   db_->Prepare("SELECT event FROM job_events WHERE job_id = "
                                "?1 AND seq >= ?2 ORDER BY seq LIMIT ?3"));
  list.Bind(1, id).Bind(2, from_seq).Bind(3, int64_t{limit});
  std::vector<JobEvent> events;
  while (true) {
    ASSIGN_OR_RETURN(bool row, list.Step());
    if (!row) break;
    ASSIGN_OR_RETURN(v1::JobEvent e,
                     ParseBlob<v1::JobEvent>(list.Blob(0), "event"));
    events.push_back(FromProto(e));
  }
  return events;
}

absl::Status SqliteStore::DeleteJob(const std::string& id) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement del,
                   db_->Prepare("DELETE FROM jobs WHERE id = ?1"));
  del.Bind(1, id);
  RETURN_IF_ERROR(del.Run());
  if (db_->Changes() == 0) return absl::NotFoundError(StrCat("no job ", id));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<MetricSeries>> SqliteStore::Metrics(
    const std::string& id, const std::vector<std::string>& names) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement list,
                   db_->Prepare("SELECT name, epoch, value FROM metrics WHERE "
                                "job_id = ?1 ORDER BY name, epoch"));
  list.Bind(1, id);
  std::vector<MetricSeries> series;
  while (true) {
    ASSIGN_OR_RETURN(bool row, list.Step());
    if (!row) break;
    std::string name = list.Text(0);
    if (!names.empty() &&
        std::find(names.begin(), names.end(), name) == names.end()) {
      continue;
    }
    if (series.empty() || series.back().name != name) {
      series.push_back({.name = name});
    }
    series.back().points.push_back(
        {static_cast<int>(list.Int(1)),
         list.IsNull(2) ? std::numeric_limits<double>::quiet_NaN()
                        : list.Double(2)});
  }
  return series;
}

absl::StatusOr<std::optional<std::string>> SqliteStore::LatestSnapshotKey(
    const std::string& id) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement get,
                   db_->Prepare("SELECT id, kind, epoch, bytes FROM snapshots "
                                "WHERE job_id = ?1 ORDER BY id DESC LIMIT 1"));
  get.Bind(1, id);
  ASSIGN_OR_RETURN(bool row, get.Step());
  if (!row) return std::nullopt;
  return StrCat(id, "/", get.Int(0), "/", get.Text(1), "/", get.Int(2), "/",
                get.Int(3));
}

absl::StatusOr<std::optional<SnapshotBlob>> SqliteStore::LatestSnapshot(
    const std::string& id) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement get,
                   db_->Prepare("SELECT kind, epoch, data FROM snapshots "
                                "WHERE job_id = ?1 ORDER BY id DESC LIMIT 1"));
  get.Bind(1, id);
  ASSIGN_OR_RETURN(bool row, get.Step());
  if (!row) return std::nullopt;
  return SnapshotBlob{get.Text(0), static_cast<int>(get.Int(1)), get.Blob(2)};
}

absl::StatusOr<std::optional<Dataset>> SqliteStore::FindDataset(
    const std::string& principal, const std::string& sha256) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement find,
                   db_->Prepare("SELECT info FROM datasets WHERE principal = "
                                "?1 AND sha256 = ?2"));
  find.Bind(1, principal).Bind(2, sha256);
  ASSIGN_OR_RETURN(bool row, find.Step());
  if (!row) return std::nullopt;
  ASSIGN_OR_RETURN(v1::Dataset d,
                   ParseBlob<v1::Dataset>(find.Blob(0), "dataset"));
  return FromProto(d);
}

absl::StatusOr<std::optional<Dataset>> SqliteStore::GetDataset(
    const std::string& principal, const std::string& id) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement find,
                   db_->Prepare("SELECT info FROM datasets WHERE id = ?2 AND "
                                "(?1 = '' OR principal = ?1)"));
  find.Bind(1, principal).Bind(2, id);
  ASSIGN_OR_RETURN(bool row, find.Step());
  if (!row) return std::nullopt;
  ASSIGN_OR_RETURN(v1::Dataset d,
                   ParseBlob<v1::Dataset>(find.Blob(0), "dataset"));
  return FromProto(d);
}

absl::Status SqliteStore::InsertDataset(const std::string& principal,
                                        const Dataset& dataset) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(
      Statement insert,
      db_->Prepare("INSERT INTO datasets (id, principal, sha256, "
                   "info, created_ms) VALUES (?1, ?2, ?3, ?4, ?5)"));
  insert.Bind(1, dataset.id)
      .Bind(2, principal)
      .Bind(3, dataset.sha256)
      .BindBlob(4, ToProto(dataset).SerializeAsString())
      .Bind(5, Millis(dataset.created.value_or(Now())));
  return insert.Run();
}

absl::StatusOr<std::vector<Dataset>> SqliteStore::ListDatasets(
    const std::string& principal) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement list,
                   db_->Prepare("SELECT info FROM datasets WHERE ?1 = '' OR "
                                "principal = ?1 ORDER BY created_ms, id"));
  list.Bind(1, principal);
  std::vector<Dataset> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, list.Step());
    if (!row) break;
    ASSIGN_OR_RETURN(v1::Dataset d,
                     ParseBlob<v1::Dataset>(list.Blob(0), "dataset"));
    out.push_back(FromProto(d));
  }
  return out;
}

absl::StatusOr<bool> SqliteStore::DeleteDataset(const std::string& principal,
                                                const std::string& id) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement find,
                   db_->Prepare("SELECT sha256 FROM datasets WHERE id = ?2 AND "
                                "(?1 = '' OR principal = ?1)"));
  find.Bind(1, principal).Bind(2, id);
  ASSIGN_OR_RETURN(bool row, find.Step());
  if (!row) return absl::NotFoundError(StrCat("no dataset ", id));
  const std::string sha256 = find.Text(0);
  ASSIGN_OR_RETURN(Statement erase,
                   db_->Prepare("DELETE FROM datasets WHERE id = ?1"));
  erase.Bind(1, id);
  RETURN_IF_ERROR(erase.Run());
  ASSIGN_OR_RETURN(Statement others,
                   db_->Prepare("SELECT 1 FROM datasets WHERE sha256 = ?1"));
  others.Bind(1, sha256);
  ASSIGN_OR_RETURN(bool shared, others.Step());
  return !shared;
}

absl::Status SqliteStore::IntegrityCheck() {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement check, db_->Prepare("PRAGMA integrity_check"));
  ASSIGN_OR_RETURN(bool row, check.Step());
  if (row && check.Text(0) == "ok") return absl::OkStatus();
  return absl::DataLossError(
      StrCat("database integrity: ", row ? check.Text(0) : "no answer"));
}

}  // namespace webnnm::server
