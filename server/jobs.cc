#include "server/jobs.h"

#include <filesystem>
#include <optional>

#include "backends/backend.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "engine/train/data_source.h"
#include "engine/train/expert.h"
#include "server/convert.h"

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

// Where a stored dataset's content is: the CSV file or the IDX folder.
absl::StatusOr<train::DataSource> SourceOf(Store& store,
                                           const v1::DataSpec& spec) {
  ASSIGN_OR_RETURN(std::optional<v1::Dataset> dataset,
                   store.GetDataset("", spec.dataset_id()));
  if (!dataset) {
    return absl::NotFoundError(
        StrCat("the dataset ", spec.dataset_id(), " no longer exists"));
  }
  std::string folder = store.DatasetFolder(dataset->sha256());
  train::DataSource source{.label = spec.label(),
                           .no_header = spec.no_header()};
  if (dataset->format() == v1::DATASET_FORMAT_CSV) {
    if (dataset->files_size() != 1) {
      return absl::DataLossError("a stored CSV dataset has no file");
    }
    source.path = (std::filesystem::path(folder) / dataset->files(0)).string();
  } else {
    source.path = folder;
  }
  return source;
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
        StrCat("job ", id, " has already ended (", StateName(state), ")"));
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
        StrCat("job ", id, " is ", StateName(state),
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

absl::Status JobManager::RunTrain(const StoredJob& stored) {
  const std::string& id = stored.job.job_id();
  const v1::SubmitJobRequest& request = stored.request;
  std::string file_name =
      request.file_name().empty() ? "model.wnm" : request.file_name();
  CheckResult check = CheckModel(file_name, request.model_text());
  if (!check.ok) {
    return absl::InvalidArgumentError(
        StrCat("the model does not check:\n", check.rendered));
  }
  const dag::Dag& dag = *check.dag;
  ASSIGN_OR_RETURN(
      train::Hyperparameters hyper,
      ResolveHyperparameters(request.hyperparameters(), options_.threads));

  // Resuming: the newest checkpoint holds the run's state.
  std::optional<train::ModelSnapshot> resume;
  if (stored.job.has_snapshot()) {
    ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob,
                     store_.LatestSnapshot(id));
    if (blob) {
      ASSIGN_OR_RETURN(train::ModelSnapshot s,
                       train::DecodeModelSnapshot(blob->bytes));
      RETURN_IF_ERROR(train::CheckSnapshotFits(s, dag));
      resume = std::move(s);
    }
  }
  const uint64_t seed = resume ? resume->state.hyper.seed : hyper.seed;
  const std::string split_text =
      !request.data().split().empty()    ? request.data().split()
      : resume && !resume->split.empty() ? resume->split
                                         : std::string(train::kDefaultSplit);
  ASSIGN_OR_RETURN(std::vector<double> split, train::ParseSplit(split_text));
  ASSIGN_OR_RETURN(train::DataSource source, SourceOf(store_, request.data()));
  ASSIGN_OR_RETURN(train::Dataset data, train::ReadDataFor(dag, source));
  RETURN_IF_ERROR(train::SplitData(data, source, split, seed));
  std::optional<train::Decision> standardized;
  if (resume) {
    RETURN_IF_ERROR(data.ApplyStandardization(resume->standardization));
  } else {
    standardized =
        train::AdviseStandardization(data, request.data().standardize());
  }
  std::string backend_name =
      request.backend().empty() ? options_.default_backend : request.backend();
  ASSIGN_OR_RETURN(std::unique_ptr<backends::Backend> backend,
                   backends::CreateBackend(backend_name));

  train::ModelSnapshot snapshot;
  snapshot.model_name = dag.name;
  snapshot.model_file = file_name;
  snapshot.model_source = request.model_text();
  snapshot.dataset = request.data().dataset_id();
  snapshot.classes = data.classes();
  snapshot.split = split_text;
  snapshot.standardization = data.standardization();
  snapshot.shapes = train::ParameterShapes(dag);
  auto encode =
      [&](const train::TrainState& state) -> absl::StatusOr<std::string> {
    snapshot.state = state;
    if (standardized) {
      snapshot.state.decisions.insert(snapshot.state.decisions.begin(),
                                      *standardized);
    }
    return train::EncodeModelSnapshot(snapshot);
  };

  absl::Status record_status;
  auto record = [&](std::vector<v1::JobEvent> events,
                    const std::function<void(v1::Job&)>& change = nullptr,
                    const SnapshotBlob* blob = nullptr) {
    if (!record_status.ok()) return false;
    record_status = Record(id, change, std::move(events), blob).status();
    return record_status.ok();
  };
  train::TrainCallbacks callbacks;
  callbacks.decision = [&](const train::Decision& d) {
    v1::JobEvent e;
    e.set_type(v1::EVENT_TYPE_DECISION);
    *e.mutable_decision() = ToProto(d);
    record({e});
  };
  callbacks.warning = [&](const std::string& w) {
    v1::JobEvent e;
    e.set_type(v1::EVENT_TYPE_WARNING);
    e.set_warning(w);
    record({e});
  };
  callbacks.scout = [&](const train::ScoutReport& r) {
    v1::JobEvent e;
    e.set_type(v1::EVENT_TYPE_SCOUT);
    e.mutable_scout()->set_seeds(r.seeds);
    e.mutable_scout()->set_chosen(r.chosen);
    e.mutable_scout()->set_detail(StrCat("loss ", r.loss, ", gradient ratio ",
                                         r.gradient_ratio, ", dead ratio ",
                                         r.dead_ratio));
    record({e});
  };
  std::optional<train::EpochReport> last_epoch;
  callbacks.epoch = [&](const train::EpochReport& r) { last_epoch = r; };
  callbacks.checkpoint = [&](const train::TrainState& state) {
    absl::StatusOr<std::string> bytes = encode(state);
    if (!bytes.ok()) {
      record_status = bytes.status();
      return false;
    }
    SnapshotBlob blob{"checkpoint", state.epoch, std::move(*bytes)};
    std::vector<v1::JobEvent> events;
    if (last_epoch) {
      v1::JobEvent e;
      e.set_type(v1::EVENT_TYPE_EPOCH);
      *e.mutable_epoch() = ToProto(*last_epoch);
      events.push_back(e);
    }
    v1::JobEvent s;
    s.set_type(v1::EVENT_TYPE_SNAPSHOT);
    s.mutable_snapshot()->set_epoch(state.epoch);
    s.mutable_snapshot()->set_bytes(static_cast<int64_t>(blob.bytes.size()));
    s.mutable_snapshot()->set_kind("checkpoint");
    events.push_back(s);
    const int epochs = state.hyper.epochs;
    const int epoch = state.epoch, best = state.best_epoch;
    if (!record(
            std::move(events),
            [&](v1::Job& j) {
              j.set_epoch(epoch);
              j.set_epochs(epochs);
              j.set_best_epoch(best);
            },
            &blob)) {
      return false;
    }
    return !ShouldStop(id);
  };
  if (standardized) callbacks.decision(*standardized);
  record({}, [&](v1::Job& j) {
    j.set_epochs(resume ? resume->state.hyper.epochs : hyper.epochs);
    j.set_model_name(dag.name);
  });
  absl::StatusOr<train::TrainResult> result = train::Train(
      dag, data, hyper, *backend, callbacks, resume ? &resume->state : nullptr);
  RETURN_IF_ERROR(record_status);
  if (!result.ok()) return result.status();

  bool cancelled;
  {
    std::lock_guard lock(mutex_);
    cancelled = cancelling_.count(id) > 0;
  }
  if (!cancelled && ShouldStop(id)) {
    // Stopped with the daemon: stays RUNNING, resumed at the next start
    // without counting against the restart budget.
    record({}, [](v1::Job& j) { j.set_stopped_with_daemon(true); });
    return record_status;
  }
  if (cancelled) {
    record({StateEvent(v1::JOB_STATE_CANCELLED,
                       StrCat("cancelled after epoch ", result->state.epoch))},
           [](v1::Job& j) {
             j.set_state(v1::JOB_STATE_CANCELLED);
             *j.mutable_finished() = Now();
           });
    return record_status;
  }
  if (standardized) {
    result->decisions.insert(result->decisions.begin(), *standardized);
  }
  ASSIGN_OR_RETURN(std::string bytes, encode(result->state));
  SnapshotBlob blob{"final", result->state.epoch, std::move(bytes)};
  v1::JobEvent snap;
  snap.set_type(v1::EVENT_TYPE_SNAPSHOT);
  snap.mutable_snapshot()->set_epoch(result->state.epoch);
  snap.mutable_snapshot()->set_bytes(static_cast<int64_t>(blob.bytes.size()));
  snap.mutable_snapshot()->set_kind("final");
  v1::JobEvent test;
  test.set_type(v1::EVENT_TYPE_TEST);
  *test.mutable_test() = ToTestEvent(result->test, dag);
  v1::JobSummary summary = ToSummary(*result, dag);
  record(
      {snap, test, StateEvent(v1::JOB_STATE_SUCCEEDED)},
      [&](v1::Job& j) {
        j.set_state(v1::JOB_STATE_SUCCEEDED);
        *j.mutable_finished() = Now();
        j.set_epoch(result->epochs);
        j.set_best_epoch(result->best_epoch);
        if (summary.has_test_accuracy()) {
          j.set_test_accuracy(summary.test_accuracy());
        }
        if (summary.has_test_loss()) j.set_test_loss(summary.test_loss());
        *j.mutable_summary() = summary;
      },
      &blob);
  return record_status;
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
  CheckResult check = CheckModel(
      snapshot.model_file.empty() ? "model.wnm" : snapshot.model_file,
      snapshot.model_source);
  if (!check.ok) {
    return absl::DataLossError(
        StrCat("the snapshot's model does not check:\n", check.rendered));
  }
  const dag::Dag& dag = *check.dag;
  RETURN_IF_ERROR(train::CheckSnapshotFits(snapshot, dag));
  const std::string split_text =
      !request.data().split().empty() ? request.data().split()
      : !snapshot.split.empty()       ? snapshot.split
                                      : std::string(train::kDefaultSplit);
  ASSIGN_OR_RETURN(std::vector<double> split, train::ParseSplit(split_text));
  ASSIGN_OR_RETURN(train::DataSource source, SourceOf(store_, request.data()));
  ASSIGN_OR_RETURN(train::Dataset data, train::ReadDataFor(dag, source));
  RETURN_IF_ERROR(
      train::SplitData(data, source, split, snapshot.state.hyper.seed));
  if (!snapshot.classes.empty() && data.classes() != snapshot.classes) {
    return absl::InvalidArgumentError(
        "the dataset's classes differ from the ones the snapshot was trained "
        "on");
  }
  RETURN_IF_ERROR(data.ApplyStandardization(snapshot.standardization));
  if (data.subset(train::Subset::kTest).empty()) {
    return absl::InvalidArgumentError("the test subset is empty (see split)");
  }
  std::string backend_name =
      request.backend().empty() ? options_.default_backend : request.backend();
  ASSIGN_OR_RETURN(std::unique_ptr<backends::Backend> backend,
                   backends::CreateBackend(backend_name));
  train::Hyperparameters hyper = snapshot.state.hyper;
  hyper.threads = options_.threads;
  if (request.hyperparameters().has_batch_size()) {
    hyper.batch_size = std::max(1, request.hyperparameters().batch_size());
  }
  ASSIGN_OR_RETURN(
      train::Evaluation result,
      train::Test(dag, data, snapshot.state.best, hyper, *backend));
  v1::JobEvent test;
  test.set_type(v1::EVENT_TYPE_TEST);
  *test.mutable_test() = ToTestEvent(result, dag);
  v1::JobSummary summary;
  summary.set_test_samples(result.samples);
  if (test.test().has_test_loss())
    summary.set_test_loss(test.test().test_loss());
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
