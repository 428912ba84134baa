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
//   - a job runs under a lease: ClaimJob takes the oldest queued job for a
//     daemon (`node`), RUNNING, with its attempt + 1 (the fencing token)
//     and a lease that the daemon renews while the job runs; an Update
//     Fenced by the claim (its node and attempt) is Aborted ("lease
//     lost") unless the job is still RUNNING under that very claim, so a
//     daemon whose lease was taken over can write nothing; a Fence with
//     `expired` also needs the lease to have run out (another daemon
//     requeueing a dead one's job). Two daemons never hold one job.
// Dataset content is shared by the principals that uploaded it; the rows
// say who sees what. The SQLite and memory stores keep it in files under
// DatasetFolder(sha256); a shared store (PostgreSQL) keeps it in the
// database and fetches it into a local cache folder when a daemon reads it.
// Uploads in progress are the store's too (their caps and their expiry
// hold for every daemon of a shared store).
//
// Thread-safety: every method may be called from any thread.
#ifndef WEBNNM_SERVER_CORE_STORE_H_
#define WEBNNM_SERVER_CORE_STORE_H_

#include <chrono>
#include <functional>
#include <map>
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

// A claim on a running job: whose it is, and which attempt.
struct Fence {
  std::string node;
  int attempt = 0;
  bool expired = false;  // also require the lease to have run out
};

// What an Update checks of the job as stored, in its transaction, before
// changing it (`lease_expired`: whether the job's lease has run out): a
// status other than OK aborts the update with it.
using UpdateCheck =
    std::function<absl::Status(const Job& stored, bool lease_expired)>;
// The check of a fenced write (CheckFence).
UpdateCheck Fenced(const std::string& id, const Fence& fence);

// The Aborted status of a write whose fence no longer holds, and the test.
absl::Status LeaseLost(const std::string& id, const Job& stored,
                       const Fence& fence);
bool IsLeaseLost(const absl::Status& status);
// OK when `stored` is RUNNING under `fence` (and, with fence.expired, its
// lease has run out: `lease_expired`), else LeaseLost.
absl::Status CheckFence(const std::string& id, const Job& stored,
                        const Fence& fence, bool lease_expired);

// How many replicas a job asked for (its `replicas` hyperparameter).
int ReplicasOf(const JobRequest& request);

// One rank > 0 of a data-parallel job's claim, run by another daemon.
struct ReplicaSlot {
  std::string job_id;
  int attempt = 0;  // the claim's (rank 0's) attempt
  int rank = 0, size = 0;
};

// A daemon, as the store knows it.
struct NodeRecord {
  std::string name, address, version;
  std::optional<Time> started, seen;
  int workers = 0, busy = 0, threads = 0;
  // The most replicas of a data-parallel job it runs (1: it takes no
  // replica slots).
  int max_replicas = 1;
  std::vector<std::string> running;  // ListNodes: the jobs it holds
};

// What a shared store tells every daemon of what another one did.
struct StoreNotice {
  enum class Kind {
    kJob,       // a job changed (events, state) or was created
    kProgress,  // a running job's place within its epoch
    kDeleted,   // a job was deleted
    kResync,    // notices may have been missed: look again at everything
  };
  Kind kind = Kind::kJob;
  std::string job_id;
  train::StepReport progress;  // kProgress
};

// An upload in progress (a dataset's or a snapshot's), as the store keeps
// it between its calls.
struct UploadRecord {
  enum Kind { kDataset = 0, kSnapshot = 1 };
  std::string id, principal;
  int kind = kDataset;
  Dataset dataset;  // name, format, sha256
  int64_t total_bytes = 0, received = 0;
  std::map<std::string, int64_t> files;  // bytes received per file
  bool finished = false;
  std::string result;  // once finished: the dataset or job it made
};

// What bounds the open (unfinished) uploads of one principal.
struct UploadCaps {
  int max_open = 8;
  int64_t max_open_bytes = 1ll << 30;
  std::chrono::seconds idle_timeout{3600};  // an upload's lease
};

// ResourceExhausted, naming the cap, when a principal's `open` uploads
// announcing `bytes`, and one more of `more` bytes, would pass `caps`.
absl::Status CheckUploadCaps(int open, int64_t bytes, int64_t more,
                             const UploadCaps& caps);
// Whether `size` bytes at `offset` of `file` continue `upload` within its
// announced total (FailedPrecondition, InvalidArgument).
absl::Status CheckAppend(const UploadRecord& upload, const std::string& file,
                         int64_t offset, size_t size);

class Store {
 public:
  virtual ~Store() = default;

  // Whether several daemons share this store (PostgreSQL): then jobs run
  // where a lease says, and notices (Listen) say what the others did.
  virtual bool Shared() const { return false; }

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
  // NotFound for an unknown job; what `check` returns when it is not OK
  // (Fenced: LeaseLost unless the job is RUNNING under the fence).
  virtual absl::StatusOr<Job> Update(const std::string& id,
                                     const std::function<void(Job&)>& change,
                                     std::vector<JobEvent> events,
                                     const SnapshotBlob* snapshot = nullptr,
                                     const UpdateCheck& check = nullptr) = 0;

  // --- Leases. Claims the oldest queued job for `node` that asks for at
  // most `max_replicas` replicas: RUNNING, node set, attempt + 1, a lease
  // of `lease`, then `change` and `events` as Update applies them, in one
  // transaction; nullopt when none is queued.
  virtual absl::StatusOr<std::optional<StoredJob>> ClaimJob(
      const std::string& node, std::chrono::milliseconds lease,
      const std::function<void(Job&)>& change, std::vector<JobEvent> events,
      int max_replicas = 1) = 0;
  // Extends a claim's lease to `lease` from now; LeaseLost when the job is
  // no longer RUNNING under `fence`.
  virtual absl::Status RenewLease(const std::string& id, const Fence& fence,
                                  std::chrono::milliseconds lease) = 0;
  // Ends a claim's lease now (the job stays RUNNING: another daemon may
  // requeue it at once). LeaseLost as RenewLease.
  virtual absl::Status ReleaseLease(const std::string& id,
                                    const Fence& fence) = 0;
  // RUNNING jobs whose lease has run out, or that `node` holds (a daemon
  // starting again under its name), oldest first.
  virtual absl::StatusOr<std::vector<StoredJob>> ExpiredJobs(
      const std::string& node) = 0;

  // --- Replicas of data-parallel jobs (a shared store; the others have
  // none). Opens ranks 1..size-1 of the claim `fence` of job `id` for
  // other daemons to take (FailedPrecondition without a shared store).
  virtual absl::Status OpenReplicaSlots(const std::string& id,
                                        const Fence& fence, int size);
  // Takes an open slot, for `node`, of a job RUNNING under the slot's
  // attempt — never of a job `node` runs, nor a second slot of one job —
  // with a lease; nullopt when there is none.
  virtual absl::StatusOr<std::optional<ReplicaSlot>> ClaimReplicaSlot(
      const std::string& node, std::chrono::milliseconds lease);
  // The oldest RUNNING job created before job `id` (by creation time, then
  // id) with an open slot that `node` could take (as ClaimReplicaSlot
  // would), or nullopt: what rank 0 of `id`, waiting for its replicas,
  // gives way to — two daemons that claimed two jobs at once would each
  // wait for the other's worker until their rendezvous timed out, again
  // and again; the older job always goes on.
  virtual absl::StatusOr<std::optional<std::string>> OlderJobNeedingReplicas(
      const std::string& node, const std::string& id);
  // Queued jobs that ask for more than `replicas` replicas, oldest first.
  virtual absl::StatusOr<std::vector<std::string>> QueuedNeedingMore(
      int replicas);
  // Renews a slot's lease: LeaseLost when its job no longer runs under
  // that attempt.
  virtual absl::Status RenewReplicaSlot(const ReplicaSlot& slot,
                                        const std::string& node,
                                        std::chrono::milliseconds lease);

  // --- Nodes: the daemons that serve this store.
  // Records a daemon as alive now (inserting or updating it by name).
  virtual absl::Status Heartbeat(const NodeRecord& node) = 0;
  // Daemons seen within `within`, by name, each with the jobs it runs
  // (RUNNING under its name; `busy` is their number).
  virtual absl::StatusOr<std::vector<NodeRecord>> ListNodes(
      std::chrono::milliseconds within) = 0;
  virtual absl::Status RemoveNode(const std::string& name) = 0;

  // --- Notices (a shared store): `listener` hears what any daemon did,
  // from a thread of the store's, until the store is destroyed or another
  // listener (nullptr: none) replaces it; once Listen returns, the old
  // listener is not called again. The default stores have nothing to tell
  // (one daemon sees its own changes).
  virtual void Listen(std::function<void(const StoreNotice&)>) {}
  // Tells every daemon a running job's progress (kProgress); nothing by
  // default.
  virtual void PublishProgress(const std::string&, const train::StepReport&) {}
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

  // --- Datasets. Where this daemon reads content `sha256` (for a shared
  // store, a local cache that DatasetContent fills).
  virtual std::string DatasetFolder(const std::string& sha256) const = 0;
  // The local folder holding content `sha256`, fetched first if needed;
  // NotFound when the store has no such content.
  virtual absl::StatusOr<std::string> DatasetContent(
      const std::string& sha256) = 0;
  // Stores `files` of `folder` (a finished upload's) as content `sha256`
  // (moving them, for files); content already there is kept as it is.
  virtual absl::Status PutDatasetContent(
      const std::string& sha256, const std::string& folder,
      const std::vector<std::string>& files) = 0;
  // Removes content `sha256` (no record holds it any longer).
  virtual absl::Status RemoveDatasetContent(const std::string& sha256) = 0;
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

  // --- Uploads in progress. Starts one (`upload` with its id, principal,
  // kind, dataset and total set): ResourceExhausted, saying which cap,
  // when the principal's open uploads would pass `caps`. Idle uploads
  // past the caps' timeout are expired first.
  virtual absl::Status BeginUpload(const UploadRecord& upload,
                                   const UploadCaps& caps) = 0;
  // The principal's upload `id` of `kind`, its lease renewed; nullopt when
  // there is none (or it expired).
  virtual absl::StatusOr<std::optional<UploadRecord>> GetUpload(
      const std::string& principal, const std::string& id, int kind,
      const UploadCaps& caps) = 0;
  // Appends `data` to `file` of upload `id` at `offset`, which must be
  // the bytes the file holds (FailedPrecondition "expected offset N"),
  // within the announced total (InvalidArgument).
  virtual absl::Status AppendUpload(const std::string& id,
                                    const std::string& file, int64_t offset,
                                    std::string_view data) = 0;
  // A local folder holding the upload's files as received.
  virtual absl::StatusOr<std::string> UploadFiles(const std::string& id) = 0;
  // Marks the upload finished with what it made (it no longer counts as
  // open; its data goes; a retried finish reads `result`).
  virtual absl::Status FinishUpload(const std::string& id,
                                    const std::string& result) = 0;
  // Forgets an upload and its data.
  virtual absl::Status DropUpload(const std::string& id) = 0;
  // Open (unfinished, unexpired) uploads, everyone's.
  virtual absl::StatusOr<int> OpenUploads(const UploadCaps& caps) = 0;

  // A check of the store's own consistency: OK or the problems found.
  virtual absl::Status IntegrityCheck() = 0;
};

// The metrics an EPOCH event records, by name (absent ones left out).
std::vector<std::pair<std::string, std::optional<double>>> EpochMetrics(
    const train::EpochReport& epoch);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_STORE_H_
