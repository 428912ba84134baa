// The PostgreSQL store's schema: its migrations, run under an advisory
// lock so that daemons starting together migrate once, and the check of
// its version.
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/store/postgres_store.h"

namespace webnnm::server {

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
    // 3: whether a daemon takes replica slots (the most replicas it runs),
    // so that a claim counts only the daemons that would join it.
    R"sql(
ALTER TABLE nodes ADD COLUMN max_replicas integer NOT NULL DEFAULT 1;
)sql",
};

// The advisory lock that migrations run under.
constexpr int64_t kMigrationLock = 0x5745424e4e4d;  // "WEBNNM"

}  // namespace

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

}  // namespace webnnm::server
