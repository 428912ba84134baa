// Running jobs: worker threads take queued jobs oldest first (`workers` at
// once; the rest wait), train or test them with the engine (engine/train/
// run.h) on `threads` compute threads each, and record everything in the
// store as it happens: state changes, the expert system's decisions and
// warnings, scouting, each epoch's metrics with a checkpoint snapshot
// (committed together), the test and the final snapshot.
//
// Data-parallel jobs (replicas N > 1, cluster mode): a worker claims one
// as rank 0 only when N live daemons have a free worker; it opens slots
// for ranks 1..N-1, which idle workers of other daemons take (they train
// the same run, writing nothing), and the replicas meet through the
// `collectives` factory. A replica that fails or stops answering makes the
// job go back to the queue (a crash, counted against the restart budget;
// a helper daemon's clean stop: free) and resume from its checkpoint. A
// job that needs more daemons than are live waits QUEUED with a WARNING
// saying so (once a change).
//
// A worker claims a job from the store (Store::ClaimJob: RUNNING on this
// daemon's node, attempt + 1, under a lease) and every write of the job's
// state, events and checkpoints is fenced by that claim, while a keeper
// thread renews the leases (every lease / 3), records this daemon's
// heartbeat and, with a shared store, requeues the jobs of daemons whose
// leases ran out. A job whose lease is lost (taken over, cancelled or
// deleted elsewhere) stops at its next step and writes nothing more.
//
// Stopping (SIGTERM): running jobs stop at their next epoch boundary, after
// that epoch's checkpoint, and stay RUNNING in the store, their leases
// released. At the next start (or, with a shared store, on any daemon at
// once), jobs left RUNNING (stopped, or killed with the daemon) are queued
// again, up to the restart budget, and resume from their last checkpoint:
// the run then ends exactly as an uninterrupted one would.
//
// Thread-safety: every public method may be called from any thread.
#ifndef WEBNNM_SERVER_CORE_JOBS_H_
#define WEBNNM_SERVER_CORE_JOBS_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "engine/check.h"
#include "engine/train/collective.h"
#include "engine/train/run.h"
#include "engine/train/trainer.h"
#include "server/core/data_cache.h"
#include "server/core/store.h"

namespace webnnm::server {

struct JobOptions {
  int workers = 1;
  int threads = 1;  // compute threads per job
  int restart_budget = 3;
  std::string default_backend = "cpu";
  // This daemon's name among those of its store (--node), and what its
  // node record says of it.
  std::string node = "webnnmd";
  std::string address, version;
  // How long a claim holds without renewal (config lease_seconds).
  std::chrono::milliseconds lease{30000};
  // The most replicas a job may ask for (1: no data-parallel jobs), and
  // with more, the replicas' collective for each place (a job, its
  // attempt, a rank of its replicas) and what ends a claim's rendezvous.
  // The factory asks `give_up` now and then while it waits for the other
  // replicas (every half second or so): a reason (not empty) ends the wait
  // with an error carrying it.
  int max_replicas = 1;
  std::function<absl::StatusOr<std::unique_ptr<train::Collective>>(
      const ReplicaSlot&, const std::function<std::string()>& give_up)>
      collectives;
  std::function<void(const ReplicaSlot&)> rendezvous_done;
  // Parsed datasets kept between a submission and its job (data_cache.h).
  int64_t data_cache_bytes = 512ll << 20;
  // The dataset limit a job's reads decode up to, as the submission's
  // check did (Limits::max_dataset_bytes; 0: the engine's default).
  int64_t max_dataset_bytes = 0;
};

class JobManager {
 public:
  JobManager(Store& store, JobOptions options)
      : store_(store),
        options_(std::move(options)),
        data_(options_.data_cache_bytes) {}
  ~JobManager() { Stop(); }

  // The backend of a job that names none.
  const std::string& default_backend() const {
    return options_.default_backend;
  }
  // Where submissions and jobs read their data through (read once).
  DataCache& data() { return data_; }
  // DataCache::Read as a RunSpec's reader.
  std::function<absl::StatusOr<train::Dataset>(const dag::Dag&,
                                               const train::DataSource&)>
  Reader();

  // Requeues (or fails, beyond the restart budget) the jobs a previous run
  // left RUNNING, then starts the workers. With a shared store,
  // FailedPrecondition first when a live daemon elsewhere has this node's
  // name.
  absl::Status Start();
  // Asks running jobs to stop at their next epoch boundary (checkpointed,
  // left RUNNING) and joins the workers. Idempotent.
  void Stop();

  // A running job's place within its epoch (what its last step reported),
  // kept in memory only; nullopt when it is not training.
  std::optional<train::StepReport> Progress(const std::string& id);
  void SetProgress(const std::string& id,
                   std::optional<train::StepReport> report);

  // Records a change through the store and wakes watchers; the change of
  // a job this daemon runs is fenced by its claim (LeaseLost once lost).
  absl::StatusOr<Job> Record(const std::string& id,
                             const std::function<void(Job&)>& change,
                             std::vector<JobEvent> events,
                             const SnapshotBlob* snapshot = nullptr,
                             const UpdateCheck& check = nullptr);
  // A job was created (or deleted): wakes watchers and workers.
  void Queued();
  // Names this daemon before Start (its node, the address it serves on,
  // its version), for leases and its node record.
  void Identify(std::string node, std::string address, std::string version) {
    options_.node = std::move(node);
    options_.address = std::move(address);
    options_.version = std::move(version);
  }
  // Called (from the store's thread) when another daemon deleted a job.
  void OnDeleted(std::function<void(const std::string&)> deleted);
  const std::string& node() const { return options_.node; }
  std::chrono::milliseconds lease() const { return options_.lease; }
  int max_replicas() const { return options_.max_replicas; }

  // A queued job is cancelled at once; a running one at its next epoch
  // boundary. FailedPrecondition for a finished job, NotFound for none.
  absl::StatusOr<Job> Cancel(const std::string& id);
  // Queues a cancelled or failed job again (from its last checkpoint).
  absl::StatusOr<Job> Resume(const std::string& id);
  bool IsRunning(const std::string& id);
  // How many jobs the workers run now.
  int Busy();
  // Whether the workers run (started, not stopping).
  bool Serving();

  // Watchers: the current change counter, and a wait until it moves past
  // `seen` (or the timeout passes, or the manager stops).
  uint64_t generation();
  void WaitForChange(uint64_t seen, std::chrono::milliseconds timeout);

 private:
  class TrainRecorder;

  void Work();
  // The next queued job, claimed for this daemon; "" when the manager
  // stops.
  // A job to run as rank 0 (or alone), or a slot of another daemon's.
  struct Claim {
    std::optional<StoredJob> job;
    std::optional<ReplicaSlot> slot;
  };
  std::optional<Claim> Take();
  // Runs rank `slot.rank` of another daemon's data-parallel job
  // (job_replicas.cc).
  void RunSlot(const ReplicaSlot& slot);
  // How many replicas a job claimed now could have: live daemons that run
  // replicas and have a free worker (this one counted), at most
  // max_replicas.
  int ReplicaCapacity();
  // Says (once a change) why queued data-parallel jobs wait.
  void ExplainWaits();
  // A data-parallel run's failure (a replica gone): the job back in the
  // queue from its checkpoint (a crash, within the budget), or FAILED.
  absl::Status ReplicaFailure(const StoredJob& stored, const absl::Status& why,
                              bool clean);
  // The keeper: renews leases, beats the heart, requeues dead daemons'
  // jobs (job_leases.cc).
  void Keep();
  void KeepOnce();
  // Records this daemon (its name, address, workers, `busy` of them) in
  // the store's list of live nodes.
  void Beat(int busy);
  // Requeues what a dead daemon (or this one before it restarted) left
  // RUNNING; `at_start`: every job left RUNNING by a one-daemon store.
  absl::Status RequeueInterrupted(bool at_start);
  void Heard(const StoreNotice& notice);
  // FailedPrecondition when another live daemon (another address) uses
  // this daemon's node name in the shared store.
  absl::Status CheckNodeName();
  // The claim on a job this daemon runs (nullopt: none).
  std::optional<Fence> FenceOf(const std::string& id);
  // Whether the job's lease was lost: it must stop and write nothing.
  bool Lost(const std::string& id);
  void Run(StoredJob stored);
  absl::Status RunTrain(const StoredJob& stored);
  // The run of a training job (resuming from its checkpoint into `resume`).
  absl::StatusOr<std::unique_ptr<train::Run>> PrepareTrain(
      const StoredJob& stored, const CheckResult& check,
      std::optional<train::ModelSnapshot>& resume);
  // After training: the job cancelled, left RUNNING for the next start
  // (stopped with the daemon), or SUCCEEDED with its final snapshot.
  absl::Status FinishTrain(const std::string& id, const train::Run& run,
                           const train::TrainResult& result,
                           TrainRecorder& recorder);
  absl::Status RunTest(const StoredJob& stored);
  // Requeues or fails one job a previous run left RUNNING, under `check`
  // (a shared store: the dead claim still holds, expired).
  absl::Status Requeue(const StoredJob& stored, const UpdateCheck& check);
  absl::Status Fail(const std::string& id, const absl::Status& why);
  absl::StatusOr<Job> CancelQueued(const std::string& id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool ShouldStop(const std::string& id);
  bool Cancelling(const std::string& id);
  void Notify();

  Store& store_;
  JobOptions options_;  // node, address, version: set before Start
  DataCache data_;
  absl::Mutex mutex_;
  absl::CondVar work_;    // a job was queued, or the manager stops
  absl::CondVar change_;  // generation_ moved
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  uint64_t generation_ ABSL_GUARDED_BY(mutex_) = 0;
  std::map<std::string, Fence> running_ ABSL_GUARDED_BY(mutex_);
  // Slots of other daemons' jobs this daemon runs (job id -> slot), and
  // those whose claim is over.
  std::map<std::string, ReplicaSlot> slots_ ABSL_GUARDED_BY(mutex_);
  // This daemon's workers claim replica slots one at a time, so that each
  // sees the slot the other took (never two slots of one job here).
  absl::Mutex slot_claim_mutex_;
  std::set<std::string> lost_slots_ ABSL_GUARDED_BY(mutex_);
  std::set<std::string> cancelling_ ABSL_GUARDED_BY(mutex_);
  std::set<std::string> lost_ ABSL_GUARDED_BY(mutex_);
  absl::Mutex progress_mutex_;  // apart: steps set it often
  std::map<std::string, train::StepReport> progress_
      ABSL_GUARDED_BY(progress_mutex_);
  // Other daemons' jobs' progress (notices), and when it was heard.
  struct RemoteProgress {
    train::StepReport report;
    std::chrono::steady_clock::time_point at;
  };
  std::map<std::string, RemoteProgress> remote_progress_
      ABSL_GUARDED_BY(progress_mutex_);
  std::map<std::string, std::chrono::steady_clock::time_point> published_
      ABSL_GUARDED_BY(progress_mutex_);
  std::function<void(const std::string&)> deleted_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::thread> workers_ ABSL_GUARDED_BY(mutex_);
  std::thread keeper_;
  absl::CondVar keep_;  // the keeper's wait (stop, or a lease to check)
  Time started_ = Now();
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_JOBS_H_
