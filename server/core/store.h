// The daemon's store: jobs, their events, metrics and snapshots, and
// datasets (DESIGN §6), behind one interface with two implementations —
// SqliteStore (store/sqlite_store.h), the embedded default, and MemoryStore
// (memory_store.h), for tests of the core.
//
// The contract both keep (tests/store_test runs one suite on both):
//   - a job is created QUEUED with its first event (STATE QUEUED); a second
//     job with the same principal and idempotency key is AlreadyExists; with
//     `max_queued` > 0 a principal with that many queued jobs already is
//     ResourceExhausted, checked atomically with the insert;
//   - Update() changes a job and appends events numbered from the job's
//     last_seq + 1 without gaps (their job id and time set there), with an
//     optional snapshot, all or nothing; an EPOCH event also records its
//     metrics (trainLoss, validationLoss, lr, samplesPerSecond); a snapshot
//     keeps the `snapshot_retention` newest checkpoints besides the newest
//     snapshot, and marks the job has_snapshot;
//   - listings are newest first (jobs) or oldest first (JobIds, datasets);
//     a `principal` filter of "" means everyone's.
// Dataset content lives in files under DatasetFolder(sha256), shared by the
// principals that uploaded it; the rows say who sees what.
//
// Thread-safety: every method may be called from any thread.
#ifndef WEBNNM_SERVER_CORE_STORE_H_
#define WEBNNM_SERVER_CORE_STORE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/core/job.h"

namespace webnnm::server {

struct StoredJob {
  Job job;
  JobRequest request;
};

struct SnapshotBlob {
  std::string kind;  // "checkpoint" or "final"
  int epoch = 0;
  std::string bytes;
};

class Store {
 public:
  virtual ~Store() = default;

  // --- Jobs. `job` has its id, principal, kind and creation time set.
  virtual absl::StatusOr<Job> CreateJob(Job job, const JobRequest& request,
                                        int max_queued = 0) = 0;
  // A finished job created directly (an imported snapshot).
  absl::StatusOr<Job> CreateFinishedJob(Job job, const SnapshotBlob& snapshot);
  virtual absl::StatusOr<std::optional<StoredJob>> GetJob(
      const std::string& id) = 0;
  virtual absl::StatusOr<std::optional<Job>> FindByIdempotencyKey(
      const std::string& principal, const std::string& key) = 0;
  // Newest first; `state` kUnspecified: every state.
  virtual absl::StatusOr<std::vector<Job>> ListJobs(
      const std::string& principal, JobState state, int64_t offset,
      int limit) = 0;
  virtual absl::StatusOr<int64_t> CountJobs(const std::string& principal,
                                            JobState state) = 0;
  // Ids of the jobs in `state`, oldest first.
  virtual absl::StatusOr<std::vector<std::string>> JobIds(JobState state) = 0;

  // Changes a job (`change` may be null) and appends `events`, with an
  // optional snapshot, in one transaction. Returns the job as stored.
  // NotFound for an unknown job.
  virtual absl::StatusOr<Job> Update(
      const std::string& id, const std::function<void(Job&)>& change,
      std::vector<JobEvent> events, const SnapshotBlob* snapshot = nullptr) = 0;
  // Events with seq >= from_seq, at most `limit`, in order.
  virtual absl::StatusOr<std::vector<JobEvent>> Events(const std::string& id,
                                                       int64_t from_seq,
                                                       int limit) = 0;
  // Deletes a job with its events, metrics and snapshots.
  virtual absl::Status DeleteJob(const std::string& id) = 0;

  // Every metric of the job (or those in `names`), by name, by epoch.
  virtual absl::StatusOr<std::vector<MetricSeries>> Metrics(
      const std::string& id, const std::vector<std::string>& names) = 0;
  // Which snapshot is the job's newest (no data), if any: a cheap check
  // that a cached model is current.
  virtual absl::StatusOr<std::optional<std::string>> LatestSnapshotKey(
      const std::string& id) = 0;
  // The newest snapshot of the job (final or checkpoint), if any.
  virtual absl::StatusOr<std::optional<SnapshotBlob>> LatestSnapshot(
      const std::string& id) = 0;

  // --- Datasets.
  virtual std::string DatasetFolder(const std::string& sha256) const = 0;
  virtual absl::StatusOr<std::optional<Dataset>> FindDataset(
      const std::string& principal, const std::string& sha256) = 0;
  virtual absl::StatusOr<std::optional<Dataset>> GetDataset(
      const std::string& principal, const std::string& id) = 0;
  virtual absl::Status InsertDataset(const std::string& principal,
                                     const Dataset& dataset) = 0;
  virtual absl::StatusOr<std::vector<Dataset>> ListDatasets(
      const std::string& principal) = 0;
  // Deletes the record (NotFound unless `principal` — "" for any — owns
  // it): true when no other record holds its content (its folder may go).
  virtual absl::StatusOr<bool> DeleteDataset(const std::string& principal,
                                             const std::string& id) = 0;

  // A check of the store's own consistency: OK or the problems found.
  virtual absl::Status IntegrityCheck() = 0;
};

// The metrics an EPOCH event records, by name (absent ones left out).
std::vector<std::pair<std::string, std::optional<double>>> EpochMetrics(
    const train::EpochReport& epoch);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_STORE_H_
