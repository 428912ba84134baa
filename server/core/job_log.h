// The daemon's log of jobs on stderr: one line per job state change and
// per job error, in logfmt so that log collectors (Loki, Vector, journald's
// readers) split it into fields:
//   time=2026-12-03T12:00:00.123Z level=info job=j1a2b principal=alice
//   state=RUNNING msg="started"
// level is info for state changes, warn for a cancellation and error for
// a failure and for error events; a value with a space, a quote or an
// equals sign is double-quoted with \" and \\ escaped.
#ifndef WEBNNM_SERVER_CORE_JOB_LOG_H_
#define WEBNNM_SERVER_CORE_JOB_LOG_H_

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/core/job.h"

namespace webnnm::server {

// `fields` as one logfmt line (no newline).
std::string LogfmtLine(
    const std::vector<std::pair<std::string, std::string>>& fields);

// Where the lines go (default std::cerr; tests may point it elsewhere).
void SetJobLogStream(std::ostream* out);

// Logs `job`'s state and error events among `events` (a change just
// recorded), one line each, whole lines even from several threads.
void LogJobEvents(const Job& job, const std::vector<JobEvent>& events);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_JOB_LOG_H_
