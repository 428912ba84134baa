#include "server/core/job.h"

#include <algorithm>
#include <cmath>

namespace webnnm::server {

Time Now() { return std::chrono::system_clock::now(); }

const char* StateName(JobState state) {
  switch (state) {
    case JobState::kUnspecified:
      return "UNSPECIFIED";
    case JobState::kQueued:
      return "QUEUED";
    case JobState::kRunning:
      return "RUNNING";
    case JobState::kSucceeded:
      return "SUCCEEDED";
    case JobState::kFailed:
      return "FAILED";
    case JobState::kCancelled:
      return "CANCELLED";
  }
  return "UNSPECIFIED";
}

bool IsFinished(JobState state) {
  return state == JobState::kSucceeded || state == JobState::kFailed ||
         state == JobState::kCancelled;
}

JobEvent StateEvent(JobState state, std::string message) {
  JobEvent e;
  e.type = EventType::kState;
  e.state = state;
  e.message = std::move(message);
  return e;
}

JobEvent ErrorEvent(std::string message) {
  JobEvent e;
  e.type = EventType::kError;
  e.error = std::move(message);
  return e;
}

absl::StatusOr<train::Hyperparameters> ResolveJobHyperparameters(
    const train::HyperparameterValues& given, int max_threads) {
  absl::StatusOr<train::Hyperparameters> h =
      train::ResolveHyperparameters(given);
  if (!h.ok()) return h.status();
  h->threads =
      given.count("threads") ? std::min(h->threads, max_threads) : max_threads;
  return h;
}

namespace {

std::optional<double> Finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

TestReport TestReportOf(const train::Evaluation& test, const dag::Dag& dag) {
  TestReport r;
  r.samples = test.samples;
  if (test.samples > 0) {
    r.test_loss = Finite(test.loss);
    r.test_accuracy = test.accuracy;
  }
  for (const dag::Endpoint& out : dag.outputs) {
    OutputResult& o = r.outputs.emplace_back();
    o.name = out.name;
    auto it = test.outputs.find(out.name);
    if (test.samples > 0 && it != test.outputs.end()) {
      o.test_loss = Finite(it->second.loss);
      o.test_accuracy = it->second.accuracy;
    }
    auto m = test.metrics.find(out.name);
    if (test.samples > 0 && m != test.metrics.end()) {
      r.metrics.emplace_back(out.name, m->second);
    }
  }
  return r;
}

JobSummary SummaryOf(const train::TrainResult& result, const dag::Dag& dag) {
  JobSummary s;
  s.epochs = result.epochs;
  s.best_epoch = result.best_epoch;
  s.train_samples_per_second = result.train_samples_per_second;
  s.final_train_loss = Finite(result.final_train_loss);
  if (result.validation_loss) {
    s.validation_loss = Finite(*result.validation_loss);
  }
  s.test = TestReportOf(result.test, dag);
  s.decisions = result.decisions;
  s.warnings = result.warnings;
  return s;
}

}  // namespace webnnm::server
