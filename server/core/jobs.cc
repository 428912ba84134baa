#include "server/core/jobs.h"

#include <iostream>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/core/daemon_metrics.h"
#include "server/core/job_log.h"
#include "server/core/store.h"

namespace webnnm::server {

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
  // Listed among the live nodes before Start returns (before the daemon
  // says it is ready), not at the keeper's first turn.
  Beat(0);
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
  // No notice reaches this manager once it stops (it may be destroyed
  // before the store and its listening thread).
  if (store_.Shared()) store_.Listen(nullptr);
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

}  // namespace webnnm::server
