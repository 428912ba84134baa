#include "server/core/job.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>

#include "absl/synchronization/mutex.h"
#include "engine/base/strings.h"

namespace webnnm::server {

Time Now() { return std::chrono::system_clock::now(); }

std::string NewId(std::string_view prefix) {
  static absl::Mutex mutex(absl::kConstInit);
  static std::mt19937_64 generator(std::random_device{}());  // under mutex
  absl::MutexLock lock(&mutex);
  static const char kHex[] = "0123456789abcdef";
  std::string id(prefix);
  uint64_t bits = generator();
  for (int i = 0; i < 12; ++i) id += kHex[(bits >> (4 * i)) & 15];
  return id;
}

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

namespace {

constexpr size_t kMaxName = 200, kMaxTags = 32, kMaxTagKey = 64,
                 kMaxTagValue = 256, kMaxNote = 4096;

bool ControlFree(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

bool TagKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
         c == '-' || c == '/';
}

}  // namespace

absl::Status CheckLabels(const std::string& name,
                         const std::map<std::string, std::string>& tags,
                         const std::string& note) {
  if (name.size() > kMaxName || !ControlFree(name)) {
    return absl::InvalidArgumentError(StrCat("a job's name is at most ",
                                             kMaxName,
                                             " bytes without control "
                                             "characters"));
  }
  if (tags.size() > kMaxTags) {
    return absl::InvalidArgumentError(
        StrCat("a job has at most ", kMaxTags, " tags, not ", tags.size()));
  }
  for (const auto& [key, value] : tags) {
    if (key.empty() || key.size() > kMaxTagKey ||
        !std::all_of(key.begin(), key.end(), TagKeyChar)) {
      return absl::InvalidArgumentError(
          StrCat("the tag key '", key.substr(0, kMaxTagKey), "' is not 1 to ",
                 kMaxTagKey, " letters, digits and . _ - /"));
    }
    if (value.size() > kMaxTagValue || !ControlFree(value)) {
      return absl::InvalidArgumentError(
          StrCat("the tag '", key, "' has a value of more than ", kMaxTagValue,
                 " bytes or with control characters"));
    }
  }
  if (note.size() > kMaxNote) {
    return absl::InvalidArgumentError(StrCat(
        "a job's note is at most ", kMaxNote, " bytes, not ", note.size()));
  }
  return absl::OkStatus();
}

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative matching with one backtrack point for the last '*'.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {  // before a literal '*'
      star = p++;
      mark = t;
    } else if (p < pattern.size() &&
               (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
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
  s.trained_samples = result.state.trained_samples;
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
