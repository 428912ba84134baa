#include "server/jobs.h"

#include <filesystem>
#include <optional>

#include "backends/backend.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "engine/train/run.h"
#include "server/convert.h"
#include "server/dataset_source.h"

namespace webnnm::server {
namespace {

v1::JobEvent StateEvent(v1::JobState state, const std::string& message = {}) {
  v1::JobEvent e;
  e.set_type(v1::EVENT_TYPE_STATE);
  e.set_state(state);
  e.set_message(message);
  return e;
}

v1::JobEvent ErrorEvent(const std::string& message) {
  v1::JobEvent e;
  e.set_type(v1::EVENT_TYPE_ERROR);
  e.set_error(message);
  return e;
}

}  // namespace

absl::Status JobManager::Start() {
  ASSIGN_OR_RETURN(std::vector<std::string> interrupted,
                   store_.JobIds(v1::JOB_STATE_RUNNING));
  for (const std::string& id : interrupted) {
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store_.GetJob(id));
    if (!stored) continue;
    // A clean stop (SIGTERM) is free; a crash counts against the budget.
    const bool clean = stored->job.stopped_with_daemon();
    const int crashes = stored->job.crash_restarts() + (clean ? 0 : 1);
    if (crashes > options_.restart_budget) {
      RETURN_IF_ERROR(
          Record(id,
                 [&](v1::Job& j) {
                   j.set_state(v1::JOB_STATE_FAILED);
                   j.set_crash_restarts(crashes);
                   j.set_error(
                       "interrupted too often: the restart budget is spent");
                   *j.mutable_finished() = Now();
                 },
                 {ErrorEvent(StrCat("the daemon died during this job ", crashes,
                                    " times; the restart budget (",
                                    options_.restart_budget, ") is spent")),
                  StateEvent(v1::JOB_STATE_FAILED)})
              .status());
      continue;
    }
    RETURN_IF_ERROR(
        Record(id,
               [&](v1::Job& j) {
                 j.set_state(v1::JOB_STATE_QUEUED);
                 j.set_attempt(j.attempt() + 1);
                 j.set_crash_restarts(crashes);
                 j.set_stopped_with_daemon(false);
               },
               {StateEvent(
                   v1::JOB_STATE_QUEUED,
                   StrCat(clean ? "interrupted by a daemon stop"
                                : "interrupted by a daemon crash",
                          stored->job.has_snapshot()
                              ? StrCat("; resumes from its checkpoint after "
                                       "epoch ",
                                       stored->job.epoch())
                              : std::string("; starts again")))})
            .status());
  }
  std::lock_guard lock(mutex_);
  started_ = true;
  for (int i = 0; i < std::max(1, options_.workers); ++i) {
    workers_.emplace_back([this] { Work(); });
  }
  return absl::OkStatus();
}

void JobManager::Stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
  }
  work_.notify_all();
  change_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void JobManager::Notify() {
  {
    std::lock_guard lock(mutex_);
    ++generation_;
  }
  change_.notify_all();
}

void JobManager::Queued() {
  Notify();
  work_.notify_all();
}

uint64_t JobManager::generation() {
  std::lock_guard lock(mutex_);
  return generation_;
}

void JobManager::WaitForChange(uint64_t seen,
                               std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  change_.wait_for(lock, timeout,
                   [&] { return generation_ != seen || stopping_; });
}

absl::StatusOr<v1::Job> JobManager::Record(
    const std::string& id, const std::function<void(v1::Job&)>& change,
    std::vector<v1::JobEvent> events, const SnapshotBlob* snapshot) {
  absl::StatusOr<v1::Job> job =
      store_.Update(id, change, std::move(events), snapshot);
  Notify();
  return job;
}

bool JobManager::IsRunning(const std::string& id) {
  std::lock_guard lock(mutex_);
  return running_.count(id) > 0;
}

absl::StatusOr<v1::Job> JobManager::Cancel(const std::string& id) {
  std::unique_lock lock(mutex_);
  if (running_.count(id)) {
    cancelling_.insert(id);
    lock.unlock();
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store_.GetJob(id));
    if (!stored) return absl::NotFoundError(StrCat("no job ", id));
    return stored->job;
  }
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store_.GetJob(id));
  if (!stored) return absl::NotFoundError(StrCat("no job ", id));
  v1::JobState state = stored->job.state();
  if (IsFinished(state)) {
    return absl::FailedPreconditionError(
        StrCat("job ", id, " has already ended (", wire::StateName(state), ")"));
  }
  // QUEUED (or RUNNING in the store but not here: a stopped daemon's job
  // waiting to be requeued at start).
  absl::StatusOr<v1::Job> job = store_.Update(
      id,
      [](v1::Job& j) {
        j.set_state(v1::JOB_STATE_CANCELLED);
        *j.mutable_finished() = Now();
      },
      {StateEvent(v1::JOB_STATE_CANCELLED, "cancelled while queued")});
  lock.unlock();
  Notify();
  return job;
}

absl::StatusOr<v1::Job> JobManager::Resume(const std::string& id) {
  std::unique_lock lock(mutex_);
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store_.GetJob(id));
  if (!stored) return absl::NotFoundError(StrCat("no job ", id));
  v1::JobState state = stored->job.state();
  if (state != v1::JOB_STATE_CANCELLED && state != v1::JOB_STATE_FAILED) {
    return absl::FailedPreconditionError(
        StrCat("job ", id, " is ", wire::StateName(state),
               "; only cancelled or failed jobs resume"));
  }
  if (stored->job.kind() != v1::JOB_KIND_TRAIN &&
      stored->job.kind() != v1::JOB_KIND_TEST) {
    return absl::FailedPreconditionError(
        StrCat("job ", id, " holds an imported snapshot; it does not run"));
  }
  bool from_checkpoint =
      stored->job.has_snapshot() && stored->job.kind() == v1::JOB_KIND_TRAIN;
  absl::StatusOr<v1::Job> job = store_.Update(
      id,
      [](v1::Job& j) {
        j.set_state(v1::JOB_STATE_QUEUED);
        j.set_error("");
        j.clear_finished();
      },
      {StateEvent(v1::JOB_STATE_QUEUED,
                  from_checkpoint
                      ? StrCat("resumed; continues from its checkpoint after "
                               "epoch ",
                               stored->job.epoch())
                      : std::string("resumed; starts again"))});
  lock.unlock();
  Queued();
  return job;
}

bool JobManager::ShouldStop(const std::string& id) {
  std::lock_guard lock(mutex_);
  return stopping_ || cancelling_.count(id) > 0;
}

void JobManager::Work() {
  while (true) {
    std::string id;
    {
      std::unique_lock lock(mutex_);
      while (!stopping_) {
        absl::StatusOr<std::vector<std::string>> queued =
            store_.JobIds(v1::JOB_STATE_QUEUED);
        if (queued.ok()) {
          for (const std::string& q : *queued) {
            if (!running_.count(q)) {
              id = q;
              break;
            }
          }
        }
        if (!id.empty()) break;
        work_.wait_for(lock, std::chrono::seconds(1));
      }
      if (stopping_) return;
      running_.insert(id);
    }
    Run(id);
    {
      std::lock_guard lock(mutex_);
      running_.erase(id);
      cancelling_.erase(id);
    }
    Notify();
  }
}

absl::Status JobManager::Fail(const std::string& id, const absl::Status& why) {
  std::string message(why.message());
  return Record(id,
                [&](v1::Job& j) {
                  j.set_state(v1::JOB_STATE_FAILED);
                  j.set_error(message);
                  *j.mutable_finished() = Now();
                },
                {ErrorEvent(message), StateEvent(v1::JOB_STATE_FAILED)})
      .status();
}

void JobManager::Run(const std::string& id) {
  absl::StatusOr<std::optional<StoredJob>> stored = store_.GetJob(id);
  if (!stored.ok() || !*stored) return;
  absl::StatusOr<v1::Job> started = Record(id,
                                           [](v1::Job& j) {
                                             j.set_state(v1::JOB_STATE_RUNNING);
                                             if (!j.has_started())
                                               *j.mutable_started() = Now();
                                             if (j.attempt() == 0)
                                               j.set_attempt(1);
                                           },
                                           {StateEvent(v1::JOB_STATE_RUNNING)});
  if (!started.ok()) return;
  (*stored)->job = *started;
  absl::Status status = (*stored)->job.kind() == v1::JOB_KIND_TEST
                            ? RunTest(**stored)
                            : RunTrain(**stored);
  if (!status.ok()) (void)Fail(id, status);
}

namespace {

v1::JobEvent SnapshotEvent(int epoch, size_t bytes, const char* kind) {
  v1::JobEvent e;
  e.set_type(v1::EVENT_TYPE_SNAPSHOT);
  e.mutable_snapshot()->set_epoch(epoch);
  e.mutable_snapshot()->set_bytes(static_cast<int64_t>(bytes));
  e.mutable_snapshot()->set_kind(kind);
  return e;
}

v1::JobEvent TestEvent(const train::Evaluation& test, const dag::Dag& dag) {
  v1::JobEvent e;
  e.set_type(v1::EVENT_TYPE_TEST);
  *e.mutable_test() = ToTestEvent(test, dag);
  return e;
}

}  // namespace

// A training job's events as the run reports them: decisions, warnings and
// scouting at once; each epoch with its checkpoint, committed together.
class JobManager::TrainRecorder {
 public:
  TrainRecorder(JobManager& jobs, const std::string& id, const train::Run& run)
      : jobs_(jobs), id_(id), run_(run) {}

  // The first error of recording, if any (the run stops at its next epoch).
  const absl::Status& status() const { return status_; }

  bool Record(std::vector<v1::JobEvent> events,
              const std::function<void(v1::Job&)>& change = nullptr,
              const SnapshotBlob* blob = nullptr) {
    if (!status_.ok()) return false;
    status_ = jobs_.Record(id_, change, std::move(events), blob).status();
    return status_.ok();
  }

  train::TrainCallbacks Callbacks() {
    train::TrainCallbacks callbacks;
    callbacks.decision = [this](const train::Decision& d) {
      v1::JobEvent e;
      e.set_type(v1::EVENT_TYPE_DECISION);
      *e.mutable_decision() = ToProto(d);
      Record({e});
    };
    callbacks.warning = [this](const std::string& w) {
      v1::JobEvent e;
      e.set_type(v1::EVENT_TYPE_WARNING);
      e.set_warning(w);
      Record({e});
    };
    callbacks.scout = [this](const train::ScoutReport& r) {
      v1::JobEvent e;
      e.set_type(v1::EVENT_TYPE_SCOUT);
      e.mutable_scout()->set_seeds(r.seeds);
      e.mutable_scout()->set_chosen(r.chosen);
      e.mutable_scout()->set_detail(StrCat("loss ", r.loss, ", gradient ratio ",
                                           r.gradient_ratio, ", dead ratio ",
                                           r.dead_ratio));
      Record({e});
    };
    callbacks.epoch = [this](const train::EpochReport& r) { last_epoch_ = r; };
    callbacks.checkpoint = [this](const train::TrainState& state) {
      return Checkpoint(state) && !jobs_.ShouldStop(id_);
    };
    return callbacks;
  }

 private:
  bool Checkpoint(const train::TrainState& state) {
    absl::StatusOr<std::string> bytes =
        train::EncodeModelSnapshot(run_.Snapshot(state));
    if (!bytes.ok()) {
      status_ = bytes.status();
      return false;
    }
    SnapshotBlob blob{"checkpoint", state.epoch, std::move(*bytes)};
    std::vector<v1::JobEvent> events;
    if (last_epoch_) {
      v1::JobEvent e;
      e.set_type(v1::EVENT_TYPE_EPOCH);
      *e.mutable_epoch() = ToProto(*last_epoch_);
      events.push_back(e);
    }
    events.push_back(
        SnapshotEvent(state.epoch, blob.bytes.size(), "checkpoint"));
    const int epochs = state.hyper.epochs;
    const int epoch = state.epoch, best = state.best_epoch;
    return Record(
        std::move(events),
        [&](v1::Job& j) {
          j.set_epoch(epoch);
          j.set_epochs(epochs);
          j.set_best_epoch(best);
        },
        &blob);
  }

  JobManager& jobs_;
  const std::string& id_;
  const train::Run& run_;
  absl::Status status_;
  std::optional<train::EpochReport> last_epoch_;
};

absl::StatusOr<std::unique_ptr<train::Run>> JobManager::PrepareTrain(
    const StoredJob& stored, const dag::Dag& dag,
    std::optional<train::ModelSnapshot>& resume) {
  const v1::SubmitJobRequest& request = stored.request;
  ASSIGN_OR_RETURN(
      train::Hyperparameters hyper,
      ResolveHyperparameters(request.hyperparameters(), options_.threads));
  // Resuming: the newest checkpoint holds the run's state.
  if (stored.job.has_snapshot()) {
    ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob,
                     store_.LatestSnapshot(stored.job.job_id()));
    if (blob) {
      ASSIGN_OR_RETURN(resume, train::DecodeModelSnapshot(blob->bytes));
    }
  }
  ASSIGN_OR_RETURN(StoredData data, FindStoredData(store_, "", request.data()));
  return train::Run::Prepare(
      {.dag = &dag,
       .model_file =
           request.file_name().empty() ? "model.wnm" : request.file_name(),
       .model_source = request.model_text(),
       .source = data.source,
       .dataset_name = data.name,
       .dataset_ref = data.id,
       .split = request.data().split(),
       .standardize = request.data().standardize(),
       .hyperparameters = hyper,
       .snapshot = resume ? &*resume : nullptr,
       .backend = request.backend().empty() ? options_.default_backend
                                            : request.backend()});
}

absl::Status JobManager::RunTrain(const StoredJob& stored) {
  const std::string& id = stored.job.job_id();
  const v1::SubmitJobRequest& request = stored.request;
  CheckResult check = CheckModel(
      request.file_name().empty() ? "model.wnm" : request.file_name(),
      request.model_text());
  if (!check.ok) {
    return absl::InvalidArgumentError(
        StrCat("the model does not check:\n", check.rendered));
  }
  const dag::Dag& dag = *check.dag;
  std::optional<train::ModelSnapshot> resume;
  ASSIGN_OR_RETURN(std::unique_ptr<train::Run> run,
                   PrepareTrain(stored, dag, resume));
  TrainRecorder recorder(*this, id, *run);
  const int epochs = run->hyperparameters().epochs;
  recorder.Record({}, [&](v1::Job& j) {
    j.set_epochs(epochs);
    j.set_model_name(dag.name);
  });
  absl::StatusOr<train::TrainResult> result = run->Train(recorder.Callbacks());
  RETURN_IF_ERROR(recorder.status());
  if (!result.ok()) return result.status();
  return FinishTrain(id, *run, *result, recorder);
}

absl::Status JobManager::FinishTrain(const std::string& id,
                                     const train::Run& run,
                                     const train::TrainResult& result,
                                     TrainRecorder& recorder) {
  bool cancelled;
  {
    std::lock_guard lock(mutex_);
    cancelled = cancelling_.count(id) > 0;
  }
  if (!cancelled && ShouldStop(id)) {
    // Stopped with the daemon: stays RUNNING, resumed at the next start
    // without counting against the restart budget.
    recorder.Record({}, [](v1::Job& j) { j.set_stopped_with_daemon(true); });
    return recorder.status();
  }
  if (cancelled) {
    recorder.Record(
        {StateEvent(v1::JOB_STATE_CANCELLED,
                    StrCat("cancelled after epoch ", result.state.epoch))},
        [](v1::Job& j) {
          j.set_state(v1::JOB_STATE_CANCELLED);
          *j.mutable_finished() = Now();
        });
    return recorder.status();
  }
  ASSIGN_OR_RETURN(std::string bytes,
                   train::EncodeModelSnapshot(run.Snapshot(result.state)));
  SnapshotBlob blob{"final", result.state.epoch, std::move(bytes)};
  v1::JobSummary summary = ToSummary(result, run.dag());
  recorder.Record(
      {SnapshotEvent(result.state.epoch, blob.bytes.size(), "final"),
       TestEvent(result.test, run.dag()), StateEvent(v1::JOB_STATE_SUCCEEDED)},
      [&](v1::Job& j) {
        j.set_state(v1::JOB_STATE_SUCCEEDED);
        *j.mutable_finished() = Now();
        j.set_epoch(result.epochs);
        j.set_best_epoch(result.best_epoch);
        if (summary.has_test_accuracy()) {
          j.set_test_accuracy(summary.test_accuracy());
        }
        if (summary.has_test_loss()) j.set_test_loss(summary.test_loss());
        *j.mutable_summary() = summary;
      },
      &blob);
  return recorder.status();
}

absl::Status JobManager::RunTest(const StoredJob& stored) {
  const std::string& id = stored.job.job_id();
  const v1::SubmitJobRequest& request = stored.request;
  ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob,
                   store_.LatestSnapshot(request.snapshot_job_id()));
  if (!blob) {
    return absl::FailedPreconditionError(
        StrCat("job ", request.snapshot_job_id(), " has no snapshot"));
  }
  ASSIGN_OR_RETURN(train::ModelSnapshot snapshot,
                   train::DecodeModelSnapshot(blob->bytes));
  const std::string file =
      snapshot.model_file.empty() ? "model.wnm" : snapshot.model_file;
  CheckResult check = CheckModel(file, snapshot.model_source);
  if (!check.ok) {
    return absl::DataLossError(
        StrCat("the snapshot's model does not check:\n", check.rendered));
  }
  const dag::Dag& dag = *check.dag;
  ASSIGN_OR_RETURN(StoredData data, FindStoredData(store_, "", request.data()));
  train::Hyperparameters hyper;
  hyper.threads = options_.threads;
  const bool batch = request.hyperparameters().has_batch_size();
  if (batch)
    hyper.batch_size = std::max(1, request.hyperparameters().batch_size());
  ASSIGN_OR_RETURN(
      std::unique_ptr<train::Run> run,
      train::Run::Prepare({.purpose = train::RunPurpose::kTest,
                           .dag = &dag,
                           .model_file = file,
                           .model_source = snapshot.model_source,
                           .source = data.source,
                           .dataset_name = data.name,
                           .dataset_ref = data.id,
                           .split = request.data().split(),
                           .hyperparameters = hyper,
                           .test_batch_size = batch,
                           .snapshot = &snapshot,
                           .backend = request.backend().empty()
                                          ? options_.default_backend
                                          : request.backend()}));
  ASSIGN_OR_RETURN(train::Evaluation result, run->Test());
  v1::JobEvent test = TestEvent(result, dag);
  v1::JobSummary summary;
  summary.set_test_samples(result.samples);
  if (test.test().has_test_loss()) {
    summary.set_test_loss(test.test().test_loss());
  }
  if (test.test().has_test_accuracy()) {
    summary.set_test_accuracy(test.test().test_accuracy());
  }
  *summary.mutable_outputs() = test.test().outputs();
  return Record(id,
                [&](v1::Job& j) {
                  j.set_state(v1::JOB_STATE_SUCCEEDED);
                  *j.mutable_finished() = Now();
                  j.set_model_name(dag.name);
                  if (summary.has_test_accuracy()) {
                    j.set_test_accuracy(summary.test_accuracy());
                  }
                  if (summary.has_test_loss()) {
                    j.set_test_loss(summary.test_loss());
                  }
                  *j.mutable_summary() = summary;
                },
                {test, StateEvent(v1::JOB_STATE_SUCCEEDED)})
      .status();
}

}  // namespace webnnm::server
