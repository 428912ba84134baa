#include "server/core/jobs.h"

#include <atomic>
#include <iostream>
#include <optional>

#include "backends/backend.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "server/core/daemon_metrics.h"
#include "server/core/dataset_source.h"
#include "server/core/job_log.h"
#include "server/core/store.h"
#include "server/core/train_recorder.h"

namespace webnnm::server {

using jobs_internal::SnapshotEvent;
using jobs_internal::TestEvent;

namespace {

// A job's kind as the metrics label it.
const char* KindName(JobKind kind) {
  switch (kind) {
    case JobKind::kTest:
      return "test";
    case JobKind::kImport:
      return "import";
    default:
      return "train";
  }
}

}  // namespace

absl::Status JobManager::Requeue(const StoredJob& stored,
                                 const UpdateCheck& check) {
  const std::string& id = stored.job.id;
  // A clean stop (SIGTERM) is free; a crash counts against the budget.
  const bool clean = stored.job.stopped_with_daemon;
  const int crashes = stored.job.crash_restarts + (clean ? 0 : 1);
  if (crashes > options_.restart_budget) {
    Metrics().job_failures.With({"restart"}).Add();
    return Record(
               id,
               [&](Job& j) {
                 j.state = JobState::kFailed;
                 j.crash_restarts = crashes;
                 j.error = "interrupted too often: the restart budget is spent";
                 j.finished = Now();
               },
               {ErrorEvent(StrCat("the daemon died during this job ", crashes,
                                  " times; the restart budget (",
                                  options_.restart_budget, ") is spent")),
                StateEvent(JobState::kFailed)},
               nullptr, check)
        .status();
  }
  Metrics().job_restarts.With({clean ? "stop" : "crash"}).Add();
  return Record(
             id,
             [&](Job& j) {
               j.state = JobState::kQueued;
               j.crash_restarts = crashes;
               j.stopped_with_daemon = false;
             },
             {StateEvent(
                 JobState::kQueued,
                 StrCat(clean ? "interrupted by a daemon stop"
                              : "interrupted by a daemon crash",
                        store_.Shared() && !stored.job.node.empty()
                            ? StrCat(" (", stored.job.node, ")")
                            : std::string(),
                        stored.job.has_snapshot
                            ? StrCat("; resumes from its checkpoint after "
                                     "epoch ",
                                     stored.job.epoch)
                            : std::string("; starts again")))},
             nullptr, check)
      .status();
}

std::function<absl::StatusOr<train::Dataset>(const dag::Dag&,
                                             const train::DataSource&)>
JobManager::Reader() {
  return [this](const dag::Dag& dag, const train::DataSource& source) {
    return data_.Read(dag, source);
  };
}

absl::Status JobManager::Start() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = false;
  }
  RETURN_IF_ERROR(CheckNodeName());
  RETURN_IF_ERROR(RequeueInterrupted(/*at_start=*/true));
  if (store_.Shared()) {
    store_.Listen([this](const StoreNotice& notice) { Heard(notice); });
  }
  absl::MutexLock lock(&mutex_);
  for (int i = 0; i < std::max(1, options_.workers); ++i) {
    workers_.emplace_back([this] { Work(); });
  }
  keeper_ = std::thread([this] { Keep(); });
  return absl::OkStatus();
}

void JobManager::Stop() {
  std::vector<std::thread> workers;
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    workers.swap(workers_);
  }
  work_.SignalAll();
  change_.SignalAll();
  for (std::thread& t : workers) t.join();
  keep_.SignalAll();
  if (keeper_.joinable()) {
    keeper_.join();
    (void)store_.RemoveNode(options_.node);
  }
}

void JobManager::Notify() {
  {
    absl::MutexLock lock(&mutex_);
    ++generation_;
  }
  change_.SignalAll();
}

void JobManager::Queued() {
  Notify();
  work_.SignalAll();
}

uint64_t JobManager::generation() {
  absl::MutexLock lock(&mutex_);
  return generation_;
}

void JobManager::WaitForChange(uint64_t seen,
                               std::chrono::milliseconds timeout) {
  absl::MutexLock lock(&mutex_);
  const absl::Time deadline = absl::Now() + absl::FromChrono(timeout);
  while (generation_ == seen && !stopping_) {
    if (change_.WaitWithDeadline(&mutex_, deadline)) break;  // timed out
  }
}

absl::StatusOr<Job> JobManager::Record(const std::string& id,
                                       const std::function<void(Job&)>& change,
                                       std::vector<JobEvent> events,
                                       const SnapshotBlob* snapshot,
                                       const UpdateCheck& check) {
  const std::vector<JobEvent> logged = events;
  UpdateCheck fenced = check;
  if (!fenced) {
    if (std::optional<Fence> fence = FenceOf(id)) fenced = Fenced(id, *fence);
  }
  absl::StatusOr<Job> job =
      store_.Update(id, change, std::move(events), snapshot, fenced);
  Notify();
  if (job.ok()) {
    LogJobEvents(*job, logged);
    for (const JobEvent& e : logged) {
      if (e.type == EventType::kState && IsFinished(e.state)) {
        Metrics().job_ends.With({StateName(e.state)}).Add();
      }
    }
  }
  return job;
}

std::optional<train::StepReport> JobManager::Progress(const std::string& id) {
  absl::MutexLock lock(&progress_mutex_);
  auto it = progress_.find(id);
  if (it != progress_.end()) return it->second;
  // Another daemon's job: what it said last, if lately.
  auto remote = remote_progress_.find(id);
  if (remote != remote_progress_.end() &&
      std::chrono::steady_clock::now() - remote->second.at <
          std::chrono::seconds(5)) {
    return remote->second.report;
  }
  return std::nullopt;
}

void JobManager::SetProgress(const std::string& id,
                             std::optional<train::StepReport> report) {
  bool publish = false;
  {
    absl::MutexLock lock(&progress_mutex_);
    if (report) {
      progress_[id] = *report;
      // Other daemons' watchers hear of it at most every quarter second.
      const auto now = std::chrono::steady_clock::now();
      auto& last = published_[id];
      publish = store_.Shared() && now - last >= std::chrono::milliseconds(250);
      if (publish) last = now;
    } else {
      progress_.erase(id);
      published_.erase(id);
    }
  }
  if (publish) store_.PublishProgress(id, *report);
}

int JobManager::Busy() {
  absl::MutexLock lock(&mutex_);
  return static_cast<int>(running_.size());
}

bool JobManager::Serving() {
  absl::MutexLock lock(&mutex_);
  return !stopping_ && !workers_.empty();
}

bool JobManager::IsRunning(const std::string& id) {
  absl::MutexLock lock(&mutex_);
  return running_.count(id) > 0;
}

std::optional<Fence> JobManager::FenceOf(const std::string& id) {
  absl::MutexLock lock(&mutex_);
  auto it = running_.find(id);
  if (it == running_.end()) return std::nullopt;
  return it->second;
}

bool JobManager::Lost(const std::string& id) {
  absl::MutexLock lock(&mutex_);
  return lost_.count(id) > 0;
}

void JobManager::OnDeleted(std::function<void(const std::string&)> deleted) {
  absl::MutexLock lock(&mutex_);
  deleted_ = std::move(deleted);
}

absl::StatusOr<Job> JobManager::CancelQueued(const std::string& id) {
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store_.GetJob(id));
  if (!stored) return absl::NotFoundError(StrCat("no job ", id));
  const JobState state = stored->job.state;
  if (IsFinished(state)) {
    return absl::FailedPreconditionError(
        StrCat("job ", id, " has already ended (", StateName(state), ")"));
  }
  // QUEUED, or RUNNING in the store but not here: a stopped daemon's job
  // waiting to be requeued, or another daemon's (whose lease this ends:
  // it stops at its next step).
  const JobEvent cancelled = StateEvent(
      JobState::kCancelled,
      state == JobState::kRunning
          ? StrCat("cancelled while running",
                   stored->job.node.empty() ? std::string()
                                            : StrCat(" on ", stored->job.node))
          : std::string("cancelled while queued"));
  absl::StatusOr<Job> job = store_.Update(
      id,
      [](Job& j) {
        j.state = JobState::kCancelled;
        j.finished = Now();
      },
      {cancelled}, nullptr,
      [&](const Job& now, bool) -> absl::Status {
        // It may have ended (elsewhere) since it was read.
        if (IsFinished(now.state)) {
          return absl::FailedPreconditionError(StrCat(
              "job ", id, " has already ended (", StateName(now.state), ")"));
        }
        return absl::OkStatus();
      });
  if (job.ok()) LogJobEvents(*job, {cancelled});
  return job;
}

absl::StatusOr<Job> JobManager::Cancel(const std::string& id) {
  bool running;
  absl::StatusOr<Job> job;
  {
    absl::MutexLock lock(&mutex_);
    running = running_.count(id) > 0;
    if (running) {
      cancelling_.insert(id);  // the run stops at its epoch boundary
    } else {
      job = CancelQueued(id);  // under the lock: no worker takes it now
    }
  }
  if (!running) {
    Notify();
    return job;
  }
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store_.GetJob(id));
  if (!stored) return absl::NotFoundError(StrCat("no job ", id));
  return stored->job;
}

absl::StatusOr<Job> JobManager::Resume(const std::string& id) {
  absl::StatusOr<Job> job;
  {
    absl::MutexLock lock(&mutex_);
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store_.GetJob(id));
    if (!stored) return absl::NotFoundError(StrCat("no job ", id));
    const JobState state = stored->job.state;
    if (state != JobState::kCancelled && state != JobState::kFailed) {
      return absl::FailedPreconditionError(
          StrCat("job ", id, " is ", StateName(state),
                 "; only cancelled or failed jobs resume"));
    }
    const JobKind kind = stored->job.kind;
    if (kind != JobKind::kTrain && kind != JobKind::kTest) {
      return absl::FailedPreconditionError(
          StrCat("job ", id, " holds an imported snapshot; it does not run"));
    }
    const bool from_checkpoint =
        stored->job.has_snapshot && kind == JobKind::kTrain;
    const JobEvent queued = StateEvent(
        JobState::kQueued,
        from_checkpoint ? StrCat("resumed; continues from its checkpoint "
                                 "after epoch ",
                                 stored->job.epoch)
                        : std::string("resumed; starts again"));
    job = store_.Update(
        id,
        [](Job& j) {
          j.state = JobState::kQueued;
          j.error.clear();
          j.finished.reset();
        },
        {queued}, nullptr,
        [&](const Job& now, bool) -> absl::Status {
          // Another daemon may have resumed it since it was read.
          if (now.state != JobState::kCancelled &&
              now.state != JobState::kFailed) {
            return absl::FailedPreconditionError(
                StrCat("job ", id, " is ", StateName(now.state),
                       "; only cancelled or failed jobs resume"));
          }
          return absl::OkStatus();
        });
    if (job.ok()) LogJobEvents(*job, {queued});
  }
  Queued();
  return job;
}

bool JobManager::ShouldStop(const std::string& id) {
  absl::MutexLock lock(&mutex_);
  return stopping_ || cancelling_.count(id) > 0 || lost_.count(id) > 0;
}

bool JobManager::Cancelling(const std::string& id) {
  absl::MutexLock lock(&mutex_);
  return cancelling_.count(id) > 0;
}

std::optional<JobManager::Claim> JobManager::Take() {
  while (true) {
    {
      absl::MutexLock lock(&mutex_);
      if (stopping_) return std::nullopt;
    }
    // Another daemon's data-parallel job waiting for its replicas first:
    // it runs already.
    if (options_.max_replicas > 1 && options_.collectives) {
      absl::StatusOr<std::optional<ReplicaSlot>> slot =
          store_.ClaimReplicaSlot(options_.node, options_.lease);
      if (slot.ok() && *slot) {
        absl::MutexLock lock(&mutex_);
        slots_[(*slot)->job_id] = **slot;
        return Claim{.slot = **slot};
      }
    }
    const int capacity = ReplicaCapacity();
    absl::StatusOr<std::optional<StoredJob>> claimed = store_.ClaimJob(
        options_.node, options_.lease,
        [](Job& j) {
          if (!j.started) j.started = Now();
          j.waiting.clear();
        },
        {StateEvent(JobState::kRunning, store_.Shared()
                                            ? StrCat("on ", options_.node)
                                            : std::string())},
        capacity);
    if (!claimed.ok()) {
      // Said once a minute at most (the database may be down for long).
      static std::atomic<int64_t> said{0};
      const int64_t now = absl::ToUnixSeconds(absl::Now());
      int64_t last = said.load();
      if (now - last >= 60 && said.compare_exchange_strong(last, now)) {
        std::cerr << "webnnmd: cannot claim a job: "
                  << claimed.status().message() << "\n";
      }
    }
    if (claimed.ok() && *claimed) {
      StoredJob& job = **claimed;
      const std::string id = job.job.id;
      const Fence fence{.node = options_.node, .attempt = job.job.attempt};
      LogJobEvents(job.job, {StateEvent(JobState::kRunning)});
      bool stopping;
      {
        absl::MutexLock lock(&mutex_);
        running_[id] = fence;
        stopping = stopping_;
      }
      if (!stopping) return Claim{.job = std::move(job)};
      // Claimed as the daemon stops: left for the next start (or another
      // daemon) at no cost, as if stopped at its first epoch.
      (void)Record(id, [](Job& j) { j.stopped_with_daemon = true; }, {});
      (void)store_.ReleaseLease(id, fence);
      absl::MutexLock lock(&mutex_);
      running_.erase(id);
      return std::nullopt;
    }
    absl::MutexLock lock(&mutex_);
    if (stopping_) return std::nullopt;
    work_.WaitWithTimeout(&mutex_, absl::Seconds(1));
  }
}

void JobManager::Work() {
  for (std::optional<Claim> claim = Take(); claim; claim = Take()) {
    if (claim->slot) {
      RunSlot(*claim->slot);
      absl::MutexLock lock(&mutex_);
      slots_.erase(claim->slot->job_id);
      lost_slots_.erase(claim->slot->job_id);
      continue;
    }
    const std::string id = claim->job->job.id;
    Run(std::move(*claim->job));
    {
      absl::MutexLock lock(&mutex_);
      running_.erase(id);
      cancelling_.erase(id);
      lost_.erase(id);
    }
    Notify();
  }
}

absl::Status JobManager::Fail(const std::string& id, const absl::Status& why) {
  if (IsLeaseLost(why) || Lost(id)) {
    // Not this daemon's job any longer: nothing more is written.
    std::cerr << "webnnmd: job " << id << " stopped here: "
              << (IsLeaseLost(why) ? why.message() : "its lease was lost")
              << "\n";
    return absl::OkStatus();
  }
  if (store_.Shared() && why.code() == absl::StatusCode::kUnavailable) {
    // The database went away under the job: not the job's fault. It stays
    // RUNNING and is requeued (as after a crash) once its lease runs out.
    std::cerr << "webnnmd: job " << id << " stopped here: " << why.message()
              << "; it is requeued when its lease runs out\n";
    return absl::OkStatus();
  }
  Metrics().job_failures.With({"run"}).Add();
  std::string message(why.message());
  return Record(id,
                [&](Job& j) {
                  j.state = JobState::kFailed;
                  j.error = message;
                  j.finished = Now();
                },
                {ErrorEvent(message), StateEvent(JobState::kFailed)})
      .status();
}

void JobManager::Run(StoredJob stored) {
  const std::string id = stored.job.id;
  Notify();
  Metrics().job_starts.With({KindName(stored.job.kind)}).Add();
  absl::Status status;
  // Nothing a job does may end the daemon: an exception (out of memory
  // above all) fails the job.
  try {
    status =
        stored.job.kind == JobKind::kTest ? RunTest(stored) : RunTrain(stored);
  } catch (const std::bad_alloc&) {
    status = absl::ResourceExhaustedError(
        "the daemon ran out of memory running this job");
  } catch (const std::exception& e) {
    status = absl::InternalError(StrCat("the job failed: ", e.what()));
  }
  if (!status.ok()) (void)Fail(id, status);
}

absl::StatusOr<std::unique_ptr<train::Run>> JobManager::PrepareTrain(
    const StoredJob& stored, const CheckResult& check,
    std::optional<train::ModelSnapshot>& resume) {
  const dag::Dag& dag = *check.dag;
  const JobRequest& request = stored.request;
  ASSIGN_OR_RETURN(
      train::Hyperparameters hyper,
      ResolveJobHyperparameters(request.hyperparameters, options_.threads));
  // Resuming: the newest checkpoint holds the run's state.
  if (stored.job.has_snapshot) {
    ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob,
                     store_.LatestSnapshot(stored.job.id));
    if (blob) {
      ASSIGN_OR_RETURN(resume, train::DecodeModelSnapshot(blob->bytes));
    }
  }
  ASSIGN_OR_RETURN(StoredData data, FindStoredData(store_, "", request.data,
                                                   options_.max_dataset_bytes));
  return train::Run::Prepare(
      {.dag = &dag,
       .model_file =
           request.file_name.empty() ? "model.wnm" : request.file_name,
       .model_source = request.model_text,
       .model_warnings = ModelWarnings(check),
       .source = data.source,
       .read = Reader(),
       .dataset_name = data.name,
       .dataset_ref = data.id,
       .split = request.data.split,
       .standardize = request.data.standardize,
       .impute = request.data.impute,
       .hyperparameters = hyper,
       .snapshot = resume ? &*resume : nullptr,
       .backend = request.backend.empty() ? options_.default_backend
                                          : request.backend});
}

absl::Status JobManager::RunTrain(const StoredJob& stored) {
  const std::string& id = stored.job.id;
  const JobRequest& request = stored.request;
  CheckResult check =
      CheckModel(request.file_name.empty() ? "model.wnm" : request.file_name,
                 request.model_text);
  if (!check.ok) {
    return absl::InvalidArgumentError(StrCat("the model does not check:\n",
                                             webnnm::RenderedForStatus(check)));
  }
  const dag::Dag& dag = *check.dag;
  std::optional<train::ModelSnapshot> resume;
  ASSIGN_OR_RETURN(std::unique_ptr<train::Run> run,
                   PrepareTrain(stored, check, resume));
  TrainRecorder recorder(
      *this, id, *run,
      request.backend.empty() ? options_.default_backend : request.backend);
  const int epochs = run->hyperparameters().epochs;
  recorder.Record({}, [&](Job& j) {
    j.epochs = epochs;
    j.model_name = dag.name;
  });
  // A data-parallel job: its other ranks on other daemons first.
  const int replicas = ReplicasOf(request);
  std::unique_ptr<train::Collective> collective;
  std::optional<ReplicaSlot> place;
  if (replicas > 1) {
    std::optional<Fence> fence = FenceOf(id);
    if (!fence || !options_.collectives) {
      return absl::FailedPreconditionError(
          "this daemon runs no data-parallel jobs");
    }
    place = ReplicaSlot{id, fence->attempt, 0, replicas};
    RETURN_IF_ERROR(store_.OpenReplicaSlots(id, *fence, replicas));
    absl::StatusOr<std::unique_ptr<train::Collective>> joined =
        options_.collectives(*place);
    if (!joined.ok()) {
      // Not every replica came (a daemon went meanwhile): queued again,
      // free of charge.
      if (options_.rendezvous_done) options_.rendezvous_done(*place);
      return ReplicaFailure(stored, joined.status(), /*clean=*/true);
    }
    collective = std::move(*joined);
  }
  absl::StatusOr<train::TrainResult> result =
      run->Train(recorder.Callbacks(), collective.get());
  if (place && options_.rendezvous_done) options_.rendezvous_done(*place);
  if (collective && recorder.status().ok() && !result.ok() &&
      result.status().code() == absl::StatusCode::kUnavailable) {
    return ReplicaFailure(stored, result.status(), /*clean=*/false);
  }
  RETURN_IF_ERROR(recorder.status());
  if (!result.ok()) return result.status();
  if (collective && result->interrupted && !ShouldStop(id)) {
    // Another replica stopped the run (its daemon stops): go on elsewhere.
    return ReplicaFailure(
        stored, absl::CancelledError("a replica's daemon is stopping"),
        /*clean=*/true);
  }
  return FinishTrain(id, *run, *result, recorder);
}

absl::Status JobManager::FinishTrain(const std::string& id,
                                     const train::Run& run,
                                     const train::TrainResult& result,
                                     TrainRecorder& recorder) {
  const bool cancelled = Cancelling(id);
  if (Lost(id)) {
    return absl::AbortedError(
        StrCat("lease lost: job ", id, " is no longer this daemon's"));
  }
  if (!cancelled && ShouldStop(id)) {
    // Stopped with the daemon: stays RUNNING, resumed at the next start
    // (or by another daemon at once) without counting against the restart
    // budget.
    recorder.Record({}, [](Job& j) { j.stopped_with_daemon = true; });
    if (std::optional<Fence> fence = FenceOf(id);
        fence && recorder.status().ok()) {
      (void)store_.ReleaseLease(id, *fence);
    }
    return recorder.status();
  }
  if (cancelled) {
    recorder.Record(
        {StateEvent(JobState::kCancelled,
                    StrCat("cancelled after epoch ", result.state.epoch))},
        [](Job& j) {
          j.state = JobState::kCancelled;
          j.finished = Now();
        });
    return recorder.status();
  }
  ASSIGN_OR_RETURN(std::string bytes,
                   train::EncodeModelSnapshot(run.Snapshot(result.state)));
  SnapshotBlob blob{"final", result.state.epoch, std::move(bytes)};
  const JobSummary summary = SummaryOf(result, run.dag());
  recorder.Record(
      {SnapshotEvent(result.state.epoch, blob.bytes.size(), "final"),
       TestEvent(summary.test), StateEvent(JobState::kSucceeded)},
      [&](Job& j) {
        j.state = JobState::kSucceeded;
        j.finished = Now();
        j.epoch = result.epochs;
        j.best_epoch = result.best_epoch;
        j.test_accuracy = summary.test.test_accuracy;
        j.test_loss = summary.test.test_loss;
        j.summary = summary;
      },
      &blob);
  return recorder.status();
}

absl::Status JobManager::RunTest(const StoredJob& stored) {
  const std::string& id = stored.job.id;
  const JobRequest& request = stored.request;
  ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob,
                   store_.LatestSnapshot(request.snapshot_job_id));
  if (!blob) {
    return absl::FailedPreconditionError(
        StrCat("job ", request.snapshot_job_id, " has no snapshot"));
  }
  ASSIGN_OR_RETURN(train::ModelSnapshot snapshot,
                   train::DecodeModelSnapshot(blob->bytes));
  const std::string file =
      snapshot.model_file.empty() ? "model.wnm" : snapshot.model_file;
  CheckResult check = CheckModel(file, snapshot.model_source);
  if (!check.ok) {
    return absl::DataLossError(StrCat("the snapshot's model does not check:\n",
                                      webnnm::RenderedForStatus(check)));
  }
  const dag::Dag& dag = *check.dag;
  ASSIGN_OR_RETURN(StoredData data, FindStoredData(store_, "", request.data,
                                                   options_.max_dataset_bytes));
  // Images resize as the trained job's did, or as the test asks.
  ASSIGN_OR_RETURN(std::optional<StoredJob> trained,
                   store_.GetJob(request.snapshot_job_id));
  if (trained) data.source.resize |= trained->request.data.resize;
  train::Hyperparameters hyper;
  hyper.threads = options_.threads;
  auto batch = request.hyperparameters.find("batchSize");
  const bool batched = batch != request.hyperparameters.end() &&
                       std::holds_alternative<int64_t>(batch->second);
  if (batched) {
    hyper.batch_size = static_cast<int>(
        std::clamp<int64_t>(std::get<int64_t>(batch->second), 1, 1 << 20));
  }
  ASSIGN_OR_RETURN(
      std::unique_ptr<train::Run> run,
      train::Run::Prepare({.purpose = train::RunPurpose::kTest,
                           .dag = &dag,
                           .model_file = file,
                           .model_source = snapshot.model_source,
                           .source = data.source,
                           .read = Reader(),
                           .dataset_name = data.name,
                           .dataset_ref = data.id,
                           .split = request.data.split,
                           .hyperparameters = hyper,
                           .test_batch_size = batched,
                           .snapshot = &snapshot,
                           .backend = request.backend.empty()
                                          ? options_.default_backend
                                          : request.backend}));
  ASSIGN_OR_RETURN(train::Evaluation result, run->Test());
  JobSummary summary;
  summary.test = TestReportOf(result, dag);
  return Record(id,
                [&](Job& j) {
                  j.state = JobState::kSucceeded;
                  j.finished = Now();
                  j.model_name = dag.name;
                  j.test_accuracy = summary.test.test_accuracy;
                  j.test_loss = summary.test.test_loss;
                  j.summary = summary;
                },
                {TestEvent(summary.test), StateEvent(JobState::kSucceeded)})
      .status();
}

}  // namespace webnnm::server
