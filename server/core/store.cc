#include "server/core/store.h"

#include "engine/base/status_macros.h"

namespace webnnm::server {

absl::StatusOr<Job> Store::CreateFinishedJob(Job job,
                                             const SnapshotBlob& snapshot) {
  JobRequest request;
  request.kind = job.kind;
  ASSIGN_OR_RETURN(job, CreateJob(job, request));
  return Update(
      job.id,
      [](Job& j) {
        j.state = JobState::kSucceeded;
        j.finished = Now();
        j.has_snapshot = true;
      },
      {StateEvent(JobState::kSucceeded, "imported snapshot")}, &snapshot);
}

std::vector<std::pair<std::string, std::optional<double>>> EpochMetrics(
    const train::EpochReport& e) {
  return {{"trainLoss", e.train_loss},
          {"validationLoss", e.validation_loss},
          {"trainAccuracy", e.train_accuracy},
          {"validationAccuracy", e.validation_accuracy},
          {"lr", e.lr},
          {"samplesPerSecond", e.samples_per_second}};
}

}  // namespace webnnm::server
