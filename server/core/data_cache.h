// Datasets read once: a submission's data is read (and checked) when it is
// submitted or previewed, and the job that runs it later takes the parsed
// form from here instead of reading the file again. Entries are keyed by
// what decides how a file is read (its path — stored datasets live in
// content-addressed folders, so a path names one content —, the label
// column, the header flag, and whether the model reads classes), bounded
// by their bytes, least recently used first out.
//
// Thread-safety: every method may be called from any thread; a read runs
// outside the lock (two first reads of one file may both read it).
#ifndef WEBNNM_SERVER_CORE_DATA_CACHE_H_
#define WEBNNM_SERVER_CORE_DATA_CACHE_H_

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/train/data_source.h"

namespace webnnm::server {

class DataCache {
 public:
  // `max_bytes` 0: nothing is kept (every call reads).
  explicit DataCache(int64_t max_bytes) : max_bytes_(max_bytes) {}

  // The data `source` holds, read for `dag` (train::ReadDataFor's result
  // and errors), unsplit: a copy the caller may split and standardize.
  absl::StatusOr<train::Dataset> Read(const dag::Dag& dag,
                                      const train::DataSource& source);

  // Reads served from the cache and from files, for tests and metrics.
  int64_t hits() const;
  int64_t misses() const;

 private:
  struct Entry {
    std::shared_ptr<const train::Dataset> data;
    int64_t bytes = 0;
    std::list<std::string>::iterator recent;
  };

  const int64_t max_bytes_;
  mutable absl::Mutex mutex_;
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mutex_);
  std::list<std::string> recent_ ABSL_GUARDED_BY(mutex_);  // newest first
  int64_t bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  int64_t hits_ ABSL_GUARDED_BY(mutex_) = 0;
  int64_t misses_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_DATA_CACHE_H_
