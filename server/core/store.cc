#include "server/core/store.h"

#include <algorithm>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

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

namespace {
constexpr std::string_view kLeaseLost = "lease lost: ";
}  // namespace

absl::Status LeaseLost(const std::string& id, const Job& stored,
                       const Fence& fence) {
  std::string now;
  if (stored.state != JobState::kRunning) {
    now = StrCat("it is ", StateName(stored.state), " now");
  } else if (stored.node != fence.node || stored.attempt != fence.attempt) {
    now = StrCat("it runs as attempt ", stored.attempt, " on ",
                 stored.node.empty() ? "no node" : stored.node, " now");
  } else {
    now = "its lease has not run out";
  }
  return absl::AbortedError(StrCat(kLeaseLost, "job ", id, " attempt ",
                                   fence.attempt, " on ", fence.node, ": ",
                                   now));
}

bool IsLeaseLost(const absl::Status& status) {
  return status.code() == absl::StatusCode::kAborted &&
         std::string_view(status.message().data(), status.message().size())
             .starts_with(kLeaseLost);
}

absl::Status CheckFence(const std::string& id, const Job& stored,
                        const Fence& fence, bool lease_expired) {
  if (stored.state == JobState::kRunning && stored.node == fence.node &&
      stored.attempt == fence.attempt && (!fence.expired || lease_expired)) {
    return absl::OkStatus();
  }
  return LeaseLost(id, stored, fence);
}

int ReplicasOf(const JobRequest& request) {
  auto it = request.hyperparameters.find("replicas");
  if (it == request.hyperparameters.end()) return 1;
  const int64_t* n = std::get_if<int64_t>(&it->second);
  return n ? static_cast<int>(std::clamp<int64_t>(*n, 1, 1 << 16)) : 1;
}

absl::Status Store::OpenReplicaSlots(const std::string& id, const Fence&, int) {
  return absl::FailedPreconditionError(
      StrCat("job ", id, ": data-parallel jobs need a shared store"));
}

absl::StatusOr<std::vector<std::string>> Store::QueuedNeedingMore(
    int replicas) {
  ASSIGN_OR_RETURN(std::vector<std::string> queued, JobIds(JobState::kQueued));
  std::vector<std::string> out;
  for (const std::string& id : queued) {
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJob(id));
    if (stored && ReplicasOf(stored->request) > replicas) out.push_back(id);
  }
  return out;
}

absl::StatusOr<std::optional<ReplicaSlot>> Store::ClaimReplicaSlot(
    const std::string&, std::chrono::milliseconds) {
  return std::nullopt;
}

absl::StatusOr<std::optional<std::string>> Store::OlderJobNeedingReplicas(
    const std::string&, const std::string&) {
  return std::nullopt;
}

absl::Status Store::RenewReplicaSlot(const ReplicaSlot& slot,
                                     const std::string&,
                                     std::chrono::milliseconds) {
  return absl::AbortedError(StrCat("lease lost: job ", slot.job_id,
                                   ": no replicas without a shared store"));
}

UpdateCheck Fenced(const std::string& id, const Fence& fence) {
  return [id, fence](const Job& stored, bool lease_expired) {
    return CheckFence(id, stored, fence, lease_expired);
  };
}

absl::Status CheckUploadCaps(int open, int64_t bytes, int64_t more,
                             const UploadCaps& caps) {
  if (open >= caps.max_open) {
    return absl::ResourceExhaustedError(
        StrCat(open,
               " uploads are open, the limit (max_open_uploads); finish "
               "one, or wait until an abandoned one expires (after ",
               caps.idle_timeout.count(), " s idle)"));
  }
  if (bytes + more > caps.max_open_bytes) {
    return absl::ResourceExhaustedError(StrCat(
        "open uploads would announce ", bytes + more, " bytes; the limit is ",
        caps.max_open_bytes, " (max_open_upload_bytes)"));
  }
  return absl::OkStatus();
}

absl::Status CheckAppend(const UploadRecord& upload, const std::string& file,
                         int64_t offset, size_t size) {
  auto have = upload.files.find(file);
  const int64_t bytes = have == upload.files.end() ? 0 : have->second;
  if (offset != bytes) {
    return absl::FailedPreconditionError(
        StrCat("'", file, "': expected offset ", bytes, ", got ", offset));
  }
  if (upload.received + static_cast<int64_t>(size) > upload.total_bytes) {
    return absl::InvalidArgumentError(
        StrCat("more bytes than the announced ", upload.total_bytes));
  }
  return absl::OkStatus();
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
