// The daemon's store: jobs, their events, metrics and snapshots, and
// datasets, in one SQLite database (DESIGN §6).
//
// WAL journal, synchronous=FULL (a committed job state, event or snapshot
// survives a power loss), a busy timeout, foreign keys, and a schema version
// (PRAGMA user_version) with migrations run in a transaction at open. One
// connection, serialized by a mutex: the store is the only writer, and every
// method is thread-safe. A job is kept as its webnnm.v1.Job message plus the
// columns that calls filter on; events are numbered per job from 1 without
// gaps, in the same transaction as the job change they report, so a watcher
// resuming from a sequence number misses nothing. An EPOCH event also writes
// its metrics (history and latest) and, with a snapshot, the checkpoint: a
// job's epoch, metrics and checkpoint are committed together or not at all.
// Dataset content lives in files under <database folder>/datasets/<sha256>,
// shared by the principals that uploaded it; the rows say who sees what.
#ifndef WEBNNM_SERVER_STORE_H_
#define WEBNNM_SERVER_STORE_H_

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/sqlite.h"
#include "webnnm/v1/webnnm.pb.h"

namespace webnnm::server {

struct StoredJob {
  v1::Job job;
  v1::SubmitJobRequest request;
};

struct SnapshotBlob {
  std::string kind;  // "checkpoint" or "final"
  int epoch = 0;
  std::string bytes;
};

class Store {
 public:
  // Opens or creates the database (and its folder); `snapshot_retention`
  // checkpoints are kept per job besides the final snapshot.
  static absl::StatusOr<std::unique_ptr<Store>> Open(
      const std::string& path, int snapshot_retention = 1);

  static constexpr int kSchemaVersion = 1;

  // --- Jobs. `job` has its id, principal, kind and creation time set; the
  // job is stored QUEUED with its first event (STATE QUEUED). A second job
  // with the same principal and idempotency key is AlreadyExists. With
  // `max_queued` > 0, a principal with that many queued jobs already is
  // ResourceExhausted (checked in the same transaction as the insert).
  absl::StatusOr<v1::Job> CreateJob(v1::Job job,
                                    const v1::SubmitJobRequest& request,
                                    int max_queued = 0);
  // A finished job created directly (an imported snapshot).
  absl::StatusOr<v1::Job> CreateFinishedJob(v1::Job job,
                                            const SnapshotBlob& snapshot);
  absl::StatusOr<std::optional<StoredJob>> GetJob(const std::string& id);
  absl::StatusOr<std::optional<v1::Job>> FindByIdempotencyKey(
      const std::string& principal, const std::string& key);
  // Newest first; `principal` empty: everyone's; `state` UNSPECIFIED: all.
  absl::StatusOr<std::vector<v1::Job>> ListJobs(const std::string& principal,
                                                v1::JobState state,
                                                int64_t offset, int limit);
  absl::StatusOr<int64_t> CountJobs(const std::string& principal,
                                    v1::JobState state);
  // Ids of the jobs in `state`, oldest first.
  absl::StatusOr<std::vector<std::string>> JobIds(v1::JobState state);

  // Changes a job and appends events (their seq, time and job id are set
  // here), with an optional snapshot, in one transaction. `change` may be
  // null. Returns the job as stored. NotFound for an unknown job.
  absl::StatusOr<v1::Job> Update(const std::string& id,
                                 const std::function<void(v1::Job&)>& change,
                                 std::vector<v1::JobEvent> events,
                                 const SnapshotBlob* snapshot = nullptr);
  // Events with seq >= from_seq, at most `limit`, in order.
  absl::StatusOr<std::vector<v1::JobEvent>> Events(const std::string& id,
                                                   int64_t from_seq, int limit);
  // Deletes a job with its events, metrics and snapshots.
  absl::Status DeleteJob(const std::string& id);

  absl::StatusOr<std::vector<v1::MetricSeries>> Metrics(
      const std::string& id, const std::vector<std::string>& names);
  // Which snapshot is the job's newest (its row id, kind, epoch and size;
  // no data), if any: a cheap check that a cached model is current.
  absl::StatusOr<std::optional<std::string>> LatestSnapshotKey(
      const std::string& id);
  // The newest snapshot of the job (final or checkpoint), if any.
  absl::StatusOr<std::optional<SnapshotBlob>> LatestSnapshot(
      const std::string& id);

  // --- Datasets.
  std::string DatasetFolder(const std::string& sha256) const;
  absl::StatusOr<std::optional<v1::Dataset>> FindDataset(
      const std::string& principal, const std::string& sha256);
  // `principal` empty: anyone's.
  absl::StatusOr<std::optional<v1::Dataset>> GetDataset(
      const std::string& principal, const std::string& id);
  absl::Status InsertDataset(const std::string& principal,
                             const v1::Dataset& dataset);
  absl::StatusOr<std::vector<v1::Dataset>> ListDatasets(
      const std::string& principal);

  // PRAGMA integrity_check: OK or the problems found.
  absl::Status IntegrityCheck();

 private:
  Store(std::unique_ptr<Database> db, std::string folder, int retention)
      : db_(std::move(db)), folder_(std::move(folder)), retention_(retention) {}
  absl::Status Migrate();
  absl::Status PutJob(const v1::Job& job);
  absl::StatusOr<std::optional<StoredJob>> GetJobLocked(const std::string& id);

  std::mutex mutex_;
  std::unique_ptr<Database> db_;
  std::string folder_;
  int retention_;
};

// Now, as a protobuf Timestamp.
google::protobuf::Timestamp Now();

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_STORE_H_
