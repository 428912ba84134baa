// JobManager's recorder of a training job (jobs.cc's part, apart for
// size): the run's decisions, warnings and scouting as events at once, each
// epoch with its checkpoint committed together, progress and the training
// metrics (daemon_metrics.h) at every step. Included by jobs.cc only.
#ifndef WEBNNM_SERVER_CORE_TRAIN_RECORDER_H_
#define WEBNNM_SERVER_CORE_TRAIN_RECORDER_H_

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/strings.h"
#include "engine/train/checkpoint.h"
#include "server/core/daemon_metrics.h"
#include "server/core/jobs.h"

namespace webnnm::server {

namespace jobs_internal {

inline JobEvent SnapshotEvent(int epoch, size_t bytes, const char* kind) {
  JobEvent e;
  e.type = EventType::kSnapshot;
  e.snapshot = {epoch, static_cast<int64_t>(bytes), kind};
  return e;
}

inline JobEvent TestEvent(const TestReport& test) {
  JobEvent e;
  e.type = EventType::kTest;
  e.test = test;
  return e;
}

}  // namespace jobs_internal

// A training job's events as the run reports them: decisions, warnings and
// scouting at once; each epoch with its checkpoint, committed together.
class JobManager::TrainRecorder {
 public:
  TrainRecorder(JobManager& jobs, const std::string& id, const train::Run& run,
                const std::string& backend)
      : jobs_(jobs),
        id_(id),
        run_(run),
        steps_(Metrics().training_steps.With({backend})),
        samples_(Metrics().training_samples.With({backend})),
        epoch_seconds_(Metrics().epoch_seconds.With({backend})) {}

  // The first error of recording, if any (the run stops at its next epoch).
  const absl::Status& status() const { return status_; }

  bool Record(std::vector<JobEvent> events,
              const std::function<void(Job&)>& change = nullptr,
              const SnapshotBlob* blob = nullptr) {
    if (!status_.ok()) return false;
    status_ = jobs_.Record(id_, change, std::move(events), blob).status();
    return status_.ok();
  }

  train::TrainCallbacks Callbacks() {
    train::TrainCallbacks callbacks;
    callbacks.decision = [this](const train::Decision& d) {
      JobEvent e;
      e.type = EventType::kDecision;
      e.decision = d;
      Record({e});
    };
    callbacks.warning = [this](const std::string& w) {
      JobEvent e;
      e.type = EventType::kWarning;
      e.warning = w;
      Record({e});
    };
    callbacks.scout = [this](const train::ScoutReport& r) {
      JobEvent e;
      e.type = EventType::kScout;
      e.scout = {r.seeds, r.chosen,
                 StrCat("loss ", r.loss, ", gradient ratio ", r.gradient_ratio,
                        ", dead ratio ", r.dead_ratio)};
      Record({e});
    };
    callbacks.epoch = [this](const train::EpochReport& r) {
      last_epoch_ = r;
      epoch_seconds_.Observe(
          std::chrono::duration<double>(Clock::now() - epoch_start_).count());
    };
    callbacks.checkpoint = [this](const train::TrainState& state) {
      return Checkpoint(state) && !jobs_.ShouldStop(id_);
    };
    callbacks.step = [this](const train::StepReport& r) {
      if (r.step == 1) {  // an epoch begins (a resumed run begins at one)
        epoch_start_ = Clock::now();
        epoch_rows_ = 0;
      }
      steps_.Add();
      samples_.Add(static_cast<double>(r.rows - epoch_rows_));
      epoch_rows_ = r.rows;
      jobs_.SetProgress(id_, r);
      return !jobs_.Lost(id_);  // taken over elsewhere: stop at once
    };
    return callbacks;
  }

  ~TrainRecorder() { jobs_.SetProgress(id_, std::nullopt); }

 private:
  bool Checkpoint(const train::TrainState& state) {
    absl::StatusOr<std::string> bytes =
        train::EncodeModelSnapshot(run_.Snapshot(state));
    if (!bytes.ok()) {
      status_ = bytes.status();
      return false;
    }
    SnapshotBlob blob{"checkpoint", state.epoch, std::move(*bytes)};
    std::vector<JobEvent> events;
    if (last_epoch_) {
      JobEvent e;
      e.type = EventType::kEpoch;
      e.epoch = *last_epoch_;
      events.push_back(e);
    }
    events.push_back(jobs_internal::SnapshotEvent(
        state.epoch, blob.bytes.size(), "checkpoint"));
    const int epochs = state.hyper.epochs;
    const int epoch = state.epoch, best = state.best_epoch;
    return Record(
        std::move(events),
        [&](Job& j) {
          j.resolved_hyperparameters = state.hyper;
          j.epoch = epoch;
          j.epochs = epochs;
          j.best_epoch = best;
        },
        &blob);
  }

  using Clock = std::chrono::steady_clock;

  JobManager& jobs_;
  const std::string& id_;
  const train::Run& run_;
  absl::Status status_;
  std::optional<train::EpochReport> last_epoch_;
  // The metrics of the job's backend, and where the epoch stands.
  metrics::Counter& steps_;
  metrics::Counter& samples_;
  metrics::Histogram& epoch_seconds_;
  Clock::time_point epoch_start_ = Clock::now();
  int64_t epoch_rows_ = 0;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_TRAIN_RECORDER_H_
