// The SQLite store (DESIGN §6): the embedded default implementation of
// core/store.h, one database file.
//
// WAL journal, synchronous=FULL (a committed job state, event or snapshot
// survives a power loss), a busy timeout, foreign keys, and a schema version
// (PRAGMA user_version) with migrations run in a transaction at open. One
// connection, serialized by a mutex. A job is kept as its webnnm.v1.Job
// message (server/convert/convert.h: the wire format is the storage format) plus the
// columns that calls filter on; events are numbered per job in the same
// transaction as the job change they report, so a watcher resuming from a
// sequence number misses nothing. An EPOCH event also writes its metrics
// (history and latest) and, with a snapshot, the checkpoint: a job's epoch,
// metrics and checkpoint are committed together or not at all. Dataset
// content lives in files under <database folder>/datasets/<sha256>
// (core/local_store.h). Leases (schema 2: the node, attempt and lease
// columns) work as in a shared store, for one daemon: at its start every
// job left RUNNING is its own, dead one.
#ifndef WEBNNM_SERVER_STORE_SQLITE_STORE_H_
#define WEBNNM_SERVER_STORE_SQLITE_STORE_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/core/local_store.h"
#include "server/store/sqlite.h"

namespace webnnm::server {

class SqliteStore final : public LocalStore {
 public:
  // Opens or creates the database (and its folder); `snapshot_retention`
  // checkpoints are kept per job besides the final snapshot.
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(
      const std::string& path, int snapshot_retention = 1);

  static constexpr int kSchemaVersion = 2;

  absl::StatusOr<Job> CreateJob(Job job, const JobRequest& request,
                                int max_queued = 0) override;
  absl::StatusOr<std::optional<StoredJob>> GetJob(
      const std::string& id) override;
  absl::StatusOr<std::optional<Job>> FindByIdempotencyKey(
      const std::string& principal, const std::string& key) override;
  absl::StatusOr<std::vector<Job>> ListJobs(const std::string& principal,
                                            JobState state, int64_t offset,
                                            int limit) override;
  absl::StatusOr<int64_t> CountJobs(const std::string& principal,
                                    JobState state) override;
  absl::StatusOr<std::vector<std::string>> JobIds(JobState state) override;
  absl::StatusOr<Job> Update(const std::string& id,
                             const std::function<void(Job&)>& change,
                             std::vector<JobEvent> events,
                             const SnapshotBlob* snapshot = nullptr,
                             const UpdateCheck& check = nullptr) override;
  absl::StatusOr<std::optional<StoredJob>> ClaimJob(
      const std::string& node, std::chrono::milliseconds lease,
      const std::function<void(Job&)>& change, std::vector<JobEvent> events,
      int max_replicas = 1) override;
  absl::Status RenewLease(const std::string& id, const Fence& fence,
                          std::chrono::milliseconds lease) override;
  absl::Status ReleaseLease(const std::string& id, const Fence& fence) override;
  absl::StatusOr<std::vector<StoredJob>> ExpiredJobs(
      const std::string& node) override;
  absl::StatusOr<std::vector<JobEvent>> Events(const std::string& id,
                                               int64_t from_seq,
                                               int limit) override;
  absl::Status DeleteJob(const std::string& id) override;
  absl::StatusOr<std::vector<MetricSeries>> Metrics(
      const std::string& id, const std::vector<std::string>& names) override;
  absl::StatusOr<std::optional<std::string>> LatestSnapshotKey(
      const std::string& id) override;
  absl::StatusOr<std::optional<SnapshotBlob>> LatestSnapshot(
      const std::string& id) override;

  absl::StatusOr<std::optional<Dataset>> FindDataset(
      const std::string& principal, const std::string& sha256) override;
  absl::StatusOr<std::optional<Dataset>> GetDataset(
      const std::string& principal, const std::string& id) override;
  absl::Status InsertDataset(const std::string& principal,
                             const Dataset& dataset) override;
  absl::StatusOr<std::vector<Dataset>> ListDatasets(
      const std::string& principal) override;
  absl::StatusOr<bool> DeleteDataset(const std::string& principal,
                                     const std::string& id) override;

  // PRAGMA integrity_check: OK or the problems found.
  absl::Status IntegrityCheck() override;

 private:
  SqliteStore(std::unique_ptr<Database> db, std::string folder, int retention)
      : LocalStore(std::move(folder)),
        db_(std::move(db)),
        retention_(retention) {}
  absl::Status Migrate() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  absl::Status PutJob(const Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  absl::StatusOr<std::optional<StoredJob>> GetJobLocked(const std::string& id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Update's body, in the caller's transaction.
  absl::StatusOr<Job> UpdateLocked(const std::string& id,
                                   const std::function<void(Job&)>& change,
                                   std::vector<JobEvent> events,
                                   const SnapshotBlob* snapshot,
                                   const UpdateCheck& check)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Whether job `id`'s lease has run out.
  absl::StatusOr<bool> LeaseExpired(const std::string& id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  absl::Status AppendEvent(const std::string& id, const JobEvent& event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  absl::Status RecordMetrics(const std::string& id,
                             const train::EpochReport& epoch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  absl::Status AddSnapshot(const std::string& id, const SnapshotBlob& snapshot,
                           Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  absl::Mutex mutex_;
  const std::unique_ptr<Database> db_ ABSL_PT_GUARDED_BY(mutex_);
  const int retention_;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_STORE_SQLITE_STORE_H_
