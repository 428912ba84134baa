// The PostgreSQL store's connections, jobs, events, metrics and snapshots
// (postgres_schema.cc: the schema; postgres_leases.cc: claims and replica
// slots; postgres_data.cc: datasets, nodes, notices; postgres_uploads.cc:
// uploads).
#include "server/store/postgres_store.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/convert/convert.h"
#include "server/store/postgres_internal.h"

namespace webnnm::server {

using postgres_internal::Millis;
using postgres_internal::Parse;

namespace {

pg::SessionTimeouts TimeoutsOf(std::chrono::milliseconds lease) {
  if (lease.count() <= 0) return {};
  return {.idle_in_transaction = lease,
          .lock = lease,
          .statement = std::max<std::chrono::milliseconds>(
              lease * 10, std::chrono::seconds(60))};
}

}  // namespace

PostgresStore::PostgresStore(Options options)
    : options_(std::move(options)),
      pool_(options_.uri, std::max(1, options_.connections),
            TimeoutsOf(options_.lease)) {}

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
    bool committing = false;
    {
      pg::Transaction tx(*c);
      status = tx.Begin();
      if (status.ok()) status = body(*c);
      if (status.ok()) {
        committing = true;
        status = tx.Commit();
      }
    }
    if (status.ok()) return status;
    if (committing && c->Broken()) {
      // The COMMIT may have landed before the connection broke: running
      // the body again could write its events twice.
      return absl::UnavailableError(
          StrCat("the database connection broke while committing (the "
                 "change may or may not have been made): ",
                 status.message()));
    }
    const bool again =
        (status.code() == absl::StatusCode::kAborted && !IsLeaseLost(status)) ||
        c->Broken();
    if (!again) return status;
  }
  return status;
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
