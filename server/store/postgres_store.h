// The PostgreSQL store (DESIGN §6, cluster mode): core/store.h over one
// PostgreSQL database that several daemons share.
//
// Every table of the SQLite store, with the same rows (a job is kept as its
// webnnm.v1.Job message plus the columns that calls filter on), a schema
// version table and migrations run under an advisory lock (daemons that
// start together migrate once). Besides:
//   - leases: a job's node, attempt and lease_until_ms columns; ClaimJob
//     takes the oldest queued job with FOR UPDATE SKIP LOCKED, so daemons
//     claiming at once never take one job twice; every fenced write locks
//     the job's row (FOR UPDATE) before checking its claim; lease times are
//     the database server's clock, so daemons' clocks may disagree;
//   - dataset content in the database (dataset_content: 1 MiB chunks by
//     sha256 and file), fetched into `cache_folder` the first time a
//     daemon reads it; uploads in progress too (uploads, upload_chunks),
//     with their caps counted across the cluster and their expiry by lease;
//   - nodes: each daemon's heartbeat, so that any daemon lists the live
//     ones;
//   - data-parallel jobs (schema 2): a job's replicas column, and the
//     slots of ranks 1.. of its current claim (job_replicas) that other
//     daemons take; the replicas meet through the rendezvous table
//     (pg_rendezvous.h);
//   - notices: every write NOTIFYs channel `webnnm` in its transaction
//     (delivered at commit): "j ID" a job changed, "d ID" a job was
//     deleted, "p ID EPOCH EPOCHS STEP STEPS ROWS SECONDS" progress, "x
//     SHA256" content removed; Listen() runs a thread on a connection of its
//     own that LISTENs and passes them on (kResync after a reconnection).
//
// Thread-safety: every method may be called from any thread; a pool of
// connections lets calls run at once.
#ifndef WEBNNM_SERVER_STORE_POSTGRES_STORE_H_
#define WEBNNM_SERVER_STORE_POSTGRES_STORE_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/core/store.h"
#include "server/store/pg.h"

namespace webnnm::server {

class PostgresStore final : public Store {
 public:
  struct Options {
    std::string uri;           // postgresql://USER@HOST:PORT/DBNAME
    std::string cache_folder;  // this daemon's copies of dataset content
    int snapshot_retention = 1;
    int connections = 4;
    // The job lease: every session's idle-in-transaction and lock
    // timeouts, and a tenth of its statement timeout (at least 60 s), so
    // that a daemon paused inside a transaction loses its locks within a
    // lease (docs/deployment.md). Zero: PostgreSQL's defaults.
    std::chrono::milliseconds lease{0};
  };
  // Connects, creates or migrates the schema: Unavailable when the server
  // cannot be reached, FailedPrecondition for a newer schema.
  static absl::StatusOr<std::unique_ptr<PostgresStore>> Open(Options options);
  ~PostgresStore() override;

  static constexpr int kSchemaVersion = 3;

  bool Shared() const override { return true; }

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
  absl::StatusOr<std::vector<std::string>> QueuedNeedingMore(
      int replicas) override;
  absl::StatusOr<std::optional<std::string>> OlderJobNeedingReplicas(
      const std::string& node, const std::string& id) override;
  absl::Status RenewReplicaSlot(const ReplicaSlot& slot,
                                const std::string& node,
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

  absl::Status Heartbeat(const NodeRecord& node) override;
  absl::StatusOr<std::vector<NodeRecord>> ListNodes(
      std::chrono::milliseconds within) override;
  absl::Status RemoveNode(const std::string& name) override;

  void Listen(std::function<void(const StoreNotice&)> listener) override;
  void PublishProgress(const std::string& id,
                       const train::StepReport& report) override;

  std::string DatasetFolder(const std::string& sha256) const override;
  absl::StatusOr<std::string> DatasetContent(
      const std::string& sha256) override;
  absl::Status PutDatasetContent(
      const std::string& sha256, const std::string& folder,
      const std::vector<std::string>& files) override;
  absl::Status RemoveDatasetContent(const std::string& sha256) override;
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

  absl::Status BeginUpload(const UploadRecord& upload,
                           const UploadCaps& caps) override;
  absl::StatusOr<std::optional<UploadRecord>> GetUpload(
      const std::string& principal, const std::string& id, int kind,
      const UploadCaps& caps) override;
  absl::Status AppendUpload(const std::string& id, const std::string& file,
                            int64_t offset, std::string_view data) override;
  absl::StatusOr<std::string> UploadFiles(const std::string& id) override;
  absl::Status FinishUpload(const std::string& id,
                            const std::string& result) override;
  absl::Status DropUpload(const std::string& id) override;
  absl::StatusOr<int> OpenUploads(const UploadCaps& caps) override;

  // SELECT 1 (the server answers) and the schema's version.
  absl::Status IntegrityCheck() override;

  // pg_database_size of the database, in bytes.
  absl::StatusOr<int64_t> DatabaseBytes();
  // The server's URI without its password.
  std::string Describe() const { return pg::Redacted(options_.uri); }

 private:
  explicit PostgresStore(Options options);
  absl::Status Migrate();
  // Runs `body` on a pooled connection (once more on a fresh one when the
  // connection broke).
  absl::Status WithConnection(
      const std::function<absl::Status(pg::Connection&)>& body);
  // Runs `body` in a transaction, again (up to three times) after a
  // serialization failure or a broken connection.
  absl::Status Transact(
      const std::function<absl::Status(pg::Connection&)>& body);
  // Update's body, in the caller's transaction.
  absl::StatusOr<Job> UpdateIn(pg::Connection& c, const std::string& id,
                               const std::function<void(Job&)>& change,
                               std::vector<JobEvent> events,
                               const SnapshotBlob* snapshot,
                               const UpdateCheck& check);
  absl::StatusOr<std::optional<StoredJob>> GetJobIn(pg::Connection& c,
                                                    const std::string& id,
                                                    bool lock);
  void RunListener();
  void Deliver(const std::string& payload);
  // Removes the local folder UploadFiles made for `id`.
  void ForgetUploadFiles(const std::string& id);

  const Options options_;
  pg::Pool pool_;
  absl::Mutex listener_mutex_;
  std::function<void(const StoreNotice&)> listener_
      ABSL_GUARDED_BY(listener_mutex_);
  std::thread listener_thread_;
  std::atomic<bool> stopping_{false};
  absl::Mutex fetch_mutex_;  // one fetch of dataset content at a time
  absl::Mutex uploads_mutex_;
  std::map<std::string, std::string> upload_folders_
      ABSL_GUARDED_BY(uploads_mutex_);
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_STORE_POSTGRES_STORE_H_
