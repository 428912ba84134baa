#include "server/core/uploads.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/data/dataset_summary.h"
#include "engine/train/checkpoint.h"
#include "engine/train/snapshot.h"
#include "proto/wire/dataset_files.h"
#include "proto/wire/sha256.h"

namespace webnnm::server {
namespace {

namespace fs = std::filesystem;

// The first of an IDX dataset's four files that `files` (names as keys)
// lacks, plain or gzipped; "" when none is missing.
std::string MissingIdxFile(const auto& files) {
  for (std::string stem :
       {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
        "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    if (!files.count(stem) && !files.count(stem + ".gz")) return stem;
  }
  return "";
}

// What the stored content holds (rows, columns, a CSV's header), for
// `dataset list`; a file the summary cannot read leaves them unknown (the
// job that reads it names the problem).
void SummarizeStored(const fs::path& folder, Dataset& dataset) {
  absl::StatusOr<train::DatasetSummary> summary =
      absl::UnknownError("no summary");
  const std::string file =
      dataset.files.size() == 1 ? (folder / dataset.files[0]).string() : "";
  switch (dataset.format) {
    case DatasetFormat::kCsv:
      summary = train::SummarizeCsv(file);
      break;
    case DatasetFormat::kIdx:
      summary = train::SummarizeIdx(folder.string());
      break;
    case DatasetFormat::kNpz:
      summary = train::SummarizeNpz(file);
      break;
    case DatasetFormat::kImages:
      summary = train::SummarizeImageArchive(file);
      break;
    default:
      break;
  }
  if (!summary.ok()) return;
  dataset.rows = summary->rows;
  dataset.columns = summary->columns;
  dataset.header = summary->header;
}

const std::set<std::string> kIdxFiles(std::begin(wire::kIdxFileNames),
                                      std::end(wire::kIdxFileNames));

bool IsHex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool PlainFileName(const std::string& name) {
  if (name.empty() || name.size() > 200 || name == "." || name == "..") {
    return false;
  }
  for (char c : name) {
    if (c == '/' || c == '\\' || c == '\0' ||
        static_cast<unsigned char>(c) < 32)
      return false;
  }
  return true;
}

absl::Status FsyncPath(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return absl::InternalError(StrCat("cannot open ", path.string()));
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) {
    return absl::InternalError(StrCat("cannot sync ", path.string()));
  }
  return absl::OkStatus();
}

// Whether `name` may be a file of `upload` (by its format and the files
// it already has); InvalidArgument saying why not.
absl::Status CheckFileName(const UploadRecord& upload,
                           const std::string& name) {
  auto invalid = [](const std::string& why) {
    return absl::InvalidArgumentError(why);
  };
  bool idx = upload.dataset.format == DatasetFormat::kIdx;
  bool npz = upload.dataset.format == DatasetFormat::kNpz;
  bool images = upload.dataset.format == DatasetFormat::kImages;
  if (idx ? !kIdxFiles.count(name) : !PlainFileName(name)) {
    return invalid(idx ? StrCat("'", name,
                                "' is not one of the IDX files "
                                "(train-images-idx3-ubyte[.gz], ...)")
                       : StrCat("'", name, "' is not a plain file name"));
  }
  if (npz && !name.ends_with(".npz")) {
    return invalid(
        StrCat("an NPZ dataset's file name ends with .npz, not '", name, "'"));
  }
  if (images && !name.ends_with(".zip")) {
    return invalid(StrCat(
        "an IMAGES dataset is a .zip of an image folder, not '", name, "'"));
  }
  if (idx) {
    // x and x.gz are one file twice: which one is meant cannot be told.
    const std::string twin =
        name.ends_with(".gz") ? name.substr(0, name.size() - 3) : name + ".gz";
    if (upload.files.count(twin)) {
      return invalid(StrCat("'", name, "' and '", twin,
                            "' are the same IDX file; upload one of them"));
    }
  }
  if (!idx && !upload.files.empty() && !upload.files.count(name)) {
    return invalid(npz      ? "an NPZ dataset is one file"
                   : images ? "an IMAGES dataset is one .zip file"
                            : "a CSV dataset is one file");
  }
  return absl::OkStatus();
}

// The snapshot file of a snapshot upload.
constexpr char kSnapshotFile[] = "snapshot.wnms";

}  // namespace

UploadCaps Uploads::Caps() const {
  return {.max_open = limits_.max_open_uploads,
          .max_open_bytes = limits_.max_open_upload_bytes,
          .idle_timeout = limits_.upload_idle_timeout};
}

absl::Mutex& Uploads::LockOf(const std::string& id) {
  return upload_locks_[std::hash<std::string>()(id) % kLocks];
}

int Uploads::InProgress() {
  absl::StatusOr<int> open = store_.OpenUploads(Caps());
  return open.ok() ? *open : 0;
}

absl::StatusOr<UploadRecord> Uploads::Find(const Principal& who,
                                           const std::string& id, int kind) {
  ASSIGN_OR_RETURN(std::optional<UploadRecord> upload,
                   store_.GetUpload(who.name, id, kind, Caps()));
  if (!upload) {
    return absl::NotFoundError(
        StrCat("no upload ", id, " (it may have expired)"));
  }
  return *upload;
}

absl::Status Uploads::Continue(
    const Principal& who, const UploadChunk& chunk, int kind,
    const std::function<absl::Status(const UploadRecord&)>& repeat,
    const std::function<absl::Status(UploadRecord&)>& finish) {
  const std::string& id = chunk.upload_id;
  absl::MutexLock lock(&LockOf(id));
  ASSIGN_OR_RETURN(UploadRecord upload, Find(who, id, kind));
  const bool dataset = kind == UploadRecord::kDataset;
  const bool appends =
      !chunk.data.empty() || (dataset && !chunk.file_name.empty());
  if (upload.finished) {
    // Finished already: a retried (or concurrent) finish gets its answer.
    if (appends) {
      return absl::FailedPreconditionError(
          StrCat("the upload ", id, " is finished"));
    }
    return repeat(upload);
  }
  if (appends) {
    const std::string name = dataset ? chunk.file_name : kSnapshotFile;
    if (dataset) RETURN_IF_ERROR(CheckFileName(upload, name));
    RETURN_IF_ERROR(store_.AppendUpload(id, name, chunk.offset,
                                        std::string(chunk.data)));
    upload.files[name] += static_cast<int64_t>(chunk.data.size());
    upload.received += static_cast<int64_t>(chunk.data.size());
  }
  if (!chunk.finish) return absl::OkStatus();
  // A refused finish ends its upload; a kept one is remembered.
  absl::Status finished = finish(upload);
  if (!finished.ok()) {
    (void)store_.DropUpload(id);
    return finished;
  }
  (void)store_.FinishUpload(id, upload.result);
  return absl::OkStatus();
}

absl::StatusOr<DatasetUploaded> Uploads::BeginDataset(
    const Principal& who, const UploadChunk& chunk) {
  auto invalid = [](const std::string& why) {
    return absl::InvalidArgumentError(why);
  };
  if (chunk.format != DatasetFormat::kCsv &&
      chunk.format != DatasetFormat::kIdx &&
      chunk.format != DatasetFormat::kNpz &&
      chunk.format != DatasetFormat::kImages) {
    return invalid("the dataset format must be CSV, IDX, NPZ or IMAGES");
  }
  if (!IsHex64(chunk.sha256)) {
    return invalid("sha256 must be 64 lowercase hex digits");
  }
  if (chunk.name.empty() || chunk.name.size() > 200) {
    return invalid("a dataset needs a name (at most 200 bytes)");
  }
  if (chunk.total_bytes <= 0) return invalid("total_bytes must be positive");
  if (chunk.total_bytes > limits_.max_dataset_bytes) {
    return absl::ResourceExhaustedError(
        StrCat("the dataset has ", chunk.total_bytes, " bytes; the limit is ",
               limits_.max_dataset_bytes));
  }
  ASSIGN_OR_RETURN(std::optional<server::Dataset> existing,
                   store_.FindDataset(who.name, chunk.sha256));
  if (existing) return DatasetUploaded{.dataset = existing, .existing = true};
  UploadRecord upload;
  upload.id = NewId("u");
  upload.principal = who.name;
  upload.dataset.name = chunk.name;
  upload.dataset.format = chunk.format;
  upload.dataset.sha256 = chunk.sha256;
  upload.total_bytes = chunk.total_bytes;
  RETURN_IF_ERROR(store_.BeginUpload(upload, Caps()));
  return DatasetUploaded{.upload_id = upload.id};
}

absl::StatusOr<DatasetUploaded> Uploads::DatasetChunk(const Principal& who,
                                                 const UploadChunk& chunk) {
  if (static_cast<int64_t>(chunk.data.size()) > limits_.max_chunk_bytes) {
    return absl::ResourceExhaustedError(
        StrCat("a chunk holds at most ", limits_.max_chunk_bytes, " bytes"));
  }
  if (chunk.upload_id.empty()) return BeginDataset(who, chunk);
  DatasetUploaded made{.upload_id = chunk.upload_id};
  auto repeat = [&](const UploadRecord& upload) -> absl::Status {
    ASSIGN_OR_RETURN(made.dataset, store_.GetDataset(who.name, upload.result));
    if (!made.dataset) {
      return absl::NotFoundError(StrCat("the dataset ", upload.result,
                                        " that upload ", upload.id,
                                        " made is gone"));
    }
    return absl::OkStatus();
  };
  auto finish = [&](UploadRecord& upload) {
    return FinishDataset(who, upload, made);
  };
  RETURN_IF_ERROR(
      Continue(who, chunk, UploadRecord::kDataset, repeat, finish));
  return made;
}

absl::Status Uploads::FinishDataset(const Principal& who,
                                    UploadRecord& upload,
                                    DatasetUploaded& made) {
  if (upload.received != upload.total_bytes) {
    return absl::InvalidArgumentError(
        StrCat("the upload has ", upload.received, " bytes; ",
               upload.total_bytes, " were announced"));
  }
  if (upload.dataset.format == DatasetFormat::kIdx) {
    if (std::string stem = MissingIdxFile(upload.files); !stem.empty()) {
      return absl::InvalidArgumentError(
          StrCat("an IDX dataset needs ", stem, "[.gz]"));
    }
  }
  ASSIGN_OR_RETURN(std::string folder, store_.UploadFiles(upload.id));
  std::vector<std::string> paths;
  for (const auto& [name, bytes] : upload.files) {
    paths.push_back((fs::path(folder) / name).string());
    upload.dataset.files.push_back(name);
  }
  absl::StatusOr<std::string> hash = wire::DatasetHash(paths);
  if (!hash.ok() || *hash != upload.dataset.sha256) {
    return absl::DataLossError(
        "the uploaded content does not match its sha256");
  }
  for (const std::string& p : paths) RETURN_IF_ERROR(FsyncPath(p));
  // What the content holds, read from the upload's own copy.
  SummarizeStored(folder, upload.dataset);
  // Storing the content and its record is one step for DeleteDataset.
  absl::MutexLock files_lock(&dataset_files_mutex_);
  RETURN_IF_ERROR(
      store_.PutDatasetContent(*hash, folder, upload.dataset.files));
  upload.dataset.id = NewId("d");
  upload.dataset.bytes = upload.total_bytes;
  upload.dataset.created = Now();
  absl::Status inserted = store_.InsertDataset(who.name, upload.dataset);
  if (!inserted.ok()) {
    // A concurrent upload of the same content won: answer with its record.
    absl::StatusOr<std::optional<server::Dataset>> winner =
        store_.FindDataset(who.name, *hash);
    if (!winner.ok() || !*winner) return inserted;
    made.dataset = *winner;
    made.existing = true;
    upload.result = (*winner)->id;
    return absl::OkStatus();
  }
  made.dataset = upload.dataset;
  upload.result = upload.dataset.id;
  return absl::OkStatus();
}

absl::StatusOr<SnapshotUploaded> Uploads::SnapshotChunk(const Principal& who,
                                                   const UploadChunk& chunk) {
  if (static_cast<int64_t>(chunk.data.size()) > limits_.max_chunk_bytes) {
    return absl::ResourceExhaustedError(
        StrCat("a chunk holds at most ", limits_.max_chunk_bytes, " bytes"));
  }
  if (chunk.upload_id.empty()) {
    if (chunk.total_bytes <= 0 ||
        chunk.total_bytes > limits_.max_snapshot_bytes) {
      return absl::InvalidArgumentError(
          StrCat("total_bytes must be within 1..", limits_.max_snapshot_bytes));
    }
    if (!IsHex64(chunk.sha256)) {
      return absl::InvalidArgumentError(
          "sha256 must be 64 lowercase hex digits");
    }
    UploadRecord upload;
    upload.id = NewId("u");
    upload.principal = who.name;
    upload.kind = UploadRecord::kSnapshot;
    upload.total_bytes = chunk.total_bytes;
    upload.dataset.sha256 = chunk.sha256;
    RETURN_IF_ERROR(store_.BeginUpload(upload, Caps()));
    return SnapshotUploaded{.upload_id = upload.id};
  }
  SnapshotUploaded made{.upload_id = chunk.upload_id};
  auto repeat = [&](const UploadRecord& upload) -> absl::Status {
    ASSIGN_OR_RETURN(std::optional<StoredJob> job,
                     store_.GetJob(upload.result));
    if (!job) {
      return absl::NotFoundError(StrCat("the job ", upload.result,
                                        " that upload ", upload.id,
                                        " made is gone"));
    }
    made.job = job->job;
    return absl::OkStatus();
  };
  auto finish = [&](UploadRecord& upload) {
    return FinishSnapshot(who, upload, made);
  };
  RETURN_IF_ERROR(
      Continue(who, chunk, UploadRecord::kSnapshot, repeat, finish));
  return made;
}

absl::Status Uploads::FinishSnapshot(const Principal& who,
                                     UploadRecord& upload,
                                     SnapshotUploaded& made) {
  ASSIGN_OR_RETURN(std::string folder, store_.UploadFiles(upload.id));
  std::ifstream in(fs::path(folder) / kSnapshotFile, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  in.close();
  if (static_cast<int64_t>(bytes.size()) != upload.total_bytes) {
    return absl::InvalidArgumentError(
        StrCat("the upload has ", bytes.size(), " bytes; ", upload.total_bytes,
               " were announced"));
  }
  if (wire::Sha256Hex(bytes) != upload.dataset.sha256) {
    return absl::DataLossError(
        "the uploaded snapshot does not match its sha256");
  }
  absl::StatusOr<train::ModelSnapshot> snapshot =
      train::DecodeModelSnapshot(bytes);
  if (!snapshot.ok()) {
    return absl::InvalidArgumentError(snapshot.status().message());
  }
  CheckResult check = webnnm::CheckModel(
      snapshot->model_file.empty() ? "model.wnm" : snapshot->model_file,
      snapshot->model_source);
  if (!check.ok) {
    return absl::InvalidArgumentError(
        StrCat("the snapshot's model does not check:\n",
               webnnm::RenderedForStatus(check)));
  }
  if (absl::Status fits = train::CheckSnapshotFits(*snapshot, *check.dag);
      !fits.ok()) {
    return absl::InvalidArgumentError(fits.message());
  }
  Job job;
  job.id = NewId("j");
  job.principal = who.name;
  job.kind = JobKind::kImport;
  job.created = Now();
  job.model_name = check.name;
  job.name = check.name;
  job.resolved_hyperparameters = snapshot->state.hyper;
  job.epoch = snapshot->state.epoch;
  job.epochs = snapshot->state.hyper.epochs;
  job.best_epoch = snapshot->state.best_epoch;
  job.attempt = 1;
  ASSIGN_OR_RETURN(
      made.job,
      store_.CreateFinishedJob(
          job, SnapshotBlob{"final", snapshot->state.epoch, std::move(bytes)}));
  if (job_created_) job_created_();
  upload.result = made.job->id;
  return absl::OkStatus();
}

absl::Status Uploads::DeleteDataset(const Principal& who,
                                    const std::string& id) {
  ASSIGN_OR_RETURN(std::optional<server::Dataset> dataset,
                   store_.GetDataset(who.Filter(), id));
  if (!dataset) return absl::NotFoundError(StrCat("no dataset ", id));
  // Refused while a queued or running job reads it (a job queued after
  // this check fails when it runs, naming the missing dataset).
  for (JobState state : {JobState::kQueued, JobState::kRunning}) {
    for (int64_t at = 0;; at += 1000) {
      ASSIGN_OR_RETURN(std::vector<Job> jobs,
                       store_.ListJobs("", state, at, 1000));
      for (const Job& job : jobs) {
        if (job.dataset_id != id) continue;
        return absl::FailedPreconditionError(
            StrCat("the dataset ", id, " is needed by job ", job.id, " (",
                   StateName(state),
                   "): cancel the job or wait for it to end first"));
      }
      if (jobs.size() < 1000) break;
    }
  }
  absl::MutexLock files_lock(&dataset_files_mutex_);
  ASSIGN_OR_RETURN(bool last, store_.DeleteDataset(who.Filter(), id));
  if (last) (void)store_.RemoveDatasetContent(dataset->sha256);
  return absl::OkStatus();
}

}  // namespace webnnm::server
