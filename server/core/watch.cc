#include "server/core/watch.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::server {
namespace {

// Sends the job's progress when it moved and a quarter second has passed
// since the last; false when the watcher is gone.
class ProgressSender {
 public:
  ProgressSender(JobManager& jobs, const std::string& id,
                 const Watcher& watcher)
      : jobs_(jobs), id_(id), watcher_(watcher) {}
  bool Send() {
    if (!watcher_.progress) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now - sent_at_ < std::chrono::milliseconds(250)) return true;
    std::optional<train::StepReport> p = jobs_.Progress(id_);
    if (!p || (p->epoch == sent_.epoch && p->step == sent_.step)) return true;
    sent_ = *p;
    sent_at_ = now;
    return watcher_.progress(*p);
  }

 private:
  JobManager& jobs_;
  const std::string& id_;
  const Watcher& watcher_;
  train::StepReport sent_;  // the last progress sent, and when
  std::chrono::steady_clock::time_point sent_at_{};
};

}  // namespace

absl::Status WatchJob(Store& store, JobManager& jobs, const std::string& id,
                      int64_t from_seq, const Watcher& watcher) {
  int64_t next = std::max<int64_t>(1, from_seq);
  ProgressSender progress(jobs, id, watcher);
  while (!watcher.cancelled()) {
    const uint64_t generation = jobs.generation();
    ASSIGN_OR_RETURN(std::vector<JobEvent> events,
                     store.Events(id, next, 256));
    for (const JobEvent& e : events) {
      if (!watcher.event(e)) return absl::CancelledError("the watcher left");
      next = e.seq + 1;
    }
    if (!events.empty()) continue;
    ASSIGN_OR_RETURN(std::optional<StoredJob> now, store.GetJob(id));
    if (!now) return absl::NotFoundError(StrCat("job ", id, " was deleted"));
    if (IsFinished(now->job.state) && next > now->job.last_seq) {
      return absl::OkStatus();
    }
    if (!progress.Send()) return absl::CancelledError("the watcher left");
    jobs.WaitForChange(generation, std::chrono::milliseconds(250));
  }
  return absl::CancelledError("the watcher left");
}

}  // namespace webnnm::server
