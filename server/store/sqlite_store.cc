#include "server/store/sqlite_store.h"

#include <chrono>
#include <filesystem>
#include <iostream>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/convert/convert.h"
#include "server/store/sqlite_internal.h"

namespace webnnm::server {
namespace {

// Each entry migrates from version i to i + 1.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  principal TEXT NOT NULL,
  state INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  idempotency_key TEXT NOT NULL DEFAULT '',
  job BLOB NOT NULL,
  request BLOB NOT NULL
);
CREATE UNIQUE INDEX jobs_idempotency ON jobs(principal, idempotency_key)
  WHERE idempotency_key != '';
CREATE INDEX jobs_by_state ON jobs(state, created_ms);
CREATE INDEX jobs_by_principal ON jobs(principal, created_ms);
CREATE TABLE job_events (
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  time_ms INTEGER NOT NULL,
  type INTEGER NOT NULL,
  event BLOB NOT NULL,
  PRIMARY KEY (job_id, seq)
) WITHOUT ROWID;
CREATE TABLE metrics (
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  value REAL,
  PRIMARY KEY (job_id, name, epoch)
) WITHOUT ROWID;
CREATE TABLE latest_metrics (
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  value REAL,
  min REAL,
  max REAL,
  PRIMARY KEY (job_id, name)
) WITHOUT ROWID;
CREATE TABLE snapshots (
  id INTEGER PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX snapshots_by_job ON snapshots(job_id, id);
CREATE TABLE datasets (
  id TEXT PRIMARY KEY,
  principal TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  info BLOB NOT NULL,
  created_ms INTEGER NOT NULL,
  UNIQUE (principal, sha256)
);
)sql",
    // 2: leases (core/store.h): who runs a job, which attempt, until when.
    R"sql(
ALTER TABLE jobs ADD COLUMN node TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN lease_until_ms INTEGER NOT NULL DEFAULT 0;
)sql",
};

}  // namespace

using sqlite_store::Millis;
using sqlite_store::NowMillis;
using sqlite_store::ParseBlob;

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(
    const std::string& path, int snapshot_retention) {
  std::filesystem::path file(path);
  std::filesystem::path folder = file.parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) {
    return absl::UnavailableError(StrCat("cannot create the folder '",
                                         folder.string(), "': ", ec.message()));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path));
  std::unique_ptr<SqliteStore> store(new SqliteStore(
      std::move(db), folder.string(), std::max(0, snapshot_retention)));
  absl::MutexLock lock(&store->mutex_);
  Database& d = *store->db_;
  {
    ASSIGN_OR_RETURN(Statement wal, d.Prepare("PRAGMA journal_mode=WAL"));
    ASSIGN_OR_RETURN(bool row, wal.Step());
    if (!row || wal.Text(0) != "wal") {
      return absl::UnavailableError(
          StrCat("the database '", path,
                 "' cannot use a write-ahead log (is it on a network file "
                 "system?)"));
    }
  }
  RETURN_IF_ERROR(d.Exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON"));
  {
    ASSIGN_OR_RETURN(Statement check, d.Prepare("PRAGMA quick_check"));
    ASSIGN_OR_RETURN(bool row, check.Step());
    if (!row || check.Text(0) != "ok") {
      return absl::DataLossError(StrCat(
          "the database '", path,
          "' is damaged: ", row ? check.Text(0) : std::string("no answer")));
    }
  }
  RETURN_IF_ERROR(store->Migrate());
  return store;
}

absl::Status SqliteStore::Migrate() {
  ASSIGN_OR_RETURN(Statement get, db_->Prepare("PRAGMA user_version"));
  ASSIGN_OR_RETURN(bool row, get.Step());
  int64_t version = row ? get.Int(0) : 0;
  if (version > kSchemaVersion) {
    return absl::FailedPreconditionError(
        StrCat("the database has schema version ", version,
               "; this webnnmd knows up to ", kSchemaVersion,
               " (a newer webnnmd made it)"));
  }
  for (int64_t v = version; v < kSchemaVersion; ++v) {
    Transaction tx(*db_);
    RETURN_IF_ERROR(tx.Begin());
    RETURN_IF_ERROR(db_->Exec(kMigrations[v]));
    RETURN_IF_ERROR(db_->Exec(StrCat("PRAGMA user_version=", v + 1)));
    RETURN_IF_ERROR(tx.Commit());
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::PutJob(const Job& job) {
  ASSIGN_OR_RETURN(
      Statement put,
      db_->Prepare("UPDATE jobs SET state = ?2, job = ?3, node = ?4, attempt "
                   "= ?5 WHERE id = ?1"));
  put.Bind(1, job.id)
      .Bind(2, static_cast<int64_t>(job.state))
      .BindBlob(3, ToProto(job).SerializeAsString())
      .Bind(4, job.node)
      .Bind(5, int64_t{job.attempt});
  return put.Run();
}

absl::StatusOr<Job> SqliteStore::CreateJob(Job job, const JobRequest& request,
                                           int max_queued) {
  absl::MutexLock lock(&mutex_);
  Transaction tx(*db_);
  RETURN_IF_ERROR(tx.Begin());
  {
    ASSIGN_OR_RETURN(
        Statement find,
        db_->Prepare("SELECT id FROM jobs WHERE principal = ?1 AND "
                     "idempotency_key = ?2 AND ?2 != ''"));
    find.Bind(1, job.principal).Bind(2, request.idempotency_key);
    ASSIGN_OR_RETURN(bool found, find.Step());
    if (found) {
      return absl::AlreadyExistsError(
          StrCat("idempotency key '", request.idempotency_key,
                 "' already names job ", find.Text(0)));
    }
  }
  if (max_queued > 0) {
    ASSIGN_OR_RETURN(Statement count,
                     db_->Prepare("SELECT count(*) FROM jobs WHERE principal "
                                  "= ?1 AND state = ?2"));
    count.Bind(1, job.principal)
        .Bind(2, static_cast<int64_t>(JobState::kQueued));
    ASSIGN_OR_RETURN(bool row, count.Step());
    int64_t queued = row ? count.Int(0) : 0;
    if (queued >= max_queued) {
      return absl::ResourceExhaustedError(StrCat(job.principal, " has ", queued,
                                                 " queued jobs; the limit is ",
                                                 max_queued));
    }
  }
  job.state = JobState::kQueued;
  job.last_seq = 1;
  if (!job.created) job.created = Now();
  JobEvent event = StateEvent(JobState::kQueued);
  event.seq = 1;
  event.job_id = job.id;
  event.time = job.created;
  {
    ASSIGN_OR_RETURN(
        Statement insert,
        db_->Prepare("INSERT INTO jobs (id, principal, state, created_ms, "
                     "idempotency_key, job, request) VALUES (?1, ?2, ?3, ?4, "
                     "?5, ?6, ?7)"));
    insert.Bind(1, job.id)
        .Bind(2, job.principal)
        .Bind(3, static_cast<int64_t>(job.state))
        .Bind(4, Millis(*job.created))
        .Bind(5, request.idempotency_key)
        .BindBlob(6, ToProto(job).SerializeAsString())
        .BindBlob(7, ToProto(request).SerializeAsString());
    RETURN_IF_ERROR(insert.Run());
  }
  RETURN_IF_ERROR(AppendEvent(job.id, event));
  RETURN_IF_ERROR(tx.Commit());
  return job;
}

absl::StatusOr<std::optional<StoredJob>> SqliteStore::GetJobLocked(
    const std::string& id) {
  ASSIGN_OR_RETURN(Statement get,
                   db_->Prepare("SELECT job, request FROM jobs WHERE id = ?1"));
  get.Bind(1, id);
  ASSIGN_OR_RETURN(bool row, get.Step());
  if (!row) return std::nullopt;
  ASSIGN_OR_RETURN(v1::Job job, ParseBlob<v1::Job>(get.Blob(0), "job"));
  ASSIGN_OR_RETURN(v1::SubmitJobRequest request,
                   ParseBlob<v1::SubmitJobRequest>(get.Blob(1), "request"));
  return StoredJob{FromProto(job), FromProto(request)};
}

absl::StatusOr<std::optional<StoredJob>> SqliteStore::GetJob(
    const std::string& id) {
  absl::MutexLock lock(&mutex_);
  return GetJobLocked(id);
}

absl::StatusOr<std::optional<Job>> SqliteStore::FindByIdempotencyKey(
    const std::string& principal, const std::string& key) {
  if (key.empty()) return std::nullopt;
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement find,
                   db_->Prepare("SELECT job FROM jobs WHERE principal = ?1 "
                                "AND idempotency_key = ?2"));
  find.Bind(1, principal).Bind(2, key);
  ASSIGN_OR_RETURN(bool row, find.Step());
  if (!row) return std::nullopt;
  ASSIGN_OR_RETURN(v1::Job job, ParseBlob<v1::Job>(find.Blob(0), "job"));
  return FromProto(job);
}

absl::StatusOr<std::vector<Job>> SqliteStore::ListJobs(
    const std::string& principal, JobState state, int64_t offset, int limit) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(
      Statement list,
      db_->Prepare("SELECT job, id FROM jobs WHERE (?1 = '' OR principal = "
                   "?1) AND (?2 = 0 OR state = ?2) ORDER BY created_ms DESC, "
                   "id DESC LIMIT ?3 OFFSET ?4"));
  list.Bind(1, principal)
      .Bind(2, static_cast<int64_t>(state))
      .Bind(3, int64_t{limit})
      .Bind(4, offset);
  std::vector<Job> jobs;
  while (true) {
    ASSIGN_OR_RETURN(bool row, list.Step());
    if (!row) break;
    absl::StatusOr<v1::Job> job = ParseBlob<v1::Job>(list.Blob(0), "job");
    if (!job.ok()) {
      // One damaged row must not hide every other job: it is skipped and
      // said in the daemon's log (GetJob on it reports the damage).
      std::cerr << "webnnmd: job " << list.Text(1)
                << " in the database does not read (" << job.status().message()
                << "); ListJobs skips it\n";
      continue;
    }
    jobs.push_back(FromProto(*job));
  }
  return jobs;
}

absl::StatusOr<int64_t> SqliteStore::CountJobs(const std::string& principal,
                                               JobState state) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(
      Statement count,
      db_->Prepare("SELECT count(*) FROM jobs WHERE (?1 = '' OR principal = "
                   "?1) AND (?2 = 0 OR state = ?2)"));
  count.Bind(1, principal).Bind(2, static_cast<int64_t>(state));
  ASSIGN_OR_RETURN(bool row, count.Step());
  return row ? count.Int(0) : 0;
}

absl::StatusOr<std::vector<std::string>> SqliteStore::JobIds(JobState state) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement list,
                   db_->Prepare("SELECT id FROM jobs WHERE state = ?1 ORDER "
                                "BY created_ms, id"));
  list.Bind(1, static_cast<int64_t>(state));
  std::vector<std::string> ids;
  while (true) {
    ASSIGN_OR_RETURN(bool row, list.Step());
    if (!row) break;
    ids.push_back(list.Text(0));
  }
  return ids;
}

absl::Status SqliteStore::AppendEvent(const std::string& id,
                                      const JobEvent& event) {
  ASSIGN_OR_RETURN(Statement insert,
                   db_->Prepare("INSERT INTO job_events (job_id, seq, "
                                "time_ms, type, event) VALUES (?1, ?2, ?3, "
                                "?4, ?5)"));
  insert.Bind(1, id)
      .Bind(2, event.seq)
      .Bind(3, Millis(*event.time))
      .Bind(4, static_cast<int64_t>(event.type))
      .BindBlob(5, ToProto(event).SerializeAsString());
  return insert.Run();
}

absl::Status SqliteStore::RecordMetrics(const std::string& id,
                                        const train::EpochReport& e) {
  for (const auto& [name, value] : EpochMetrics(e)) {
    if (!value) continue;
    ASSIGN_OR_RETURN(Statement m,
                     db_->Prepare("INSERT OR REPLACE INTO metrics (job_id, "
                                  "name, epoch, value) VALUES (?1, ?2, "
                                  "?3, ?4)"));
    m.Bind(1, id).Bind(2, std::string_view(name)).Bind(3, int64_t{e.epoch});
    std::isfinite(*value) ? m.Bind(4, *value) : m.BindNull(4);
    RETURN_IF_ERROR(m.Run());
    ASSIGN_OR_RETURN(
        Statement latest,
        db_->Prepare("INSERT INTO latest_metrics (job_id, name, epoch, value, "
                     "min, max) VALUES (?1, ?2, ?3, ?4, ?4, ?4) ON CONFLICT "
                     "(job_id, name) DO UPDATE SET epoch = excluded.epoch, "
                     "value = excluded.value, min = min(coalesce(min, "
                     "excluded.value), excluded.value), max = "
                     "max(coalesce(max, excluded.value), excluded.value)"));
    latest.Bind(1, id)
        .Bind(2, std::string_view(name))
        .Bind(3, int64_t{e.epoch});
    std::isfinite(*value) ? latest.Bind(4, *value) : latest.BindNull(4);
    RETURN_IF_ERROR(latest.Run());
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::AddSnapshot(const std::string& id,
                                      const SnapshotBlob& snapshot, Time now) {
  ASSIGN_OR_RETURN(
      Statement insert,
      db_->Prepare("INSERT INTO snapshots (job_id, kind, epoch, created_ms, "
                   "bytes, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  insert.Bind(1, id)
      .Bind(2, snapshot.kind)
      .Bind(3, int64_t{snapshot.epoch})
      .Bind(4, Millis(now))
      .Bind(5, static_cast<int64_t>(snapshot.bytes.size()))
      .BindBlob(6, snapshot.bytes);
  RETURN_IF_ERROR(insert.Run());
  // Keep the newest `retention_` checkpoints (at least the newest snapshot,
  // whatever its kind).
  ASSIGN_OR_RETURN(
      Statement prune,
      db_->Prepare("DELETE FROM snapshots WHERE job_id = ?1 AND kind = "
                   "'checkpoint' AND id NOT IN (SELECT id FROM snapshots "
                   "WHERE job_id = ?1 AND kind = 'checkpoint' ORDER BY id "
                   "DESC LIMIT ?2) AND id != (SELECT max(id) FROM snapshots "
                   "WHERE job_id = ?1)"));
  prune.Bind(1, id).Bind(2, int64_t{retention_});
  return prune.Run();
}

absl::StatusOr<bool> SqliteStore::LeaseExpired(const std::string& id) {
  ASSIGN_OR_RETURN(Statement get, db_->Prepare("SELECT lease_until_ms FROM "
                                               "jobs WHERE id = ?1"));
  get.Bind(1, id);
  ASSIGN_OR_RETURN(bool row, get.Step());
  return !row || get.Int(0) < NowMillis();
}

absl::StatusOr<Job> SqliteStore::UpdateLocked(
    const std::string& id, const std::function<void(Job&)>& change,
    std::vector<JobEvent> events, const SnapshotBlob* snapshot,
    const UpdateCheck& check) {
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobLocked(id));
  if (!stored) return absl::NotFoundError(StrCat("no job ", id));
  Job& job = stored->job;
  if (check) {
    ASSIGN_OR_RETURN(bool expired, LeaseExpired(id));
    RETURN_IF_ERROR(check(job, expired));
  }
  if (change) change(job);
  const Time now = Now();
  for (JobEvent& event : events) {
    event.seq = ++job.last_seq;
    event.job_id = id;
    if (!event.time) event.time = now;
    RETURN_IF_ERROR(AppendEvent(id, event));
    if (event.type == EventType::kEpoch) {
      RETURN_IF_ERROR(RecordMetrics(id, event.epoch));
    }
  }
  if (snapshot) {
    RETURN_IF_ERROR(AddSnapshot(id, *snapshot, now));
    job.has_snapshot = true;
  }
  RETURN_IF_ERROR(PutJob(job));
  return job;
}

absl::StatusOr<Job> SqliteStore::Update(const std::string& id,
                                        const std::function<void(Job&)>& change,
                                        std::vector<JobEvent> events,
                                        const SnapshotBlob* snapshot,
                                        const UpdateCheck& check) {
  absl::MutexLock lock(&mutex_);
  Transaction tx(*db_);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(
      Job job, UpdateLocked(id, change, std::move(events), snapshot, check));
  RETURN_IF_ERROR(tx.Commit());
  return job;
}

absl::StatusOr<std::optional<StoredJob>> SqliteStore::ClaimJob(
    const std::string& node, std::chrono::milliseconds lease,
    const std::function<void(Job&)>& change, std::vector<JobEvent> events,
    int max_replicas) {
  // One daemon: every job runs on one replica (submissions of more are
  // refused), whatever `max_replicas` allows.
  (void)max_replicas;
  absl::MutexLock lock(&mutex_);
  Transaction tx(*db_);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(Statement next,
                   db_->Prepare("SELECT id FROM jobs WHERE state = ?1 ORDER "
                                "BY created_ms, id LIMIT 1"));
  next.Bind(1, static_cast<int64_t>(JobState::kQueued));
  ASSIGN_OR_RETURN(bool row, next.Step());
  if (!row) return std::nullopt;
  const std::string id = next.Text(0);
  ASSIGN_OR_RETURN(Job job, UpdateLocked(
                                id,
                                [&](Job& j) {
                                  j.state = JobState::kRunning;
                                  j.node = node;
                                  j.attempt += 1;
                                  if (change) change(j);
                                },
                                std::move(events), nullptr, nullptr));
  ASSIGN_OR_RETURN(Statement leased,
                   db_->Prepare("UPDATE jobs SET lease_until_ms = ?2 WHERE "
                                "id = ?1"));
  leased.Bind(1, id).Bind(2, NowMillis() + lease.count());
  RETURN_IF_ERROR(leased.Run());
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobLocked(id));
  RETURN_IF_ERROR(tx.Commit());
  return stored;
}

absl::Status SqliteStore::RenewLease(const std::string& id, const Fence& fence,
                                     std::chrono::milliseconds lease) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement renew,
                   db_->Prepare("UPDATE jobs SET lease_until_ms = ?4 WHERE id "
                                "= ?1 AND node = ?2 AND attempt = ?3 AND "
                                "state = ?5"));
  renew.Bind(1, id)
      .Bind(2, fence.node)
      .Bind(3, int64_t{fence.attempt})
      .Bind(4, NowMillis() + lease.count())
      .Bind(5, static_cast<int64_t>(JobState::kRunning));
  RETURN_IF_ERROR(renew.Run());
  if (db_->Changes() == 1) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobLocked(id));
  if (!stored) return absl::NotFoundError(StrCat("no job ", id));
  return LeaseLost(id, stored->job, fence);
}

absl::Status SqliteStore::ReleaseLease(const std::string& id,
                                       const Fence& fence) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement release,
                   db_->Prepare("UPDATE jobs SET lease_until_ms = 0 WHERE id "
                                "= ?1 AND node = ?2 AND attempt = ?3 AND "
                                "state = ?4"));
  release.Bind(1, id)
      .Bind(2, fence.node)
      .Bind(3, int64_t{fence.attempt})
      .Bind(4, static_cast<int64_t>(JobState::kRunning));
  RETURN_IF_ERROR(release.Run());
  if (db_->Changes() == 1) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobLocked(id));
  if (!stored) return absl::NotFoundError(StrCat("no job ", id));
  return LeaseLost(id, stored->job, fence);
}

absl::StatusOr<std::vector<StoredJob>> SqliteStore::ExpiredJobs(
    const std::string& node) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(Statement list,
                   db_->Prepare("SELECT id FROM jobs WHERE state = ?1 AND "
                                "(lease_until_ms < ?2 OR node = ?3) ORDER BY "
                                "created_ms, id"));
  list.Bind(1, static_cast<int64_t>(JobState::kRunning))
      .Bind(2, NowMillis())
      .Bind(3, node);
  std::vector<std::string> ids;
  while (true) {
    ASSIGN_OR_RETURN(bool row, list.Step());
    if (!row) break;
    ids.push_back(list.Text(0));
  }
  std::vector<StoredJob> jobs;
  for (const std::string& id : ids) {
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobLocked(id));
    if (stored) jobs.push_back(std::move(*stored));
  }
  return jobs;
}

}  // namespace webnnm::server
