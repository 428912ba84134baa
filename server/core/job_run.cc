// JobManager's runs (jobs.h): taking the next job (or another daemon's
// replica slot), training and testing it with the engine, and recording
// how it ended. jobs.cc holds the manager's state, control and watchers.
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
#include "server/core/jobs.h"
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

std::optional<JobManager::Claim> JobManager::Take() {
  while (true) {
    {
      absl::MutexLock lock(&mutex_);
      if (stopping_) return std::nullopt;
    }
    // Another daemon's data-parallel job waiting for its replicas first:
    // it runs already.
    if (options_.max_replicas > 1 && options_.collectives) {
      absl::MutexLock claiming(&slot_claim_mutex_);
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
      // The job keeps the threads it began with on whichever daemon
      // resumes it: its results depend on them, and so its bits.
      if (resume->state.hyper.threads > 0) {
        hyper.threads = resume->state.hyper.threads;
      }
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
    // Two daemons that claimed two data-parallel jobs at once may each
    // wait for the other's worker: the younger job gives way (its worker
    // then takes the older one's slot), so the oldest always goes on.
    std::string older;
    auto give_up = [&]() -> std::string {
      absl::StatusOr<std::optional<std::string>> other =
          store_.OlderJobNeedingReplicas(options_.node, id);
      if (!other.ok() || !*other) return std::string();
      older = **other;
      return StrCat("gave way to job ", older,
                    ", older, which waits for its replicas");
    };
    absl::StatusOr<std::unique_ptr<train::Collective>> joined =
        options_.collectives(*place, give_up);
    if (!joined.ok()) {
      // Not every replica came (a daemon went meanwhile), or this claim
      // gave way: queued again, free of charge.
      if (options_.rendezvous_done) options_.rendezvous_done(*place);
      return ReplicaFailure(stored,
                            older.empty() ? joined.status()
                                          : absl::AbortedError(StrCat(
                                                "gave way to job ", older,
                                                ", older, which waits for its "
                                                "replicas")),
                            /*clean=*/true);
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
