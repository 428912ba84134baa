// The daemon's Prometheus metrics (docs/deployment.md names each one): the
// process-wide registry, its metric families, and the collectors computed
// at scrape time. Parts of the daemon update the families as things happen
// (jobs.cc: job starts, ends, restarts, steps, samples, epochs; the RPC
// interceptor: calls and latency; the SQLite store: write latency; uploads).
#ifndef WEBNNM_SERVER_CORE_DAEMON_METRICS_H_
#define WEBNNM_SERVER_CORE_DAEMON_METRICS_H_

#include <functional>
#include <optional>
#include <string>

#include "server/core/metrics.h"
#include "server/core/store.h"

namespace webnnm::server {

struct DaemonMetrics {
  DaemonMetrics();

  metrics::Registry registry;
  // Jobs a worker started running, by kind (train, test): a resumed job
  // counts again.
  metrics::Family<metrics::Counter>& job_starts;
  // Jobs that reached a final state, by state (SUCCEEDED, FAILED,
  // CANCELLED).
  metrics::Family<metrics::Counter>& job_ends;
  // Jobs that failed (also in job_ends{state="FAILED"}), by phase: run (the
  // job's own error) or restart (the restart budget spent).
  metrics::Family<metrics::Counter>& job_failures;
  // Jobs queued again after the daemon stopped (stop) or died (crash).
  metrics::Family<metrics::Counter>& job_restarts;
  // Training steps and the rows they trained, by backend.
  metrics::Family<metrics::Counter>& training_steps;
  metrics::Family<metrics::Counter>& training_samples;
  // An epoch's wall time (steps and validation), by backend.
  metrics::Family<metrics::Histogram>& epoch_seconds;
  // RPCs by full method (/package.Service/Method) and final status code,
  // and their latency from the call's arrival to its status.
  metrics::Family<metrics::Counter>& rpc_calls;
  metrics::Family<metrics::Histogram>& rpc_seconds;
  // Inference calls (Infer, ModelInfer) alone, in finer buckets.
  metrics::Family<metrics::Histogram>& infer_seconds;
  // SQLite write transactions, from BEGIN to COMMIT.
  metrics::Histogram& store_write_seconds;
  // Inference calls run together in one pass of a model (dynamic
  // batching, infer_batcher.h): 1 for a call that ran alone.
  metrics::Histogram& infer_batch_calls;
};

// The process's metrics (made on first use).
DaemonMetrics& Metrics();

// Adds the collectors of the running daemon: jobs by state and the queue
// depth (read from `store` at each scrape), the job workers (`workers`
// configured, `busy()` running), the database's size on disk (`database`
// and its -wal file), and the process's memory, threads, CPU time, open
// files and start time (from /proc), and the dataset uploads in progress
// (`uploads()`: begun, not finished, not expired).
void AddDaemonCollectors(Store& store, int workers, std::function<int()> busy,
                         std::function<std::optional<double>()> database_bytes,
                         std::function<int()> uploads);
// A SQLite database's bytes on disk, with its write-ahead log.
double SqliteFileBytes(const std::string& database);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_DAEMON_METRICS_H_
