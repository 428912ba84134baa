#include "server/core/job_log.h"

#include <chrono>
#include <ctime>
#include <iostream>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace webnnm::server {
namespace {

absl::Mutex log_mutex(absl::kConstInit);
std::ostream* log_stream ABSL_GUARDED_BY(log_mutex) = nullptr;

std::string Quoted(std::string_view value) {
  bool plain = !value.empty();
  for (char c : value) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' ||
        static_cast<unsigned char>(c) < 0x20) {
      plain = false;
    }
  }
  if (plain) return std::string(value);
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string TimeNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                          now.time_since_epoch())
                          .count() %
                      1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour,
                utc.tm_min, utc.tm_sec, static_cast<int>(millis));
  return text;
}

std::string StateMessage(const Job& job, const JobEvent& e) {
  if (!e.message.empty()) return e.message;
  switch (e.state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "started";
    case JobState::kSucceeded:
      return "succeeded";
    case JobState::kFailed:
      return job.error.empty() ? "failed" : job.error;
    case JobState::kCancelled:
      return "cancelled";
    default:
      return "";
  }
}

}  // namespace

std::string LogfmtLine(
    const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string line;
  for (const auto& [key, value] : fields) {
    if (!line.empty()) line += ' ';
    line += key + "=" + Quoted(value);
  }
  return line;
}

void SetJobLogStream(std::ostream* out) {
  absl::MutexLock lock(&log_mutex);
  log_stream = out;
}

void LogJobEvents(const Job& job, const std::vector<JobEvent>& events) {
  for (const JobEvent& e : events) {
    std::string level, message;
    std::vector<std::pair<std::string, std::string>> fields;
    if (e.type == EventType::kState) {
      level = e.state == JobState::kFailed      ? "error"
              : e.state == JobState::kCancelled ? "warn"
                                                : "info";
      message = StateMessage(job, e);
    } else if (e.type == EventType::kError) {
      level = "error";
      message = e.error;
    } else {
      continue;
    }
    fields = {{"time", TimeNow()},
              {"level", level},
              {"job", job.id},
              {"principal", job.principal},
              {"kind", job.kind == JobKind::kTest     ? "TEST"
                       : job.kind == JobKind::kImport ? "IMPORT"
                                                      : "TRAIN"}};
    if (e.type == EventType::kState)
      fields.push_back({"state", StateName(e.state)});
    if (e.type == EventType::kState && e.state != JobState::kQueued &&
        job.epochs > 0) {
      fields.push_back({"epoch", std::to_string(job.epoch)});
    }
    fields.push_back({"msg", message});
    const std::string line = LogfmtLine(fields) + "\n";
    absl::MutexLock lock(&log_mutex);
    std::ostream& out = log_stream != nullptr ? *log_stream : std::cerr;
    out << line << std::flush;
  }
}

}  // namespace webnnm::server
