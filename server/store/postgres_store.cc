// The PostgreSQL store's schema, jobs, leases, events, metrics and
// snapshots (postgres_data.cc: datasets, uploads, nodes, notices).
#include "server/store/postgres_store.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/rpc/convert.h"
#include "server/store/postgres_internal.h"

namespace webnnm::server {

using postgres_internal::Millis;
using postgres_internal::Parse;

namespace {

// Each entry migrates from version i to i + 1.
const char* const kMigrations[] = {
    R"sql(
CREATE FUNCTION webnnm_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;
CREATE TABLE jobs (
  id text PRIMARY KEY,
  principal text NOT NULL,
  state integer NOT NULL,
  created_ms bigint NOT NULL,
  idempotency_key text NOT NULL DEFAULT '',
  node text NOT NULL DEFAULT '',
  attempt integer NOT NULL DEFAULT 0,
  lease_until_ms bigint NOT NULL DEFAULT 0,
  job bytea NOT NULL,
  request bytea NOT NULL
);
CREATE UNIQUE INDEX jobs_idempotency ON jobs(principal, idempotency_key)
  WHERE idempotency_key <> '';
CREATE INDEX jobs_by_state ON jobs(state, created_ms, id);
CREATE INDEX jobs_by_principal ON jobs(principal, created_ms);
CREATE TABLE job_events (
  job_id text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  time_ms bigint NOT NULL,
  type integer NOT NULL,
  event bytea NOT NULL,
  PRIMARY KEY (job_id, seq)
);
CREATE TABLE metrics (
  job_id text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  name text NOT NULL,
  epoch integer NOT NULL,
  value double precision,
  PRIMARY KEY (job_id, name, epoch)
);
CREATE TABLE latest_metrics (
  job_id text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  name text NOT NULL,
  epoch integer NOT NULL,
  value double precision,
  min double precision,
  max double precision,
  PRIMARY KEY (job_id, name)
);
CREATE TABLE snapshots (
  id bigserial PRIMARY KEY,
  job_id text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  kind text NOT NULL,
  epoch integer NOT NULL,
  created_ms bigint NOT NULL,
  bytes bigint NOT NULL,
  data bytea NOT NULL
);
CREATE INDEX snapshots_by_job ON snapshots(job_id, id);
CREATE TABLE datasets (
  id text PRIMARY KEY,
  principal text NOT NULL,
  sha256 text NOT NULL,
  info bytea NOT NULL,
  created_ms bigint NOT NULL,
  UNIQUE (principal, sha256)
);
CREATE TABLE dataset_content (
  sha256 text NOT NULL,
  file text NOT NULL,
  chunk integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (sha256, file, chunk)
);
CREATE TABLE uploads (
  id text PRIMARY KEY,
  principal text NOT NULL,
  kind integer NOT NULL,
  dataset bytea NOT NULL,
  total_bytes bigint NOT NULL,
  received bigint NOT NULL DEFAULT 0,
  files text NOT NULL DEFAULT '',
  finished boolean NOT NULL DEFAULT false,
  result text NOT NULL DEFAULT '',
  lease_until_ms bigint NOT NULL
);
CREATE INDEX uploads_by_principal ON uploads(principal);
CREATE TABLE upload_chunks (
  upload_id text NOT NULL REFERENCES uploads(id) ON DELETE CASCADE,
  file text NOT NULL,
  offset_bytes bigint NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (upload_id, file, offset_bytes)
);
CREATE TABLE nodes (
  name text PRIMARY KEY,
  address text NOT NULL,
  version text NOT NULL,
  started_ms bigint NOT NULL,
  seen_ms bigint NOT NULL,
  workers integer NOT NULL,
  busy integer NOT NULL,
  threads integer NOT NULL
);
CREATE TABLE rendezvous (
  key text PRIMARY KEY,
  value bytea NOT NULL,
  created_ms bigint NOT NULL
);
)sql",
    // 2: data-parallel jobs: how many replicas a job asks for, and the
    // slots of ranks 1.. of its current claim that other daemons take.
    R"sql(
ALTER TABLE jobs ADD COLUMN replicas integer NOT NULL DEFAULT 1;
CREATE TABLE job_replicas (
  job_id text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  rank integer NOT NULL,
  attempt integer NOT NULL,
  size integer NOT NULL,
  node text NOT NULL DEFAULT '',
  lease_until_ms bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (job_id, rank)
);
)sql",
};

// The advisory lock that migrations run under.
constexpr int64_t kMigrationLock = 0x5745424e4e4d;  // "WEBNNM"

}  // namespace

PostgresStore::PostgresStore(Options options)
    : options_(std::move(options)),
      pool_(options_.uri, std::max(1, options_.connections)) {}

PostgresStore::~PostgresStore() {
  stopping_ = true;
  if (listener_thread_.joinable()) listener_thread_.join();
  absl::MutexLock lock(&uploads_mutex_);
  for (const auto& [id, folder] : upload_folders_) {
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
  }
}

absl::StatusOr<std::unique_ptr<PostgresStore>> PostgresStore::Open(
    Options options) {
  std::unique_ptr<PostgresStore> store(new PostgresStore(std::move(options)));
  RETURN_IF_ERROR(store->Migrate());
  std::error_code ec;
  std::filesystem::create_directories(store->options_.cache_folder, ec);
  if (ec) {
    return absl::UnavailableError(StrCat("cannot create the cache folder '",
                                         store->options_.cache_folder,
                                         "': ", ec.message()));
  }
  return store;
}

absl::Status PostgresStore::WithConnection(
    const std::function<absl::Status(pg::Connection&)>& body) {
  absl::Status status;
  for (int tries = 0; tries < 2; ++tries) {
    ASSIGN_OR_RETURN(pg::Pool::Lent c, pool_.Get());
    status = body(*c);
    if (status.ok() || !c->Broken()) return status;
  }
  return status;
}

absl::Status PostgresStore::Transact(
    const std::function<absl::Status(pg::Connection&)>& body) {
  absl::Status status;
  for (int tries = 0; tries < 3; ++tries) {
    ASSIGN_OR_RETURN(pg::Pool::Lent c, pool_.Get());
    {
      pg::Transaction tx(*c);
      status = tx.Begin();
      if (status.ok()) status = body(*c);
      if (status.ok()) status = tx.Commit();
    }
    if (status.ok()) return status;
    const bool again =
        (status.code() == absl::StatusCode::kAborted && !IsLeaseLost(status)) ||
        c->Broken();
    if (!again) return status;
  }
  return status;
}

absl::Status PostgresStore::Migrate() {
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result locked,
                     c.Query("SELECT pg_advisory_lock($1)",
                             pg::Params().Int(kMigrationLock)));
    absl::Status migrated = [&]() -> absl::Status {
      RETURN_IF_ERROR(
          c.Script("CREATE TABLE IF NOT EXISTS webnnm_schema (version "
                   "integer NOT NULL)"));
      ASSIGN_OR_RETURN(pg::Result got,
                       c.Query("SELECT version FROM webnnm_schema"));
      int64_t version = got.rows() > 0 ? got.Int(0, 0) : 0;
      if (version > kSchemaVersion) {
        return absl::FailedPreconditionError(
            StrCat("the database has schema version ", version,
                   "; this webnnmd knows up to ", kSchemaVersion,
                   " (a newer webnnmd made it)"));
      }
      for (int64_t v = version; v < kSchemaVersion; ++v) {
        pg::Transaction tx(c);
        RETURN_IF_ERROR(tx.Begin());
        RETURN_IF_ERROR(c.Script(kMigrations[v]));
        RETURN_IF_ERROR(c.Script("DELETE FROM webnnm_schema"));
        RETURN_IF_ERROR(c.Query("INSERT INTO webnnm_schema VALUES ($1)",
                                pg::Params().Int(v + 1))
                            .status());
        RETURN_IF_ERROR(tx.Commit());
      }
      return absl::OkStatus();
    }();
    (void)c.Query("SELECT pg_advisory_unlock($1)",
                  pg::Params().Int(kMigrationLock));
    return migrated;
  });
}

absl::Status PostgresStore::IntegrityCheck() {
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT version FROM webnnm_schema"));
    if (got.rows() != 1 || got.Int(0, 0) != kSchemaVersion) {
      return absl::DataLossError("database integrity: no schema version");
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<int64_t> PostgresStore::DatabaseBytes() {
  int64_t bytes = 0;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT pg_database_size(current_database())"));
    bytes = got.Int(0, 0);
    return absl::OkStatus();
  }));
  return bytes;
}

absl::StatusOr<Job> PostgresStore::CreateJob(Job job, const JobRequest& request,
                                             int max_queued) {
  job.state = JobState::kQueued;
  job.last_seq = 1;
  if (!job.created) job.created = Now();
  JobEvent event = StateEvent(JobState::kQueued);
  event.seq = 1;
  event.job_id = job.id;
  event.time = job.created;
  const std::string job_blob = ToProto(job).SerializeAsString();
  const std::string request_blob = ToProto(request).SerializeAsString();
  const std::string event_blob = ToProto(event).SerializeAsString();
  RETURN_IF_ERROR(Transact([&](pg::Connection& c) -> absl::Status {
    // One principal's submissions one at a time: the queue limit holds.
    RETURN_IF_ERROR(c.Query("SELECT pg_advisory_xact_lock(hashtext($1))",
                            pg::Params().Text(StrCat("jobs:", job.principal)))
                        .status());
    if (!request.idempotency_key.empty()) {
      ASSIGN_OR_RETURN(
          pg::Result found,
          c.Query(
              "SELECT id FROM jobs WHERE principal = $1 AND "
              "idempotency_key = $2",
              pg::Params().Text(job.principal).Text(request.idempotency_key)));
      if (found.rows() > 0) {
        return absl::AlreadyExistsError(
            StrCat("idempotency key '", request.idempotency_key,
                   "' already names job ", found.Text(0, 0)));
      }
    }
    if (max_queued > 0) {
      ASSIGN_OR_RETURN(pg::Result count,
                       c.Query("SELECT count(*) FROM jobs WHERE principal = "
                               "$1 AND state = $2",
                               pg::Params()
                                   .Text(job.principal)
                                   .Int(static_cast<int>(JobState::kQueued))));
      const int64_t queued = count.Int(0, 0);
      if (queued >= max_queued) {
        return absl::ResourceExhaustedError(
            StrCat(job.principal, " has ", queued,
                   " queued jobs; the limit is ", max_queued));
      }
    }
    RETURN_IF_ERROR(
        c.Query("INSERT INTO jobs (id, principal, state, created_ms, "
                "idempotency_key, job, request, replicas) VALUES ($1, $2, "
                "$3, $4, $5, $6, $7, $8)",
                pg::Params()
                    .Text(job.id)
                    .Text(job.principal)
                    .Int(static_cast<int>(job.state))
                    .Int(Millis(*job.created))
                    .Text(request.idempotency_key)
                    .Bytes(job_blob)
                    .Bytes(request_blob)
                    .Int(ReplicasOf(request)))
            .status());
    RETURN_IF_ERROR(c.Query("INSERT INTO job_events (job_id, seq, time_ms, "
                            "type, event) VALUES ($1, 1, $2, $3, $4)",
                            pg::Params()
                                .Text(job.id)
                                .Int(Millis(*event.time))
                                .Int(static_cast<int>(event.type))
                                .Bytes(event_blob))
                        .status());
    return c
        .Query("SELECT pg_notify('webnnm', $1)",
               pg::Params().Text(StrCat("j ", job.id)))
        .status();
  }));
  return job;
}

absl::StatusOr<std::optional<StoredJob>> PostgresStore::GetJobIn(
    pg::Connection& c, const std::string& id, bool lock) {
  ASSIGN_OR_RETURN(
      pg::Result got,
      c.Query(lock ? "SELECT job, request FROM jobs WHERE id = $1 FOR UPDATE"
                   : "SELECT job, request FROM jobs WHERE id = $1",
              pg::Params().Text(id)));
  if (got.rows() == 0) return std::nullopt;
  ASSIGN_OR_RETURN(v1::Job job, Parse<v1::Job>(got.Text(0, 0), "job"));
  ASSIGN_OR_RETURN(v1::SubmitJobRequest request,
                   Parse<v1::SubmitJobRequest>(got.Text(0, 1), "request"));
  return StoredJob{FromProto(job), FromProto(request)};
}

absl::StatusOr<std::optional<StoredJob>> PostgresStore::GetJob(
    const std::string& id) {
  std::optional<StoredJob> out;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(out, GetJobIn(c, id, false));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::optional<Job>> PostgresStore::FindByIdempotencyKey(
    const std::string& principal, const std::string& key) {
  if (key.empty()) return std::nullopt;
  std::optional<Job> out;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT job FROM jobs WHERE principal = $1 AND "
                             "idempotency_key = $2",
                             pg::Params().Text(principal).Text(key)));
    if (got.rows() == 0) return absl::OkStatus();
    ASSIGN_OR_RETURN(v1::Job job, Parse<v1::Job>(got.Text(0, 0), "job"));
    out = FromProto(job);
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<Job>> PostgresStore::ListJobs(
    const std::string& principal, JobState state, int64_t offset, int limit) {
  std::vector<Job> jobs;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result got,
        c.Query("SELECT job, id FROM jobs WHERE ($1 = '' OR principal = $1) "
                "AND ($2::integer = 0 OR state = $2::integer) ORDER BY "
                "created_ms DESC, id DESC LIMIT $3 OFFSET $4",
                pg::Params()
                    .Text(principal)
                    .Int(static_cast<int>(state))
                    .Int(limit)
                    .Int(offset)));
    for (int r = 0; r < got.rows(); ++r) {
      absl::StatusOr<v1::Job> job = Parse<v1::Job>(got.Text(r, 0), "job");
      if (!job.ok()) {
        // One damaged row must not hide every other job (as SQLite's).
        std::cerr << "webnnmd: job " << got.Text(r, 1)
                  << " in the database does not read ("
                  << job.status().message() << "); ListJobs skips it\n";
        continue;
      }
      jobs.push_back(FromProto(*job));
    }
    return absl::OkStatus();
  }));
  return jobs;
}

absl::StatusOr<int64_t> PostgresStore::CountJobs(const std::string& principal,
                                                 JobState state) {
  int64_t count = 0;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result got,
        c.Query("SELECT count(*) FROM jobs WHERE ($1 = '' OR principal = $1) "
                "AND ($2::integer = 0 OR state = $2::integer)",
                pg::Params().Text(principal).Int(static_cast<int>(state))));
    count = got.Int(0, 0);
    return absl::OkStatus();
  }));
  return count;
}

absl::StatusOr<std::vector<std::string>> PostgresStore::JobIds(JobState state) {
  std::vector<std::string> ids;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT id FROM jobs WHERE state = $1 ORDER BY "
                             "created_ms, id",
                             pg::Params().Int(static_cast<int>(state))));
    for (int r = 0; r < got.rows(); ++r) ids.push_back(got.Text(r, 0));
    return absl::OkStatus();
  }));
  return ids;
}

absl::StatusOr<Job> PostgresStore::UpdateIn(
    pg::Connection& c, const std::string& id,
    const std::function<void(Job&)>& change, std::vector<JobEvent> events,
    const SnapshotBlob* snapshot, const UpdateCheck& check) {
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobIn(c, id, true));
  if (!stored) return absl::NotFoundError(StrCat("no job ", id));
  Job& job = stored->job;
  if (check) {
    ASSIGN_OR_RETURN(pg::Result lease,
                     c.Query("SELECT lease_until_ms < webnnm_now_ms() FROM "
                             "jobs WHERE id = $1",
                             pg::Params().Text(id)));
    RETURN_IF_ERROR(check(job, lease.Bool(0, 0)));
  }
  if (change) change(job);
  const Time now = Now();
  for (JobEvent& event : events) {
    event.seq = ++job.last_seq;
    event.job_id = id;
    if (!event.time) event.time = now;
    const std::string blob = ToProto(event).SerializeAsString();
    RETURN_IF_ERROR(c.Query("INSERT INTO job_events (job_id, seq, time_ms, "
                            "type, event) VALUES ($1, $2, $3, $4, $5)",
                            pg::Params()
                                .Text(id)
                                .Int(event.seq)
                                .Int(Millis(*event.time))
                                .Int(static_cast<int>(event.type))
                                .Bytes(blob))
                        .status());
    if (event.type != EventType::kEpoch) continue;
    for (const auto& [name, value] : EpochMetrics(event.epoch)) {
      if (!value) continue;
      RETURN_IF_ERROR(
          c.Query("INSERT INTO metrics (job_id, name, epoch, value) VALUES "
                  "($1, $2, $3, $4) ON CONFLICT (job_id, name, epoch) DO "
                  "UPDATE SET value = excluded.value",
                  pg::Params()
                      .Text(id)
                      .Text(name)
                      .Int(event.epoch.epoch)
                      .Double(*value))
              .status());
      RETURN_IF_ERROR(
          c.Query("INSERT INTO latest_metrics (job_id, name, epoch, value, "
                  "min, max) VALUES ($1, $2, $3, $4, $4, $4) ON CONFLICT "
                  "(job_id, name) DO UPDATE SET epoch = excluded.epoch, "
                  "value = excluded.value, min = least(latest_metrics.min, "
                  "excluded.value), max = greatest(latest_metrics.max, "
                  "excluded.value)",
                  pg::Params()
                      .Text(id)
                      .Text(name)
                      .Int(event.epoch.epoch)
                      .Double(*value))
              .status());
    }
  }
  if (snapshot) {
    RETURN_IF_ERROR(
        c.Query("INSERT INTO snapshots (job_id, kind, epoch, created_ms, "
                "bytes, data) VALUES ($1, $2, $3, $4, $5, $6)",
                pg::Params()
                    .Text(id)
                    .Text(snapshot->kind)
                    .Int(snapshot->epoch)
                    .Int(Millis(now))
                    .Int(static_cast<int64_t>(snapshot->bytes.size()))
                    .Bytes(snapshot->bytes))
            .status());
    // The newest `snapshot_retention` checkpoints and the newest snapshot.
    RETURN_IF_ERROR(
        c.Query("DELETE FROM snapshots WHERE job_id = $1 AND kind = "
                "'checkpoint' AND id NOT IN (SELECT id FROM snapshots WHERE "
                "job_id = $1 AND kind = 'checkpoint' ORDER BY id DESC LIMIT "
                "$2) AND id <> (SELECT max(id) FROM snapshots WHERE job_id = "
                "$1)",
                pg::Params().Text(id).Int(
                    std::max(0, options_.snapshot_retention)))
            .status());
    job.has_snapshot = true;
  }
  const std::string blob = ToProto(job).SerializeAsString();
  RETURN_IF_ERROR(c.Query("UPDATE jobs SET state = $2, job = $3, node = $4, "
                          "attempt = $5 WHERE id = $1",
                          pg::Params()
                              .Text(id)
                              .Int(static_cast<int>(job.state))
                              .Bytes(blob)
                              .Text(job.node)
                              .Int(job.attempt))
                      .status());
  RETURN_IF_ERROR(c.Query("SELECT pg_notify('webnnm', $1)",
                          pg::Params().Text(StrCat("j ", id)))
                      .status());
  return job;
}

absl::StatusOr<Job> PostgresStore::Update(
    const std::string& id, const std::function<void(Job&)>& change,
    std::vector<JobEvent> events, const SnapshotBlob* snapshot,
    const UpdateCheck& check) {
  Job out;
  RETURN_IF_ERROR(Transact([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(out, UpdateIn(c, id, change, events, snapshot, check));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::optional<StoredJob>> PostgresStore::ClaimJob(
    const std::string& node, std::chrono::milliseconds lease,
    const std::function<void(Job&)>& change, std::vector<JobEvent> events,
    int max_replicas) {
  std::optional<StoredJob> out;
  RETURN_IF_ERROR(Transact([&](pg::Connection& c) -> absl::Status {
    out.reset();
    ASSIGN_OR_RETURN(
        pg::Result next,
        c.Query("SELECT id FROM jobs WHERE state = $1 AND replicas <= $2 "
                "ORDER BY created_ms, id LIMIT 1 FOR UPDATE SKIP LOCKED",
                pg::Params()
                    .Int(static_cast<int>(JobState::kQueued))
                    .Int(max_replicas)));
    if (next.rows() == 0) return absl::OkStatus();
    const std::string id = next.Text(0, 0);
    ASSIGN_OR_RETURN(Job job, UpdateIn(
                                  c, id,
                                  [&](Job& j) {
                                    j.state = JobState::kRunning;
                                    j.node = node;
                                    j.attempt += 1;
                                    if (change) change(j);
                                  },
                                  events, nullptr, nullptr));
    RETURN_IF_ERROR(c.Query("UPDATE jobs SET lease_until_ms = "
                            "webnnm_now_ms() + $2 WHERE id = $1",
                            pg::Params().Text(id).Int(lease.count()))
                        .status());
    ASSIGN_OR_RETURN(out, GetJobIn(c, id, false));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status PostgresStore::OpenReplicaSlots(const std::string& id,
                                             const Fence& fence, int size) {
  return Transact([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobIn(c, id, true));
    if (!stored) return absl::NotFoundError(StrCat("no job ", id));
    RETURN_IF_ERROR(CheckFence(id, stored->job, fence, false));
    RETURN_IF_ERROR(c.Query("DELETE FROM job_replicas WHERE job_id = $1",
                            pg::Params().Text(id))
                        .status());
    for (int rank = 1; rank < size; ++rank) {
      RETURN_IF_ERROR(
          c.Query("INSERT INTO job_replicas (job_id, rank, "
                  "attempt, size) VALUES ($1, $2, $3, $4)",
                  pg::Params().Text(id).Int(rank).Int(fence.attempt).Int(size))
              .status());
    }
    // Idle daemons wake to take them.
    return c
        .Query("SELECT pg_notify('webnnm', $1)",
               pg::Params().Text(StrCat("j ", id)))
        .status();
  });
}

absl::StatusOr<std::optional<ReplicaSlot>> PostgresStore::ClaimReplicaSlot(
    const std::string& node, std::chrono::milliseconds lease) {
  std::optional<ReplicaSlot> slot;
  RETURN_IF_ERROR(Transact([&](pg::Connection& c) -> absl::Status {
    slot.reset();
    ASSIGN_OR_RETURN(
        pg::Result open,
        c.Query(
            "SELECT r.job_id, r.rank, r.attempt, r.size FROM job_replicas "
            "r JOIN jobs j ON j.id = r.job_id WHERE r.node = '' AND "
            "j.state = $1 AND j.attempt = r.attempt AND j.node <> $2 AND "
            "NOT EXISTS (SELECT 1 FROM job_replicas o WHERE o.job_id = "
            "r.job_id AND o.node = $2) ORDER BY j.created_ms, r.job_id, "
            "r.rank LIMIT 1 FOR UPDATE OF r SKIP LOCKED",
            pg::Params().Int(static_cast<int>(JobState::kRunning)).Text(node)));
    if (open.rows() == 0) return absl::OkStatus();
    slot = ReplicaSlot{open.Text(0, 0), static_cast<int>(open.Int(0, 2)),
                       static_cast<int>(open.Int(0, 1)),
                       static_cast<int>(open.Int(0, 3))};
    return c
        .Query(
            "UPDATE job_replicas SET node = $3, lease_until_ms = "
            "webnnm_now_ms() + $4 WHERE job_id = $1 AND rank = $2",
            pg::Params()
                .Text(slot->job_id)
                .Int(slot->rank)
                .Text(node)
                .Int(lease.count()))
        .status();
  }));
  return slot;
}

absl::Status PostgresStore::RenewReplicaSlot(const ReplicaSlot& slot,
                                             const std::string& node,
                                             std::chrono::milliseconds lease) {
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result renewed,
        c.Query("UPDATE job_replicas r SET lease_until_ms = webnnm_now_ms() "
                "+ $5 FROM jobs j WHERE r.job_id = $1 AND r.rank = $2 AND "
                "r.attempt = $3 AND r.node = $4 AND j.id = r.job_id AND "
                "j.state = $6 AND j.attempt = r.attempt",
                pg::Params()
                    .Text(slot.job_id)
                    .Int(slot.rank)
                    .Int(slot.attempt)
                    .Text(node)
                    .Int(lease.count())
                    .Int(static_cast<int>(JobState::kRunning))));
    if (renewed.affected() == 1) return absl::OkStatus();
    return absl::AbortedError(StrCat("lease lost: job ", slot.job_id,
                                     " replica ", slot.rank, " attempt ",
                                     slot.attempt, " is over"));
  });
}

absl::Status PostgresStore::RenewLease(const std::string& id,
                                       const Fence& fence,
                                       std::chrono::milliseconds lease) {
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result renewed,
        c.Query("UPDATE jobs SET lease_until_ms = webnnm_now_ms() + $4 WHERE "
                "id = $1 AND node = $2 AND attempt = $3 AND state = $5",
                pg::Params()
                    .Text(id)
                    .Text(fence.node)
                    .Int(fence.attempt)
                    .Int(lease.count())
                    .Int(static_cast<int>(JobState::kRunning))));
    if (renewed.affected() == 1) return absl::OkStatus();
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobIn(c, id, false));
    if (!stored) return absl::NotFoundError(StrCat("no job ", id));
    return LeaseLost(id, stored->job, fence);
  });
}

absl::Status PostgresStore::ReleaseLease(const std::string& id,
                                         const Fence& fence) {
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result released,
        c.Query("UPDATE jobs SET lease_until_ms = 0 WHERE id = $1 AND node = "
                "$2 AND attempt = $3 AND state = $4",
                pg::Params()
                    .Text(id)
                    .Text(fence.node)
                    .Int(fence.attempt)
                    .Int(static_cast<int>(JobState::kRunning))));
    if (released.affected() == 1) {
      return c
          .Query("SELECT pg_notify('webnnm', $1)",
                 pg::Params().Text(StrCat("j ", id)))
          .status();
    }
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobIn(c, id, false));
    if (!stored) return absl::NotFoundError(StrCat("no job ", id));
    return LeaseLost(id, stored->job, fence);
  });
}

absl::StatusOr<std::vector<StoredJob>> PostgresStore::ExpiredJobs(
    const std::string& node) {
  std::vector<StoredJob> jobs;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result got,
        c.Query(
            "SELECT job, request FROM jobs WHERE state = $1 AND "
            "(lease_until_ms < webnnm_now_ms() OR node = $2) ORDER BY "
            "created_ms, id",
            pg::Params().Int(static_cast<int>(JobState::kRunning)).Text(node)));
    for (int r = 0; r < got.rows(); ++r) {
      ASSIGN_OR_RETURN(v1::Job job, Parse<v1::Job>(got.Text(r, 0), "job"));
      ASSIGN_OR_RETURN(v1::SubmitJobRequest request,
                       Parse<v1::SubmitJobRequest>(got.Text(r, 1), "request"));
      jobs.push_back({FromProto(job), FromProto(request)});
    }
    return absl::OkStatus();
  }));
  return jobs;
}

absl::StatusOr<std::vector<JobEvent>> PostgresStore::Events(
    const std::string& id, int64_t from_seq, int limit) {
  std::vector<JobEvent> events;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT event FROM job_events WHERE job_id = $1 "
                             "AND seq >= $2 ORDER BY seq LIMIT $3",
                             pg::Params().Text(id).Int(from_seq).Int(limit)));
    for (int r = 0; r < got.rows(); ++r) {
      ASSIGN_OR_RETURN(v1::JobEvent e,
                       Parse<v1::JobEvent>(got.Text(r, 0), "event"));
      events.push_back(FromProto(e));
    }
    return absl::OkStatus();
  }));
  return events;
}

absl::Status PostgresStore::DeleteJob(const std::string& id) {
  return Transact([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result deleted,
        c.Query("DELETE FROM jobs WHERE id = $1", pg::Params().Text(id)));
    if (deleted.affected() == 0) {
      return absl::NotFoundError(StrCat("no job ", id));
    }
    return c
        .Query("SELECT pg_notify('webnnm', $1)",
               pg::Params().Text(StrCat("d ", id)))
        .status();
  });
}

absl::StatusOr<std::vector<MetricSeries>> PostgresStore::Metrics(
    const std::string& id, const std::vector<std::string>& names) {
  std::vector<MetricSeries> series;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT name, epoch, value FROM metrics WHERE "
                             "job_id = $1 ORDER BY name, epoch",
                             pg::Params().Text(id)));
    for (int r = 0; r < got.rows(); ++r) {
      std::string name = got.Text(r, 0);
      if (!names.empty() &&
          std::find(names.begin(), names.end(), name) == names.end()) {
        continue;
      }
      if (series.empty() || series.back().name != name) {
        series.push_back({.name = name});
      }
      series.back().points.push_back(
          {static_cast<int>(got.Int(r, 1)), got.Double(r, 2)});
    }
    return absl::OkStatus();
  }));
  return series;
}

absl::StatusOr<std::optional<std::string>> PostgresStore::LatestSnapshotKey(
    const std::string& id) {
  std::optional<std::string> key;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT id, kind, epoch, bytes FROM snapshots "
                             "WHERE job_id = $1 ORDER BY id DESC LIMIT 1",
                             pg::Params().Text(id)));
    if (got.rows() == 0) return absl::OkStatus();
    key = StrCat(id, "/", got.Int(0, 0), "/", got.Text(0, 1), "/",
                 got.Int(0, 2), "/", got.Int(0, 3));
    return absl::OkStatus();
  }));
  return key;
}

absl::StatusOr<std::optional<SnapshotBlob>> PostgresStore::LatestSnapshot(
    const std::string& id) {
  std::optional<SnapshotBlob> blob;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT kind, epoch, data FROM snapshots WHERE "
                             "job_id = $1 ORDER BY id DESC LIMIT 1",
                             pg::Params().Text(id)));
    if (got.rows() == 0) return absl::OkStatus();
    blob = SnapshotBlob{got.Text(0, 0), static_cast<int>(got.Int(0, 1)),
                        got.Text(0, 2)};
    return absl::OkStatus();
  }));
  return blob;
}

}  // namespace webnnm::server
