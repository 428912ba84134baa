// A Store (store.h) in memory: the same contract as the SQLite store, kept
// in maps under one mutex, gone with the process. For tests of the core
// (the job manager) and of the store contract itself; dataset content and
// uploads still live in files, under `folder`/datasets (local_store.h).
#ifndef WEBNNM_SERVER_CORE_MEMORY_STORE_H_
#define WEBNNM_SERVER_CORE_MEMORY_STORE_H_

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/core/local_store.h"

namespace webnnm::server {

class MemoryStore : public LocalStore {
 public:
  // `shared`: it says it is shared (Shared()), so that job managers on it
  // behave as daemons of a cluster do (tests of leases; no notices).
  explicit MemoryStore(std::string folder, int snapshot_retention = 1,
                       bool shared = false)
      : LocalStore(std::move(folder)),
        retention_(std::max(0, snapshot_retention)),
        shared_(shared) {}

  bool Shared() const override { return shared_; }

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
  absl::Status OpenReplicaSlots(const std::string& id, const Fence& fence,
                                int size) override;
  absl::StatusOr<std::optional<ReplicaSlot>> ClaimReplicaSlot(
      const std::string& node, std::chrono::milliseconds lease) override;
  absl::Status RenewReplicaSlot(const ReplicaSlot& slot,
                                const std::string& node,
                                std::chrono::milliseconds lease) override;
  absl::StatusOr<std::optional<std::string>> OlderJobNeedingReplicas(
      const std::string& node, const std::string& id) override;
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

  absl::Status IntegrityCheck() override { return absl::OkStatus(); }

 private:
  struct Entry {
    StoredJob stored;
    std::vector<JobEvent> events;
    std::map<std::string, std::map<int, double>> metrics;     // name, epoch
    std::vector<std::pair<int64_t, SnapshotBlob>> snapshots;  // with ids
    Time lease_until;
  };
  struct DatasetRow {
    std::string principal;
    Dataset dataset;
  };
  // Jobs of `principal` ("": everyone's) in `state` (kUnspecified: all),
  // oldest first.
  std::vector<const Entry*> Select(const std::string& principal,
                                   JobState state) const
      ABSL_SHARED_LOCKS_REQUIRED(mutex_);
  absl::StatusOr<Job> UpdateLocked(Entry& entry,
                                   const std::function<void(Job&)>& change,
                                   std::vector<JobEvent> events,
                                   const SnapshotBlob* snapshot,
                                   const UpdateCheck& check)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const int retention_;
  const bool shared_;
  mutable absl::Mutex mutex_;
  std::map<std::string, Entry> jobs_ ABSL_GUARDED_BY(mutex_);
  std::vector<DatasetRow> datasets_ ABSL_GUARDED_BY(mutex_);
  struct SlotRow {
    int attempt = 0, size = 0;
    std::string node;  // "": open
    Time lease_until;
  };
  using SlotKey = std::pair<std::string, int>;  // (job, rank)
  std::map<SlotKey, SlotRow> slots_ ABSL_GUARDED_BY(mutex_);
  // The open slot `node` would take next (the oldest job's, its lowest
  // rank), or an empty job id.
  SlotKey OldestTakeableSlot(const std::string& node) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  int64_t next_snapshot_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_MEMORY_STORE_H_
