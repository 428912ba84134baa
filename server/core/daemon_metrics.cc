#include "server/core/daemon_metrics.h"

#include <dirent.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace webnnm::server {

namespace {

using metrics::ExponentialBuckets;
using metrics::Exposition;
using metrics::Type;

// Seconds: 1 ms to about 17 minutes (epochs).
std::vector<double> EpochBuckets() {
  return {0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1,   2.5,
          5,     10,    30,   60,   120, 300,  600, 1200};
}

// Seconds: 50 µs to about 26 s (RPCs; long streams land in +Inf).
std::vector<double> RpcBuckets() { return ExponentialBuckets(5e-5, 2, 20); }

// Seconds: 20 µs to about 160 ms (inference calls).
std::vector<double> InferBuckets() { return ExponentialBuckets(2e-5, 1.5, 23); }

// Seconds: 10 µs to about 5 s (a SQLite write transaction).
std::vector<double> WriteBuckets() { return ExponentialBuckets(1e-5, 2, 20); }

int64_t FileSize(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

// Process figures from /proc/self (Linux).
void CollectProcess(Exposition& out) {
  std::ifstream status("/proc/self/status");
  std::string line;
  double rss = 0, threads = 0;
  while (std::getline(status, line)) {
    std::istringstream fields(line);
    std::string key;
    double value = 0;
    fields >> key >> value;
    if (key == "VmRSS:") rss = value * 1024;  // kB
    if (key == "Threads:") threads = value;
  }
  out.Family("process_resident_memory_bytes",
             "Resident memory of the daemon's process in bytes.", Type::kGauge);
  out.Sample("process_resident_memory_bytes", rss);
  out.Family("process_threads", "Threads of the daemon's process.",
             Type::kGauge);
  out.Sample("process_threads", threads);

  // utime and stime (fields 14 and 15) and starttime (22), in clock ticks;
  // the command name (field 2) may hold spaces: read after its ')'.
  std::ifstream stat_file("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)),
                   std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  if (paren != std::string::npos && ticks > 0) {
    std::istringstream fields(stat.substr(paren + 2));
    std::vector<std::string> f;
    for (std::string s; fields >> s;) f.push_back(s);
    // f[0] is field 3 (state): field n is f[n - 3].
    if (f.size() > 19) {
      const double cpu = (std::stod(f[11]) + std::stod(f[12])) / ticks;
      out.Family("process_cpu_seconds_total",
                 "User and system CPU time of the daemon in seconds.",
                 Type::kCounter);
      out.Sample("process_cpu_seconds_total", cpu);
      // starttime is in ticks since boot: add the boot time.
      std::ifstream proc_stat("/proc/stat");
      double boot = 0;
      while (std::getline(proc_stat, line)) {
        if (line.rfind("btime ", 0) == 0) boot = std::stod(line.substr(6));
      }
      out.Family("process_start_time_seconds",
                 "When the daemon started, in seconds since the Unix epoch.",
                 Type::kGauge);
      out.Sample("process_start_time_seconds", boot + std::stod(f[19]) / ticks);
    }
  }
  int fds = 0;
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    while (const dirent* e = ::readdir(dir)) fds += e->d_name[0] != '.';
    ::closedir(dir);
    out.Family("process_open_fds", "Open file descriptors of the daemon.",
               Type::kGauge);
    out.Sample("process_open_fds", fds - 1);  // less the directory's own
  }
}

}  // namespace

DaemonMetrics::DaemonMetrics()
    : job_starts(registry.AddCounter(
          "webnnm_job_starts_total",
          "Jobs a worker started running, by kind (a resumed job counts "
          "again).",
          {"kind"})),
      job_ends(registry.AddCounter(
          "webnnm_job_ends_total",
          "Jobs that reached a final state, by that state.", {"state"})),
      job_failures(registry.AddCounter(
          "webnnm_job_failures_total",
          "Jobs that failed, by phase: run (the job's error) or restart "
          "(the restart budget spent).",
          {"phase"})),
      job_restarts(registry.AddCounter(
          "webnnm_job_restarts_total",
          "Running jobs queued again at a daemon start, by cause: stop (a "
          "clean stop) or crash.",
          {"cause"})),
      training_steps(registry.AddCounter("webnnm_training_steps_total",
                                         "Training steps run, by backend.",
                                         {"backend"})),
      training_samples(registry.AddCounter(
          "webnnm_training_samples_total",
          "Rows trained (a row once per epoch), by backend.", {"backend"})),
      epoch_seconds(registry.AddHistogram(
          "webnnm_epoch_duration_seconds",
          "Wall time of a training epoch (its steps and validation), by "
          "backend.",
          EpochBuckets(), {"backend"})),
      rpc_calls(registry.AddCounter(
          "webnnm_rpc_calls_total",
          "gRPC calls (grpc-web's included), by method and status code.",
          {"method", "code"})),
      rpc_seconds(registry.AddHistogram(
          "webnnm_rpc_duration_seconds",
          "gRPC call latency from arrival to status, by method (streams "
          "last as long as they are watched).",
          RpcBuckets(), {"method"})),
      infer_seconds(registry.AddHistogram(
          "webnnm_infer_duration_seconds",
          "Inference call latency (Infer and KServe's ModelInfer), by "
          "method.",
          InferBuckets(), {"method"})),
      store_write_seconds(
          registry
              .AddHistogram("webnnm_store_write_duration_seconds",
                            "SQLite write transactions from BEGIN to COMMIT.",
                            WriteBuckets())
              .With({})),
      infer_batch_calls(
          registry
              .AddHistogram("webnnm_infer_batch_calls",
                            "Inference calls run together in one pass of a "
                            "model (dynamic batching; 1: alone).",
                            {1, 2, 4, 8, 16, 32, 64})
              .With({})) {
  // The known label values from the start, so that rates and increases
  // see a series before its first event.
  for (const char* kind : {"train", "test"}) job_starts.With({kind});
  for (const char* state : {"SUCCEEDED", "FAILED", "CANCELLED"}) {
    job_ends.With({state});
  }
  for (const char* phase : {"run", "restart"}) job_failures.With({phase});
  for (const char* cause : {"stop", "crash"}) job_restarts.With({cause});
}

DaemonMetrics& Metrics() {
  static DaemonMetrics* metrics = new DaemonMetrics();
  return *metrics;
}

double SqliteFileBytes(const std::string& database) {
  return static_cast<double>(FileSize(database) + FileSize(database + "-wal"));
}

void AddDaemonCollectors(Store& store, int workers, std::function<int()> busy,
                         std::function<std::optional<double>()> database_bytes,
                         std::function<int()> uploads) {
  Metrics().registry.AddCollector([&store](Exposition& out) {
    out.Family("webnnm_jobs", "Jobs in the database, by state.", Type::kGauge);
    double queued = 0;
    for (JobState state :
         {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
          JobState::kFailed, JobState::kCancelled}) {
      absl::StatusOr<int64_t> count = store.CountJobs("", state);
      if (!count.ok()) continue;  // the sample is left out, not faked
      if (state == JobState::kQueued) queued = static_cast<double>(*count);
      out.Sample("webnnm_jobs", {{"state", StateName(state)}},
                 static_cast<double>(*count));
    }
    out.Family("webnnm_queue_depth", "Queued jobs waiting for a worker.",
               Type::kGauge);
    out.Sample("webnnm_queue_depth", queued);
  });
  Metrics().registry.AddCollector(
      [workers, busy = std::move(busy)](Exposition& out) {
        out.Family("webnnm_workers", "Job workers configured.", Type::kGauge);
        out.Sample("webnnm_workers", workers);
        out.Family("webnnm_workers_busy", "Job workers running a job.",
                   Type::kGauge);
        out.Sample("webnnm_workers_busy", busy());
      });
  Metrics().registry.AddCollector(
      [database_bytes = std::move(database_bytes)](Exposition& out) {
        out.Family("webnnm_database_size_bytes",
                   "The database's size in bytes (SQLite: on disk, with its "
                   "write-ahead log; PostgreSQL: pg_database_size).",
                   Type::kGauge);
        if (std::optional<double> bytes = database_bytes()) {
          out.Sample("webnnm_database_size_bytes", *bytes);
        }
      });
  Metrics().registry.AddCollector(
      [uploads = std::move(uploads)](Exposition& out) {
        out.Family("webnnm_uploads_in_progress",
                   "Dataset uploads begun and not yet finished or expired.",
                   Type::kGauge);
        out.Sample("webnnm_uploads_in_progress", uploads());
      });
  Metrics().registry.AddCollector(CollectProcess);
}

}  // namespace webnnm::server
