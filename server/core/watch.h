// Following a job as it runs: its stored events in order from a sequence
// number, and (when asked) its progress within an epoch, until it has
// finished and every event is sent.
#ifndef WEBNNM_SERVER_CORE_WATCH_H_
#define WEBNNM_SERVER_CORE_WATCH_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "engine/train/trainer.h"
#include "server/core/jobs.h"
#include "server/core/store.h"

namespace webnnm::server {

struct Watcher {
  // Each stored event, in order; false: the watcher is gone.
  std::function<bool(const JobEvent&)> event;
  // The job's place within its epoch when it moved (at most every 250
  // ms); empty: no progress asked for. False: the watcher is gone.
  std::function<bool(const train::StepReport&)> progress;
  // Whether the watcher has gone away (polled between waits).
  std::function<bool()> cancelled;
};

// Sends job `id`'s events from `from_seq` (at least 1) until the job has
// finished and its last event is sent: OK then; Cancelled when the watcher
// goes; NotFound when the job is deleted meanwhile. The caller has checked
// that the watcher may see the job.
absl::Status WatchJob(Store& store, JobManager& jobs, const std::string& id,
                      int64_t from_seq, const Watcher& watcher);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_WATCH_H_
