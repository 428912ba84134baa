// The daemon's core types: jobs, what they were asked to do, their events
// and datasets, in the engine's types (hyperparameters, decisions, epoch
// reports). The RPC edge converts them to and from webnnm.v1 (server/convert/convert.h);
// the core never sees a protobuf.
//
// The enums' values equal webnnm.v1's, so a conversion is a cast.
#ifndef WEBNNM_SERVER_CORE_JOB_H_
#define WEBNNM_SERVER_CORE_JOB_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "engine/data/dataset.h"
#include "engine/train/hyperparameters.h"
#include "engine/train/state.h"
#include "engine/train/trainer.h"

namespace webnnm::server {

using Time = std::chrono::system_clock::time_point;
Time Now();
// A new random id: `prefix` and 12 hex digits ("j3f…" jobs, "d…"
// datasets, "u…" uploads).
std::string NewId(std::string_view prefix);

enum class JobKind { kUnspecified = 0, kTrain = 1, kTest = 2, kImport = 3 };
enum class JobState {
  kUnspecified = 0,
  kQueued = 1,
  kRunning = 2,
  kSucceeded = 3,
  kFailed = 4,
  kCancelled = 5,
};
enum class EventType {
  kUnspecified = 0,
  kState = 1,
  kDecision = 2,
  kWarning = 3,
  kScout = 4,
  kEpoch = 5,
  kSnapshot = 6,
  kTest = 7,
  kError = 8,
};
enum class DatasetFormat {
  kUnspecified = 0,
  kCsv = 1,
  kIdx = 2,
  kNpz = 3,
  kImages = 4,  // one .zip of an image folder
};

// "QUEUED", "TRAIN": as webnnmctl prints them.
const char* StateName(JobState state);
bool IsFinished(JobState state);

// Which data a job reads, and how.
struct DataSpec {
  std::string dataset_id;
  std::string label;  // CSV label column ("": chosen for the model)
  // The label column chosen at submission when `label` was empty (shown by
  // get; never read from a request).
  std::string chosen_label;
  bool no_header = false;
  std::string split;  // "": the default or the snapshot's
  train::StandardizeMode standardize = train::StandardizeMode::kAuto;
  train::ImputeMode impute = train::ImputeMode::kAuto;
  bool resize = false;  // image datasets: resize to the model's size
};

// What a job was asked to do (a submission, kept as submitted).
struct JobRequest {
  JobKind kind = JobKind::kTrain;
  std::string model_text, file_name;  // TRAIN
  DataSpec data;
  train::HyperparameterValues hyperparameters;  // as given
  std::string backend;                          // "": the daemon's
  std::string idempotency_key;
  std::string snapshot_job_id;  // TEST: whose snapshot
  // What the user calls the run (CheckLabels), its tags and note.
  std::string name;
  std::map<std::string, std::string> tags;
  std::string note;
};

// A run's name, tags and note within their limits (webnnm.v1's
// SubmitJobRequest): InvalidArgument naming what does not fit.
absl::Status CheckLabels(const std::string& name,
                         const std::map<std::string, std::string>& tags,
                         const std::string& note);

// Whether `text` matches the glob `pattern` (* any run, ? any byte).
bool GlobMatch(std::string_view pattern, std::string_view text);

struct OutputResult {
  std::string name;
  std::optional<double> test_loss, test_accuracy;
};

// A test's figures (every output's, and the totals), and each output's
// metrics (engine/train/metrics.h) by name.
struct TestReport {
  int64_t samples = 0;
  std::optional<double> test_loss, test_accuracy;
  std::vector<OutputResult> outputs;
  std::vector<std::pair<std::string, train::OutputMetrics>> metrics;
};

// What `train --local -o json` reports, once a job is tested.
struct JobSummary {
  int epochs = 0, best_epoch = 0;
  double train_samples_per_second = 0;
  int64_t trained_samples = 0;  // a row once per epoch
  std::optional<double> final_train_loss, validation_loss;
  TestReport test;
  std::vector<train::Decision> decisions;
  std::vector<std::string> warnings;
};

struct Job {
  std::string id, principal;
  JobKind kind = JobKind::kTrain;
  JobState state = JobState::kUnspecified;
  std::string model_name, dataset_id;
  int epoch = 0;       // epochs completed
  int epochs = 0;      // planned
  int best_epoch = 0;  // 1-based; 0 before the first epoch
  std::optional<double> test_accuracy, test_loss;
  std::string error;
  std::optional<Time> created, started, finished;
  int attempt = 0;  // runs so far: 1 + restarts after daemon stops
  std::optional<JobSummary> summary;  // once tested
  std::string backend;
  int64_t last_seq = 0;  // the sequence number of its latest event
  std::string snapshot_job_id;
  train::HyperparameterValues hyperparameters;  // as submitted
  // As the run resolved them (no 'auto' left), from its first checkpoint.
  std::optional<train::Hyperparameters> resolved_hyperparameters;
  DataSpec data;
  bool has_snapshot = false;
  // The daemon stopped cleanly (SIGTERM) while the job ran: its restart
  // does not count against the restart budget.
  bool stopped_with_daemon = false;
  int crash_restarts = 0;  // restarts after the daemon died during it
  // The daemon that runs it (or ran it last): its --node name.
  std::string node;
  // Why a queued job waits (a data-parallel job: for daemons), as its
  // last WARNING said; cleared when it is claimed.
  std::string waiting;
  std::string name;  // what the user calls it (default: the model's name)
  std::map<std::string, std::string> tags;
  std::string note;
};

struct ScoutInfo {
  int seeds = 0, chosen = 0;  // chosen: 1-based
  std::string detail;
};

struct SnapshotInfo {
  int epoch = 0;
  int64_t bytes = 0;
  std::string kind;  // "checkpoint" or "final"
};

// One numbered event of a job; `type` says which detail member holds it.
struct JobEvent {
  int64_t seq = 0;  // 1-based, per job, without gaps
  std::optional<Time> time;
  EventType type = EventType::kUnspecified;
  std::string job_id;
  JobState state = JobState::kUnspecified;  // kState
  train::Decision decision;                 // kDecision
  std::string warning;                      // kWarning
  ScoutInfo scout;                          // kScout
  train::EpochReport epoch;                 // kEpoch
  SnapshotInfo snapshot;                    // kSnapshot
  TestReport test;                          // kTest
  std::string error;                        // kError
  std::string message;  // kState: why ("resumed from epoch 3")
};

// Event builders.
JobEvent StateEvent(JobState state, std::string message = {});
JobEvent ErrorEvent(std::string message);

// A request's hyperparameters over the defaults, checked like the command
// line's flags (InvalidArgument naming the field); `threads` is capped at
// `max_threads`, and is `max_threads` when not given.
absl::StatusOr<train::Hyperparameters> ResolveJobHyperparameters(
    const train::HyperparameterValues& given, int max_threads);

// A test's figures as jobs report them (non-finite losses left out), in the
// DAG's output order; and a training run's summary.
TestReport TestReportOf(const train::Evaluation& test, const dag::Dag& dag);
JobSummary SummaryOf(const train::TrainResult& result, const dag::Dag& dag);

struct Dataset {
  std::string id, name;
  DatasetFormat format = DatasetFormat::kUnspecified;
  std::string sha256;
  int64_t bytes = 0;
  std::optional<Time> created;
  std::vector<std::string> files;
  // Read when the upload finished (DatasetSummary).
  std::optional<int64_t> rows, columns;
  std::vector<std::string> header;
};

struct MetricPoint {
  int epoch = 0;
  double value = 0;  // NaN: not a number that epoch
};

struct MetricSeries {
  std::string name;  // trainLoss, validationLoss, lr, samplesPerSecond
  std::vector<MetricPoint> points;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_JOB_H_
