// Uploads: datasets and snapshots sent in chunks, one protocol for both.
//
// A call without an upload id begins an upload (its name, format, size and
// SHA-256 announced; a dataset the principal already holds answers at
// once). Later calls name the upload and append a chunk at an offset (the
// bytes the file holds: a retried chunk is refused, not doubled), and one
// says finish: the content is verified (its size, its files, its hash),
// synced to disk and kept — a dataset's in the store's content folder with
// its record and summary (rows, columns, header), a snapshot as an IMPORT
// job. A refused finish ends the upload; a finished one answers a retried
// finish with what it made. Unfinished uploads expire after
// Limits::upload_idle_timeout; the open ones are capped per principal.
//
// Thread-safety: every method may be called from any thread. Calls on one
// upload run one at a time (in this daemon); a dataset's content and record
// are stored, or deleted, one at a time.
#ifndef WEBNNM_SERVER_CORE_UPLOADS_H_
#define WEBNNM_SERVER_CORE_UPLOADS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/core/job.h"
#include "server/core/limits.h"
#include "server/core/principal.h"
#include "server/core/store.h"

namespace webnnm::server {

// One call of an upload.
struct UploadChunk {
  std::string upload_id;  // "": begin a new upload
  // Beginning: what the content is (a snapshot has no name or format).
  std::string name;
  DatasetFormat format = DatasetFormat::kUnspecified;
  std::string sha256;  // 64 lowercase hex digits
  int64_t total_bytes = 0;
  // Continuing: `data` at `offset` of the file `file_name` (a dataset's;
  // a snapshot is one file), then the upload finished when `finish`.
  std::string file_name;
  int64_t offset = 0;
  std::string_view data;
  bool finish = false;
};

// What a call made: the upload's id, and once it is finished (or found
// done before it began) the dataset or the IMPORT job.
struct DatasetUploaded {
  std::string upload_id;
  std::optional<Dataset> dataset;
  bool existing = false;  // the principal held this content already
};
struct SnapshotUploaded {
  std::string upload_id;
  std::optional<Job> job;
};

class Uploads {
 public:
  // `job_created` is called when an import makes a job (the job manager's
  // watchers woken).
  Uploads(Store& store, const Limits& limits,
          std::function<void()> job_created)
      : store_(store), limits_(limits), job_created_(std::move(job_created)) {}

  // A call of a dataset upload. InvalidArgument for what the protocol
  // refuses (a bad format, hash, name or file), ResourceExhausted past the
  // limits, NotFound for an unknown (or expired) upload, DataLoss when the
  // content does not match its SHA-256.
  absl::StatusOr<DatasetUploaded> DatasetChunk(const Principal& who,
                                               const UploadChunk& chunk);
  // A call of a snapshot import: as DatasetChunk; a snapshot that does not
  // decode, whose model does not check or whose tensors do not fit the
  // model is InvalidArgument.
  absl::StatusOr<SnapshotUploaded> SnapshotChunk(const Principal& who,
                                                 const UploadChunk& chunk);
  // Deletes the principal's dataset (its content with its last record);
  // FailedPrecondition while a queued or running job reads it.
  absl::Status DeleteDataset(const Principal& who, const std::string& id);
  // Uploads begun and not yet finished (expired ones dropped).
  int InProgress();

 private:
  UploadCaps Caps() const;
  // The principal's unfinished-or-finished upload `id` of `kind`.
  absl::StatusOr<UploadRecord> Find(const Principal& who,
                                    const std::string& id, int kind);
  // The protocol's middle, under the upload's lock: a finished upload
  // answered again (`repeat`), a chunk appended, and the upload finished
  // (`finish`) when the call says so.
  absl::Status Continue(
      const Principal& who, const UploadChunk& chunk, int kind,
      const std::function<absl::Status(const UploadRecord&)>& repeat,
      const std::function<absl::Status(UploadRecord&)>& finish);
  absl::StatusOr<DatasetUploaded> BeginDataset(const Principal& who,
                                               const UploadChunk& chunk);
  absl::Status FinishDataset(const Principal& who, UploadRecord& upload,
                             DatasetUploaded& made);
  absl::Status FinishSnapshot(const Principal& who, UploadRecord& upload,
                              SnapshotUploaded& made);
  absl::Mutex& LockOf(const std::string& id);

  Store& store_;
  const Limits limits_;
  std::function<void()> job_created_;
  // One upload's calls, one at a time: an upload's lock (its id hashed) is
  // taken before dataset_files_mutex_, never after.
  static constexpr int kLocks = 32;
  absl::Mutex upload_locks_[kLocks];
  // Orders storing a dataset's content and record against deleting them,
  // so that a deletion never removes files an upload has just recorded.
  absl::Mutex dataset_files_mutex_;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_UPLOADS_H_
