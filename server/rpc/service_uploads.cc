// The webnnm.v1 service's datasets, uploads and downloads: UploadDataset,
// ListDatasets, DeleteDataset, ImportSnapshot (unary chunks, each upload in
// its own temporary folder) and ExportSnapshot.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "absl/cleanup/cleanup.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/data/dataset_summary.h"
#include "engine/train/checkpoint.h"
#include "engine/train/snapshot.h"
#include "proto/wire/names.h"
#include "proto/wire/sha256.h"
#include "server/rpc/convert.h"
#include "server/rpc/service.h"
#include "server/rpc/service_internal.h"

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

// Files an IDX dataset may hold.
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

absl::Status FsyncPath(const fs::path& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return absl::InternalError(StrCat("cannot open ", path.string()));
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0)
    return absl::InternalError(StrCat("cannot sync ", path.string()));
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
    return invalid(
        StrCat("an IMAGES dataset is a .zip of an image folder, "
               "not '",
               name, "'"));
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

}  // namespace

UploadCaps WebnnmService::Caps() const {
  return {.max_open = limits_.max_open_uploads,
          .max_open_bytes = limits_.max_open_upload_bytes,
          .idle_timeout = limits_.upload_idle_timeout};
}

absl::Mutex& WebnnmService::UploadLock(const std::string& id) {
  return upload_locks_[std::hash<std::string>()(id) % kUploadLocks];
}

absl::StatusOr<UploadRecord> WebnnmService::FindUpload(const Principal& who,
                                                       const std::string& id,
                                                       int kind) {
  ASSIGN_OR_RETURN(std::optional<UploadRecord> upload,
                   store_.GetUpload(who.name, id, kind, Caps()));
  if (!upload) {
    return absl::NotFoundError(
        StrCat("no upload ", id, " (it may have expired)"));
  }
  return *upload;
}

int WebnnmService::UploadsInProgress() {
  absl::StatusOr<int> open = store_.OpenUploads(Caps());
  return open.ok() ? *open : 0;
}

// A dataset upload's finish: verified (bytes, files, hash), its content
// stored and its record made, answered in `response`.
grpc::Status WebnnmService::FinishDatasetUpload(
    const Principal& who, const std::string& id, UploadRecord& upload,
    v1::UploadDatasetResponse* response) {
  auto invalid = [](const std::string& why) {
    return ToGrpc(absl::InvalidArgumentError(why));
  };
  auto drop = [&] { (void)store_.DropUpload(id); };
  if (upload.received != upload.total_bytes) {
    drop();
    return invalid(StrCat("the upload has ", upload.received, " bytes; ",
                          upload.total_bytes, " were announced"));
  }
  if (upload.dataset.format == DatasetFormat::kIdx) {
    if (std::string stem = MissingIdxFile(upload.files); !stem.empty()) {
      drop();
      return invalid(StrCat("an IDX dataset needs ", stem, "[.gz]"));
    }
  }
  absl::StatusOr<std::string> folder = store_.UploadFiles(id);
  if (!folder.ok()) {
    drop();
    return ToGrpc(folder.status());
  }
  std::vector<std::string> paths;
  for (const auto& [name, bytes] : upload.files) {
    paths.push_back((fs::path(*folder) / name).string());
    upload.dataset.files.push_back(name);
  }
  absl::StatusOr<std::string> hash = wire::DatasetHash(paths);
  if (!hash.ok() || *hash != upload.dataset.sha256) {
    drop();
    return ToGrpc(
        absl::DataLossError("the uploaded content does not match its sha256"));
  }
  for (const std::string& p : paths) {
    if (absl::Status s = FsyncPath(p, false); !s.ok()) {
      drop();
      return ToGrpc(s);
    }
  }
  // What the content holds, read from the upload's own copy.
  SummarizeStored(*folder, upload.dataset);
  // Storing the content and its record is one step for DeleteDataset.
  absl::MutexLock files_lock(&dataset_files_mutex_);
  if (absl::Status stored =
          store_.PutDatasetContent(*hash, *folder, upload.dataset.files);
      !stored.ok()) {
    drop();
    return ToGrpc(stored);
  }
  upload.dataset.id = NewId("d");
  upload.dataset.bytes = upload.total_bytes;
  upload.dataset.created = Now();
  absl::Status inserted = store_.InsertDataset(who.name, upload.dataset);
  if (!inserted.ok()) {
    // A concurrent upload of the same content won: answer with its row.
    absl::StatusOr<std::optional<Dataset>> existing =
        store_.FindDataset(who.name, *hash);
    if (existing.ok() && *existing) {
      (void)store_.FinishUpload(id, (*existing)->id);
      *response->mutable_dataset() = ToProto(**existing);
      response->set_existing(true);
      return grpc::Status::OK;
    }
    drop();
    return ToGrpc(inserted);
  }
  (void)store_.FinishUpload(id, upload.dataset.id);
  *response->mutable_dataset() = ToProto(upload.dataset);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::UploadDataset(
    grpc::ServerContext* context, const v1::UploadDatasetRequest* request,
    v1::UploadDatasetResponse* response) {
  AUTHENTICATE(who);
  auto invalid = [](const std::string& why) {
    return ToGrpc(absl::InvalidArgumentError(why));
  };
  if (static_cast<int64_t>(request->data().size()) > limits_.max_chunk_bytes) {
    return ToGrpc(absl::ResourceExhaustedError(
        StrCat("a chunk holds at most ", limits_.max_chunk_bytes, " bytes")));
  }
  if (request->upload_id().empty()) {
    // A new upload.
    if (request->format() != v1::DATASET_FORMAT_CSV &&
        request->format() != v1::DATASET_FORMAT_IDX &&
        request->format() != v1::DATASET_FORMAT_NPZ &&
        request->format() != v1::DATASET_FORMAT_IMAGES) {
      return invalid("the dataset format must be CSV, IDX, NPZ or IMAGES");
    }
    if (!IsHex64(request->sha256())) {
      return invalid("sha256 must be 64 lowercase hex digits");
    }
    if (request->name().empty() || request->name().size() > 200) {
      return invalid("a dataset needs a name (at most 200 bytes)");
    }
    if (request->total_bytes() <= 0) {
      return invalid("total_bytes must be positive");
    }
    if (request->total_bytes() > limits_.max_dataset_bytes) {
      return ToGrpc(absl::ResourceExhaustedError(
          StrCat("the dataset has ", request->total_bytes(),
                 " bytes; the limit is ", limits_.max_dataset_bytes)));
    }
    absl::StatusOr<std::optional<Dataset>> existing =
        store_.FindDataset(who.name, request->sha256());
    if (!existing.ok()) return ToGrpc(existing.status());
    if (*existing) {
      *response->mutable_dataset() = ToProto(**existing);
      response->set_existing(true);
      return grpc::Status::OK;
    }
    UploadRecord upload;
    upload.id = NewId("u");
    upload.principal = who.name;
    upload.dataset.name = request->name();
    upload.dataset.format = static_cast<DatasetFormat>(request->format());
    upload.dataset.sha256 = request->sha256();
    upload.total_bytes = request->total_bytes();
    if (absl::Status begun = store_.BeginUpload(upload, Caps()); !begun.ok()) {
      return ToGrpc(begun);
    }
    response->set_upload_id(upload.id);
    return grpc::Status::OK;
  }

  const std::string& id = request->upload_id();
  absl::MutexLock lock(&UploadLock(id));
  absl::StatusOr<UploadRecord> found =
      FindUpload(who, id, UploadRecord::kDataset);
  if (!found.ok()) return ToGrpc(found.status());
  UploadRecord& upload = *found;
  response->set_upload_id(id);
  if (upload.finished) {
    // Finished already: a retried (or concurrent) finish gets its answer.
    if (!request->data().empty() || !request->file_name().empty()) {
      return ToGrpc(absl::FailedPreconditionError(
          StrCat("the upload ", id, " is finished")));
    }
    absl::StatusOr<std::optional<Dataset>> made =
        store_.GetDataset(who.name, upload.result);
    if (!made.ok()) return ToGrpc(made.status());
    if (!*made) {
      return ToGrpc(
          absl::NotFoundError(StrCat("the dataset ", upload.result,
                                     " that upload ", id, " made is gone")));
    }
    *response->mutable_dataset() = ToProto(**made);
    return grpc::Status::OK;
  }
  if (!request->data().empty() || !request->file_name().empty()) {
    const std::string& name = request->file_name();
    if (absl::Status named = CheckFileName(upload, name); !named.ok()) {
      return ToGrpc(named);
    }
    absl::Status appended =
        store_.AppendUpload(id, name, request->offset(), request->data());
    if (!appended.ok()) return ToGrpc(appended);
    upload.files[name] += static_cast<int64_t>(request->data().size());
    upload.received += static_cast<int64_t>(request->data().size());
  }
  if (!request->finish()) return grpc::Status::OK;

  return FinishDatasetUpload(who, id, upload, response);
}

grpc::Status WebnnmService::ListDatasets(grpc::ServerContext* context,
                                         const v1::ListDatasetsRequest*,
                                         v1::ListDatasetsResponse* response) {
  AUTHENTICATE(who);
  absl::StatusOr<std::vector<Dataset>> list = store_.ListDatasets(who.Filter());
  if (!list.ok()) return ToGrpc(list.status());
  for (const Dataset& d : *list) *response->add_datasets() = ToProto(d);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::DeleteDataset(
    grpc::ServerContext* context, const v1::DeleteDatasetRequest* request,
    v1::DeleteDatasetResponse*) {
  AUTHENTICATE(who);
  const std::string& id = request->dataset_id();
  absl::StatusOr<std::optional<Dataset>> dataset =
      store_.GetDataset(who.Filter(), id);
  if (!dataset.ok()) return ToGrpc(dataset.status());
  if (!*dataset) return ToGrpc(absl::NotFoundError(StrCat("no dataset ", id)));
  // Refused while a queued or running job reads it (a job queued after
  // this check fails when it runs, naming the missing dataset).
  for (JobState state : {JobState::kQueued, JobState::kRunning}) {
    for (int64_t at = 0;; at += 1000) {
      absl::StatusOr<std::vector<Job>> jobs =
          store_.ListJobs("", state, at, 1000);
      if (!jobs.ok()) return ToGrpc(jobs.status());
      for (const Job& job : *jobs) {
        if (job.dataset_id == id) {
          return ToGrpc(absl::FailedPreconditionError(
              StrCat("the dataset ", id, " is needed by job ", job.id, " (",
                     StateName(state),
                     "): cancel the job or wait for it to end first")));
        }
      }
      if (jobs->size() < 1000) break;
    }
  }
  absl::MutexLock files_lock(&dataset_files_mutex_);
  absl::StatusOr<bool> last = store_.DeleteDataset(who.Filter(), id);
  if (!last.ok()) return ToGrpc(last.status());
  if (*last) (void)store_.RemoveDatasetContent((*dataset)->sha256);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::ExportSnapshot(
    grpc::ServerContext* context, const v1::ExportSnapshotRequest* request,
    grpc::ServerWriter<v1::SnapshotChunk>* writer) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  absl::StatusOr<std::optional<SnapshotBlob>> blob =
      store_.LatestSnapshot(request->job_id());
  if (!blob.ok()) return ToGrpc(blob.status());
  if (!*blob) {
    return ToGrpc(absl::FailedPreconditionError(
        StrCat("job ", request->job_id(), " has no snapshot yet")));
  }
  const std::string& bytes = (*blob)->bytes;
  // A stored snapshot that no longer verifies (its checksum, its table) is
  // not served: the client would import a damaged model.
  if (absl::Status verified = train::DecodeSnapshot(bytes).status();
      !verified.ok()) {
    return ToGrpc(absl::DataLossError(
        StrCat("the stored snapshot of job ", request->job_id(),
               " is damaged: ", verified.message())));
  }
  const size_t chunk = 1 << 20;
  for (size_t at = 0; at < bytes.size() || at == 0; at += chunk) {
    v1::SnapshotChunk c;
    c.set_total_bytes(static_cast<int64_t>(bytes.size()));
    c.set_data(bytes.substr(at, chunk));
    if (!writer->Write(c)) return grpc::Status::CANCELLED;
    if (bytes.empty()) break;
  }
  return grpc::Status::OK;
}

grpc::Status WebnnmService::ImportSnapshot(
    grpc::ServerContext* context, const v1::ImportSnapshotRequest* request,
    v1::ImportSnapshotResponse* response) {
  AUTHENTICATE(who);
  if (static_cast<int64_t>(request->data().size()) > limits_.max_chunk_bytes) {
    return ToGrpc(absl::ResourceExhaustedError(
        StrCat("a chunk holds at most ", limits_.max_chunk_bytes, " bytes")));
  }
  if (request->upload_id().empty()) {
    if (request->total_bytes() <= 0 ||
        request->total_bytes() > limits_.max_snapshot_bytes) {
      return ToGrpc(absl::InvalidArgumentError(StrCat(
          "total_bytes must be within 1..", limits_.max_snapshot_bytes)));
    }
    if (!IsHex64(request->sha256())) {
      return ToGrpc(
          absl::InvalidArgumentError("sha256 must be 64 lowercase hex digits"));
    }
    UploadRecord upload;
    upload.id = NewId("u");
    upload.principal = who.name;
    upload.kind = UploadRecord::kSnapshot;
    upload.total_bytes = request->total_bytes();
    upload.dataset.sha256 = request->sha256();
    if (absl::Status begun = store_.BeginUpload(upload, Caps()); !begun.ok()) {
      return ToGrpc(begun);
    }
    response->set_upload_id(upload.id);
    return grpc::Status::OK;
  }
  const std::string& id = request->upload_id();
  absl::MutexLock lock(&UploadLock(id));
  absl::StatusOr<UploadRecord> found =
      FindUpload(who, id, UploadRecord::kSnapshot);
  if (!found.ok()) return ToGrpc(found.status());
  UploadRecord& upload = *found;
  response->set_upload_id(id);
  if (upload.finished) {
    // Imported already: a retried finish gets the same job.
    if (!request->data().empty()) {
      return ToGrpc(absl::FailedPreconditionError(
          StrCat("the upload ", id, " is finished")));
    }
    absl::StatusOr<std::optional<StoredJob>> made =
        store_.GetJob(upload.result);
    if (!made.ok()) return ToGrpc(made.status());
    if (!*made) {
      return ToGrpc(absl::NotFoundError(StrCat(
          "the job ", upload.result, " that upload ", id, " made is gone")));
    }
    *response->mutable_job() = ToProto((*made)->job);
    return grpc::Status::OK;
  }
  if (!request->data().empty()) {
    absl::Status appended = store_.AppendUpload(
        id, "snapshot.wnms", request->offset(), request->data());
    if (!appended.ok()) return ToGrpc(appended);
  }
  if (!request->finish()) return grpc::Status::OK;
  // A refused snapshot ends its upload; an imported one is remembered.
  bool imported = false;
  absl::Cleanup end_refused = [&] {
    if (!imported) (void)store_.DropUpload(id);
  };
  absl::StatusOr<std::string> folder = store_.UploadFiles(id);
  if (!folder.ok()) return ToGrpc(folder.status());
  std::ifstream in(fs::path(*folder) / "snapshot.wnms", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  in.close();
  if (static_cast<int64_t>(bytes.size()) != upload.total_bytes) {
    return ToGrpc(absl::InvalidArgumentError(
        StrCat("the upload has ", bytes.size(), " bytes; ", upload.total_bytes,
               " were announced")));
  }
  if (wire::Sha256Hex(bytes) != upload.dataset.sha256) {
    return ToGrpc(
        absl::DataLossError("the uploaded snapshot does not match its sha256"));
  }
  absl::StatusOr<train::ModelSnapshot> snapshot =
      train::DecodeModelSnapshot(bytes);
  if (!snapshot.ok()) {
    return ToGrpc(absl::InvalidArgumentError(snapshot.status().message()));
  }
  CheckResult check = webnnm::CheckModel(
      snapshot->model_file.empty() ? "model.wnm" : snapshot->model_file,
      snapshot->model_source);
  if (!check.ok) {
    return ToGrpc(absl::InvalidArgumentError(
        StrCat("the snapshot's model does not check:\n",
               webnnm::RenderedForStatus(check))));
  }
  if (absl::Status fits = train::CheckSnapshotFits(*snapshot, *check.dag);
      !fits.ok()) {
    return ToGrpc(absl::InvalidArgumentError(fits.message()));
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
  absl::StatusOr<Job> created = store_.CreateFinishedJob(
      job, SnapshotBlob{"final", snapshot->state.epoch, std::move(bytes)});
  if (!created.ok()) return ToGrpc(created.status());
  jobs_.Queued();
  (void)store_.FinishUpload(id, created->id);
  imported = true;
  *response->mutable_job() = ToProto(*created);
  return grpc::Status::OK;
}

}  // namespace webnnm::server
