// JobManager's data-parallel jobs (jobs.h): the ranks past the first that
// this daemon runs for other daemons' jobs, the capacity a claim may use,
// why queued jobs wait, and a replica's failure.
#include <iostream>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "server/core/daemon_metrics.h"
#include "server/core/jobs.h"

namespace webnnm::server {

int JobManager::ReplicaCapacity() {
  if (options_.max_replicas <= 1 || !options_.collectives) return 1;
  absl::StatusOr<std::vector<NodeRecord>> nodes =
      store_.ListNodes(options_.lease);
  if (!nodes.ok()) return 1;
  int free = 1;  // this worker
  for (const NodeRecord& n : *nodes) {
    if (n.name != options_.node && n.max_replicas > 1 &&
        n.busy < std::max(1, n.workers)) {
      ++free;
    }
  }
  return std::min(free, options_.max_replicas);
}

void JobManager::ExplainWaits() {
  if (!store_.Shared() || options_.max_replicas <= 1) return;
  absl::StatusOr<std::vector<NodeRecord>> nodes =
      store_.ListNodes(options_.lease);
  if (!nodes.ok()) return;
  const int live = static_cast<int>(nodes->size());
  absl::StatusOr<std::vector<std::string>> waiting =
      store_.QueuedNeedingMore(live);
  if (!waiting.ok()) return;
  for (const std::string& id : *waiting) {
    absl::StatusOr<std::optional<StoredJob>> stored = store_.GetJob(id);
    if (!stored.ok() || !*stored) continue;
    const int replicas = ReplicasOf((*stored)->request);
    if (replicas <= live) continue;
    const std::string why =
        StrCat("waits for ", replicas, " daemons (replicas ", replicas, "); ",
               live, live == 1 ? " is" : " are", " live");
    JobEvent warning;
    warning.type = EventType::kWarning;
    warning.warning = why;
    // Said once a change, by whichever daemon sees it first.
    (void)Record(
        id, [&](Job& j) { j.waiting = why; }, {warning}, nullptr,
        [&](const Job& now, bool) -> absl::Status {
          if (now.state != JobState::kQueued || now.waiting == why) {
            return absl::AlreadyExistsError("said");
          }
          return absl::OkStatus();
        });
  }
}

absl::Status JobManager::ReplicaFailure(const StoredJob& stored,
                                        const absl::Status& why, bool clean) {
  const std::string& id = stored.job.id;
  ASSIGN_OR_RETURN(std::optional<StoredJob> now, store_.GetJob(id));
  if (!now) return absl::OkStatus();
  const Job& job = now->job;
  const int crashes = job.crash_restarts + (clean ? 0 : 1);
  const bool gave_way = why.code() == absl::StatusCode::kAborted;
  std::cerr << "webnnmd: job " << id << ": " << why.message() << "\n";
  if (crashes > options_.restart_budget) {
    Metrics().job_failures.With({"restart"}).Add();
    return Record(id,
                  [&](Job& j) {
                    j.state = JobState::kFailed;
                    j.crash_restarts = crashes;
                    j.error = StrCat("a replica failed: ", why.message(),
                                     "; the restart budget is spent");
                    j.finished = Now();
                  },
                  {ErrorEvent(StrCat("a replica failed ", crashes,
                                     " times; the restart budget (",
                                     options_.restart_budget,
                                     ") is spent: ", why.message())),
                   StateEvent(JobState::kFailed)})
        .status();
  }
  Metrics().job_restarts.With({clean ? "stop" : "crash"}).Add();
  const std::string message = StrCat(
      gave_way ? std::string(why.message())
               : StrCat(clean ? "a replica stopped" : "a replica failed", " (",
                        why.message(), ")"),
      job.has_snapshot
          ? StrCat("; resumes from its checkpoint after epoch ", job.epoch)
          : std::string("; starts again"));
  absl::Status requeued = Record(id,
                                 [&](Job& j) {
                                   j.state = JobState::kQueued;
                                   j.crash_restarts = crashes;
                                 },
                                 {StateEvent(JobState::kQueued, message)})
                              .status();
  Queued();
  return requeued;
}

void JobManager::RunSlot(const ReplicaSlot& slot) {
  const std::string where =
      StrCat("job ", slot.job_id, " replica ", slot.rank, " of ", slot.size);
  absl::Status status = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored,
                     store_.GetJob(slot.job_id));
    if (!stored || stored->job.state != JobState::kRunning ||
        stored->job.attempt != slot.attempt) {
      return absl::OkStatus();  // over already
    }
    const JobRequest& request = stored->request;
    CheckResult check =
        CheckModel(request.file_name.empty() ? "model.wnm" : request.file_name,
                   request.model_text);
    if (!check.ok)
      return absl::InvalidArgumentError("the model does not check");
    // The same run as rank 0's: the same data, hyperparameters and
    // checkpoint (rank 0 writes none before every replica has joined).
    std::optional<train::ModelSnapshot> resume;
    ASSIGN_OR_RETURN(std::unique_ptr<train::Run> run,
                     PrepareTrain(*stored, check, resume));
    // The wait for the other replicas ends early when the claim is over
    // (rank 0 gave way, or failed).
    auto give_up = [&]() -> std::string {
      absl::Status renewed =
          store_.RenewReplicaSlot(slot, options_.node, options_.lease);
      return IsLeaseLost(renewed) ? std::string(renewed.message())
                                  : std::string();
    };
    ASSIGN_OR_RETURN(std::unique_ptr<train::Collective> collective,
                     options_.collectives(slot, give_up));
    std::cerr << "webnnmd: " << where << " runs here\n";
    train::TrainCallbacks callbacks;
    callbacks.step = [&](const train::StepReport&) {
      absl::MutexLock lock(&mutex_);
      return !stopping_ && !lost_slots_.count(slot.job_id);
    };
    return run->Train(callbacks, collective.get()).status();
  }();
  std::cerr << "webnnmd: " << where << " ended"
            << (status.ok() ? std::string() : StrCat(": ", status.message()))
            << "\n";
}

}  // namespace webnnm::server
