#include "server/service.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "engine/train/data_source.h"
#include "engine/train/expert.h"
#include "server/convert.h"
#include "server/inference.h"
#include "server/sha256.h"

namespace webnnm::server {
namespace {

namespace fs = std::filesystem;

// Files an IDX dataset may hold.
const std::set<std::string> kIdxFiles = {
    "train-images-idx3-ubyte", "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte", "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte",  "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte",  "t10k-labels-idx1-ubyte.gz"};

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

}  // namespace

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

std::string NewId(std::string_view prefix) {
  static std::mutex mutex;
  static std::mt19937_64 generator(std::random_device{}());
  std::lock_guard lock(mutex);
  static const char kHex[] = "0123456789abcdef";
  std::string id(prefix);
  uint64_t bits = generator();
  for (int i = 0; i < 12; ++i) id += kHex[(bits >> (4 * i)) & 15];
  return id;
}

struct WebnnmService::Upload {
  std::mutex mutex;
  std::string principal;
  enum Kind { kDataset, kSnapshot } kind = kDataset;
  v1::Dataset dataset;  // name, format, sha256
  int64_t total_bytes = 0;
  int64_t received = 0;
  fs::path folder;                       // the temporary folder
  std::map<std::string, int64_t> files;  // name -> bytes so far
  std::chrono::steady_clock::time_point touched;
};

WebnnmService::WebnnmService(Store& store, JobManager& jobs,
                             const Tokens& tokens, Limits limits,
                             InferenceCache& inference)
    : store_(store),
      jobs_(jobs),
      tokens_(tokens),
      limits_(limits),
      inference_(inference) {}

WebnnmService::~WebnnmService() {
  for (auto& [id, upload] : uploads_) {
    std::error_code ec;
    fs::remove_all(upload->folder, ec);
  }
}

absl::StatusOr<StoredJob> WebnnmService::VisibleJob(const Principal& who,
                                                    const std::string& id) {
  if (id.empty()) return absl::InvalidArgumentError("no job id given");
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store_.GetJob(id));
  if (!stored || !who.Owns(stored->job.principal())) {
    return absl::NotFoundError(StrCat("no job ", id));
  }
  return *stored;
}

#define AUTHENTICATE(who)                                              \
  absl::StatusOr<Principal> who##_or = tokens_.Authenticate(*context); \
  if (!who##_or.ok()) return ToGrpc(who##_or.status());                \
  const Principal& who = *who##_or

absl::StatusOr<std::string> WebnnmService::StartUpload(
    std::shared_ptr<Upload> upload) {
  std::string id = NewId("u");
  upload->folder = fs::path(store_.DatasetFolder("uploads")) / id;
  upload->touched = std::chrono::steady_clock::now();
  std::error_code ec;
  fs::create_directories(upload->folder, ec);
  if (ec) {
    return absl::InternalError(
        StrCat("cannot create an upload folder: ", ec.message()));
  }
  std::lock_guard lock(uploads_mutex_);
  // Forget uploads idle for an hour.
  for (auto it = uploads_.begin(); it != uploads_.end();) {
    if (std::chrono::steady_clock::now() - it->second->touched >
        std::chrono::hours(1)) {
      fs::remove_all(it->second->folder, ec);
      it = uploads_.erase(it);
    } else {
      ++it;
    }
  }
  uploads_[id] = std::move(upload);
  return id;
}

absl::StatusOr<std::shared_ptr<WebnnmService::Upload>>
WebnnmService::FindUpload(const Principal& who, const std::string& id,
                          int kind) {
  std::lock_guard lock(uploads_mutex_);
  auto it = uploads_.find(id);
  if (it == uploads_.end() || it->second->principal != who.name ||
      it->second->kind != kind) {
    return absl::NotFoundError(
        StrCat("no upload ", id, " (it may have expired)"));
  }
  it->second->touched = std::chrono::steady_clock::now();
  return it->second;
}

absl::Status WebnnmService::AppendChunk(Upload& upload, const fs::path& file,
                                        int64_t& have, int64_t offset,
                                        std::string_view data) {
  if (offset != have) {
    return absl::FailedPreconditionError(StrCat("'", file.filename().string(),
                                                "': expected offset ", have,
                                                ", got ", offset));
  }
  if (upload.received + static_cast<int64_t>(data.size()) >
      upload.total_bytes) {
    return absl::InvalidArgumentError(
        StrCat("more bytes than the announced ", upload.total_bytes));
  }
  std::ofstream out(file, std::ios::binary | std::ios::app);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) {
    return absl::ResourceExhaustedError("cannot write the upload (disk full?)");
  }
  have += static_cast<int64_t>(data.size());
  upload.received += static_cast<int64_t>(data.size());
  return absl::OkStatus();
}

void WebnnmService::DropUpload(const std::string& id) {
  std::lock_guard lock(uploads_mutex_);
  auto it = uploads_.find(id);
  if (it == uploads_.end()) return;
  std::error_code ec;
  fs::remove_all(it->second->folder, ec);
  uploads_.erase(it);
}

grpc::Status WebnnmService::CheckModel(grpc::ServerContext* context,
                                       const v1::CheckModelRequest* request,
                                       v1::CheckModelResponse* response) {
  AUTHENTICATE(who);
  (void)who;
  if (static_cast<int64_t>(request->model_text().size()) >
      limits_.max_model_bytes) {
    return ToGrpc(absl::ResourceExhaustedError(
        StrCat("the model text has ", request->model_text().size(),
               " bytes; the limit is ", limits_.max_model_bytes)));
  }
  std::string file =
      request->file_name().empty() ? "model.wnm" : request->file_name();
  CheckResult check = webnnm::CheckModel(file, request->model_text());
  response->set_ok(check.ok);
  response->set_model_name(check.name);
  for (const LocatedDiagnostic& d : check.diagnostics) {
    v1::Diagnostic* out = response->add_diagnostics();
    out->set_severity(SeverityName(d.severity));
    out->set_message(d.message);
    out->set_line(d.line);
    out->set_column(d.column);
  }
  response->set_rendered(check.rendered);
  for (const std::string& w : check.warnings) response->add_warnings(w);
  if (check.ok && check.summary && check.dag) {
    const ModelSummary& s = *check.summary;
    for (const auto* list : {&s.inputs, &s.outputs}) {
      for (const TensorSummary& t : *list) {
        v1::TensorInfo* info = list == &s.inputs ? response->add_inputs()
                                                 : response->add_outputs();
        info->set_name(t.name);
        info->set_data_type(ir::DTypeName(t.dtype));
        info->add_shape(-1);
        for (int64_t e : t.shape) info->add_shape(e);
      }
    }
    for (const ParameterSummary& p : s.parameters) {
      v1::TensorInfo* info = response->add_parameter_tensors();
      info->set_name(p.name);
      info->set_data_type(ir::DTypeName(p.dtype));
      for (int64_t e : p.shape) info->add_shape(e);
    }
    response->set_parameters(s.parameter_count);
    response->set_operations(s.node_count);
    absl::StatusOr<std::vector<train::OutputSpec>> specs =
        train::OutputSpecs(*check.dag, train::Hyperparameters{}, nullptr);
    if (specs.ok() && !specs->empty()) {
      train::Advice advice =
          train::Advise(*check.dag, train::Profile(*check.dag),
                        train::Hyperparameters{}, specs->front(), std::nullopt);
      for (const std::string& w : advice.warnings) response->add_warnings(w);
    } else if (!specs.ok()) {
      response->add_warnings(std::string(specs.status().message()));
    }
  }
  return grpc::Status::OK;
}

absl::Status WebnnmService::CheckSubmission(
    const Principal& who, const v1::SubmitJobRequest& request) {
  ASSIGN_OR_RETURN(train::Hyperparameters hyper,
                   ResolveHyperparameters(request.hyperparameters(), 1));
  if (!request.backend().empty() && request.backend() != "cpu" &&
      request.backend() != "vulkan") {
    return absl::InvalidArgumentError(
        StrCat("unknown backend '", request.backend(), "' (cpu or vulkan)"));
  }
  if (request.data().dataset_id().empty()) {
    return absl::InvalidArgumentError("no dataset given (data.dataset_id)");
  }
  ASSIGN_OR_RETURN(
      std::optional<v1::Dataset> dataset,
      store_.GetDataset(who.Filter(), request.data().dataset_id()));
  if (!dataset) {
    return absl::NotFoundError(
        StrCat("no dataset ", request.data().dataset_id()));
  }
  std::string split_text = request.data().split().empty()
                               ? std::string(train::kDefaultSplit)
                               : request.data().split();
  ASSIGN_OR_RETURN(std::vector<double> split, train::ParseSplit(split_text));
  std::string model_text = request.model_text();
  std::string file_name =
      request.file_name().empty() ? "model.wnm" : request.file_name();
  if (request.kind() == v1::JOB_KIND_TEST) {
    if (request.snapshot_job_id().empty()) {
      return absl::InvalidArgumentError(
          "a test job names the job whose snapshot it tests "
          "(snapshot_job_id)");
    }
    ASSIGN_OR_RETURN(StoredJob source,
                     VisibleJob(who, request.snapshot_job_id()));
    ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob,
                     store_.LatestSnapshot(source.job.job_id()));
    if (!blob) {
      return absl::FailedPreconditionError(
          StrCat("job ", source.job.job_id(), " has no snapshot yet"));
    }
    ASSIGN_OR_RETURN(train::ModelSnapshot snapshot,
                     train::DecodeModelSnapshot(blob->bytes));
    model_text = snapshot.model_source;
    file_name = snapshot.model_file.empty() ? file_name : snapshot.model_file;
  } else if (request.kind() != v1::JOB_KIND_TRAIN &&
             request.kind() != v1::JOB_KIND_UNSPECIFIED) {
    return absl::InvalidArgumentError("a job is TRAIN or TEST");
  }
  if (static_cast<int64_t>(model_text.size()) > limits_.max_model_bytes) {
    return absl::ResourceExhaustedError(
        StrCat("the model text has ", model_text.size(),
               " bytes; the limit is ", limits_.max_model_bytes));
  }
  CheckResult check = webnnm::CheckModel(file_name, model_text);
  if (!check.ok) {
    return absl::InvalidArgumentError(
        StrCat("the model does not check:\n", check.rendered));
  }
  // The data must suit the model: read it now, so that a bad dataset is an
  // error of this call and not a failed job later.
  train::DataSource source{.label = request.data().label(),
                           .no_header = request.data().no_header()};
  fs::path folder = store_.DatasetFolder(dataset->sha256());
  source.path =
      dataset->format() == v1::DATASET_FORMAT_CSV && dataset->files_size() == 1
          ? (folder / dataset->files(0)).string()
          : folder.string();
  absl::StatusOr<train::Dataset> data = train::ReadDataFor(*check.dag, source);
  if (!data.ok()) {
    // Paths inside the daemon say nothing to the client: name the dataset.
    std::string message(data.status().message());
    size_t at = message.find(source.path);
    if (at != std::string::npos) {
      message.replace(at, source.path.size(), dataset->name());
    }
    return absl::InvalidArgumentError(message);
  }
  RETURN_IF_ERROR(train::SplitData(*data, source, split, hyper.seed));
  return absl::OkStatus();
}

grpc::Status WebnnmService::SubmitJob(grpc::ServerContext* context,
                                      const v1::SubmitJobRequest* request,
                                      v1::SubmitJobResponse* response) {
  AUTHENTICATE(who);
  if (!request->idempotency_key().empty()) {
    if (request->idempotency_key().size() > 200) {
      return ToGrpc(
          absl::InvalidArgumentError("the idempotency key is too long"));
    }
    absl::StatusOr<std::optional<v1::Job>> existing =
        store_.FindByIdempotencyKey(who.name, request->idempotency_key());
    if (!existing.ok()) return ToGrpc(existing.status());
    if (*existing) {
      *response->mutable_job() = **existing;
      response->set_existing(true);
      return grpc::Status::OK;
    }
  }
  if (absl::Status s = CheckSubmission(who, *request); !s.ok()) {
    return ToGrpc(s);
  }
  v1::Job job;
  job.set_job_id(NewId("j"));
  job.set_principal(who.name);
  job.set_kind(request->kind() == v1::JOB_KIND_TEST ? v1::JOB_KIND_TEST
                                                    : v1::JOB_KIND_TRAIN);
  *job.mutable_created() = Now();
  job.set_dataset_id(request->data().dataset_id());
  job.set_backend(request->backend().empty() ? "cpu" : request->backend());
  job.set_snapshot_job_id(request->snapshot_job_id());
  *job.mutable_hyperparameters() = request->hyperparameters();
  *job.mutable_data() = request->data();
  job.set_attempt(0);
  if (request->hyperparameters().has_epochs()) {
    job.set_epochs(request->hyperparameters().epochs());
  } else if (job.kind() == v1::JOB_KIND_TRAIN) {
    job.set_epochs(train::Hyperparameters{}.epochs);
  }
  v1::SubmitJobRequest stored = *request;
  stored.set_kind(job.kind());
  absl::StatusOr<v1::Job> created =
      store_.CreateJob(job, stored, limits_.max_queued_jobs);
  if (absl::IsAlreadyExists(created.status())) {
    // Another call with the same key won the race: answer with its job.
    absl::StatusOr<std::optional<v1::Job>> existing =
        store_.FindByIdempotencyKey(who.name, request->idempotency_key());
    if (existing.ok() && *existing) {
      *response->mutable_job() = **existing;
      response->set_existing(true);
      return grpc::Status::OK;
    }
  }
  if (!created.ok()) return ToGrpc(created.status());
  jobs_.Queued();
  *response->mutable_job() = *created;
  return grpc::Status::OK;
}

grpc::Status WebnnmService::WatchJob(grpc::ServerContext* context,
                                     const v1::WatchJobRequest* request,
                                     grpc::ServerWriter<v1::JobEvent>* writer) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  int64_t next = std::max<int64_t>(1, request->from_seq());
  while (!context->IsCancelled()) {
    uint64_t generation = jobs_.generation();
    absl::StatusOr<std::vector<v1::JobEvent>> events =
        store_.Events(request->job_id(), next, 256);
    if (!events.ok()) return ToGrpc(events.status());
    for (const v1::JobEvent& e : *events) {
      if (!writer->Write(e)) return grpc::Status::CANCELLED;
      next = e.seq() + 1;
    }
    if (!events->empty()) continue;
    absl::StatusOr<std::optional<StoredJob>> now =
        store_.GetJob(request->job_id());
    if (!now.ok()) return ToGrpc(now.status());
    if (!*now) {
      return ToGrpc(absl::NotFoundError(
          StrCat("job ", request->job_id(), " was deleted")));
    }
    if (IsFinished((*now)->job.state()) && next > (*now)->job.last_seq()) {
      return grpc::Status::OK;
    }
    jobs_.WaitForChange(generation, std::chrono::milliseconds(250));
  }
  return grpc::Status::CANCELLED;
}

grpc::Status WebnnmService::GetJob(grpc::ServerContext* context,
                                   const v1::GetJobRequest* request,
                                   v1::Job* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  *response = job->job;
  return grpc::Status::OK;
}

grpc::Status WebnnmService::ListJobs(grpc::ServerContext* context,
                                     const v1::ListJobsRequest* request,
                                     v1::ListJobsResponse* response) {
  AUTHENTICATE(who);
  int size =
      request->page_size() <= 0 ? 50 : std::min(request->page_size(), 1000);
  int64_t offset = 0;
  if (!request->page_token().empty()) {
    char* end = nullptr;
    offset = std::strtoll(request->page_token().c_str(), &end, 10);
    if (*end != '\0' || offset < 0) {
      return ToGrpc(absl::InvalidArgumentError("bad page token"));
    }
  }
  absl::StatusOr<std::vector<v1::Job>> jobs =
      store_.ListJobs(who.Filter(), request->state(), offset, size + 1);
  if (!jobs.ok()) return ToGrpc(jobs.status());
  for (int i = 0; i < static_cast<int>(jobs->size()) && i < size; ++i) {
    *response->add_jobs() = (*jobs)[i];
  }
  if (static_cast<int>(jobs->size()) > size) {
    response->set_next_page_token(std::to_string(offset + size));
  }
  return grpc::Status::OK;
}

grpc::Status WebnnmService::CancelJob(grpc::ServerContext* context,
                                      const v1::CancelJobRequest* request,
                                      v1::Job* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  absl::StatusOr<v1::Job> cancelled = jobs_.Cancel(request->job_id());
  if (!cancelled.ok()) return ToGrpc(cancelled.status());
  *response = *cancelled;
  return grpc::Status::OK;
}

grpc::Status WebnnmService::ResumeJob(grpc::ServerContext* context,
                                      const v1::ResumeJobRequest* request,
                                      v1::Job* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  absl::StatusOr<int64_t> queued =
      store_.CountJobs(job->job.principal(), v1::JOB_STATE_QUEUED);
  if (!queued.ok()) return ToGrpc(queued.status());
  if (*queued >= limits_.max_queued_jobs) {
    return ToGrpc(absl::ResourceExhaustedError(
        StrCat(job->job.principal(), " has ", *queued,
               " queued jobs; the limit is ", limits_.max_queued_jobs)));
  }
  absl::StatusOr<v1::Job> resumed = jobs_.Resume(request->job_id());
  if (!resumed.ok()) return ToGrpc(resumed.status());
  *response = *resumed;
  return grpc::Status::OK;
}

grpc::Status WebnnmService::DeleteJob(grpc::ServerContext* context,
                                      const v1::DeleteJobRequest* request,
                                      v1::DeleteJobResponse*) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  if (!IsFinished(job->job.state())) {
    return ToGrpc(absl::FailedPreconditionError(
        StrCat("job ", request->job_id(), " is ", StateName(job->job.state()),
               "; cancel it before deleting it")));
  }
  absl::Status s = store_.DeleteJob(request->job_id());
  inference_.Forget(request->job_id());
  jobs_.Queued();  // wakes watchers of the deleted job
  return ToGrpc(s);
}

grpc::Status WebnnmService::GetMetrics(grpc::ServerContext* context,
                                       const v1::GetMetricsRequest* request,
                                       v1::GetMetricsResponse* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  std::vector<std::string> names(request->names().begin(),
                                 request->names().end());
  absl::StatusOr<std::vector<v1::MetricSeries>> series =
      store_.Metrics(request->job_id(), names);
  if (!series.ok()) return ToGrpc(series.status());
  for (v1::MetricSeries& s : *series) *response->add_series() = std::move(s);
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
        request->format() != v1::DATASET_FORMAT_IDX) {
      return invalid("the dataset format must be CSV or IDX");
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
    absl::StatusOr<std::optional<v1::Dataset>> existing =
        store_.FindDataset(who.name, request->sha256());
    if (!existing.ok()) return ToGrpc(existing.status());
    if (*existing) {
      *response->mutable_dataset() = **existing;
      response->set_existing(true);
      return grpc::Status::OK;
    }
    auto upload = std::make_shared<Upload>();
    upload->principal = who.name;
    upload->dataset.set_name(request->name());
    upload->dataset.set_format(request->format());
    upload->dataset.set_sha256(request->sha256());
    upload->total_bytes = request->total_bytes();
    absl::StatusOr<std::string> id = StartUpload(upload);
    if (!id.ok()) return ToGrpc(id.status());
    response->set_upload_id(*id);
    return grpc::Status::OK;
  }

  absl::StatusOr<std::shared_ptr<Upload>> found =
      FindUpload(who, request->upload_id(), Upload::kDataset);
  if (!found.ok()) return ToGrpc(found.status());
  std::shared_ptr<Upload> upload = *found;
  std::lock_guard lock(upload->mutex);
  response->set_upload_id(request->upload_id());
  if (!request->data().empty() || !request->file_name().empty()) {
    const std::string& name = request->file_name();
    bool idx = upload->dataset.format() == v1::DATASET_FORMAT_IDX;
    if (idx ? !kIdxFiles.count(name) : !PlainFileName(name)) {
      return invalid(idx ? StrCat("'", name,
                                  "' is not one of the IDX files "
                                  "(train-images-idx3-ubyte[.gz], ...)")
                         : StrCat("'", name, "' is not a plain file name"));
    }
    if (!idx && !upload->files.empty() && !upload->files.count(name)) {
      return invalid("a CSV dataset is one file");
    }
    absl::Status appended =
        AppendChunk(*upload, upload->folder / name, upload->files[name],
                    request->offset(), request->data());
    if (!appended.ok()) return ToGrpc(appended);
  }
  if (!request->finish()) return grpc::Status::OK;

  // Finish: verify, then move the files into place and record them.
  auto drop = [&] { DropUpload(request->upload_id()); };
  if (upload->received != upload->total_bytes) {
    drop();
    return invalid(StrCat("the upload has ", upload->received, " bytes; ",
                          upload->total_bytes, " were announced"));
  }
  std::vector<std::string> paths;
  for (const auto& [name, bytes] : upload->files) {
    paths.push_back((upload->folder / name).string());
    upload->dataset.add_files(name);
  }
  if (upload->dataset.format() == v1::DATASET_FORMAT_IDX) {
    for (std::string stem :
         {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
          "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
      if (!upload->files.count(stem) && !upload->files.count(stem + ".gz")) {
        drop();
        return invalid(StrCat("an IDX dataset needs ", stem, "[.gz]"));
      }
    }
  }
  absl::StatusOr<std::string> hash = DatasetHash(paths);
  if (!hash.ok() || *hash != upload->dataset.sha256()) {
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
  fs::path target = store_.DatasetFolder(*hash);
  std::error_code ec;
  if (!fs::exists(target)) {
    fs::create_directories(target.parent_path(), ec);
    fs::rename(upload->folder, target, ec);
    if (ec) {
      drop();
      return ToGrpc(absl::InternalError(
          StrCat("cannot store the dataset: ", ec.message())));
    }
    (void)FsyncPath(target.parent_path(), true);
  }
  upload->dataset.set_dataset_id(NewId("d"));
  upload->dataset.set_bytes(upload->total_bytes);
  *upload->dataset.mutable_created() = Now();
  absl::Status inserted = store_.InsertDataset(who.name, upload->dataset);
  drop();
  if (!inserted.ok()) {
    // A concurrent upload of the same content won: answer with its row.
    absl::StatusOr<std::optional<v1::Dataset>> existing =
        store_.FindDataset(who.name, *hash);
    if (existing.ok() && *existing) {
      *response->mutable_dataset() = **existing;
      response->set_existing(true);
      return grpc::Status::OK;
    }
    return ToGrpc(inserted);
  }
  *response->mutable_dataset() = upload->dataset;
  return grpc::Status::OK;
}

grpc::Status WebnnmService::ListDatasets(grpc::ServerContext* context,
                                         const v1::ListDatasetsRequest*,
                                         v1::ListDatasetsResponse* response) {
  AUTHENTICATE(who);
  absl::StatusOr<std::vector<v1::Dataset>> list =
      store_.ListDatasets(who.Filter());
  if (!list.ok()) return ToGrpc(list.status());
  for (v1::Dataset& d : *list) *response->add_datasets() = std::move(d);
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
    auto upload = std::make_shared<Upload>();
    upload->principal = who.name;
    upload->kind = Upload::kSnapshot;
    upload->total_bytes = request->total_bytes();
    upload->dataset.set_sha256(request->sha256());
    absl::StatusOr<std::string> id = StartUpload(upload);
    if (!id.ok()) return ToGrpc(id.status());
    response->set_upload_id(*id);
    return grpc::Status::OK;
  }
  absl::StatusOr<std::shared_ptr<Upload>> found =
      FindUpload(who, request->upload_id(), Upload::kSnapshot);
  if (!found.ok()) return ToGrpc(found.status());
  std::shared_ptr<Upload> upload = *found;
  std::lock_guard lock(upload->mutex);
  response->set_upload_id(request->upload_id());
  fs::path file = upload->folder / "snapshot.wnms";
  if (!request->data().empty()) {
    int64_t& have = upload->files["snapshot.wnms"];
    absl::Status appended =
        AppendChunk(*upload, file, have, request->offset(), request->data());
    if (!appended.ok()) return ToGrpc(appended);
  }
  if (!request->finish()) return grpc::Status::OK;
  auto drop = [&] { DropUpload(request->upload_id()); };
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  drop();
  if (static_cast<int64_t>(bytes.size()) != upload->total_bytes) {
    return ToGrpc(absl::InvalidArgumentError(
        StrCat("the upload has ", bytes.size(), " bytes; ", upload->total_bytes,
               " were announced")));
  }
  if (Sha256Hex(bytes) != upload->dataset.sha256()) {
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
        StrCat("the snapshot's model does not check:\n", check.rendered)));
  }
  if (absl::Status fits = train::CheckSnapshotFits(*snapshot, *check.dag);
      !fits.ok()) {
    return ToGrpc(absl::InvalidArgumentError(fits.message()));
  }
  v1::Job job;
  job.set_job_id(NewId("j"));
  job.set_principal(who.name);
  job.set_kind(v1::JOB_KIND_IMPORT);
  *job.mutable_created() = Now();
  job.set_model_name(check.name);
  job.set_epoch(snapshot->state.epoch);
  job.set_epochs(snapshot->state.hyper.epochs);
  job.set_best_epoch(snapshot->state.best_epoch);
  job.set_attempt(1);
  absl::StatusOr<v1::Job> created = store_.CreateFinishedJob(
      job, SnapshotBlob{"final", snapshot->state.epoch, std::move(bytes)});
  if (!created.ok()) return ToGrpc(created.status());
  jobs_.Queued();
  *response->mutable_job() = *created;
  return grpc::Status::OK;
}

grpc::Status WebnnmService::Infer(grpc::ServerContext* context,
                                  const v1::InferRequest* request,
                                  v1::InferResponse* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  if (job->job.state() != v1::JOB_STATE_SUCCEEDED ||
      job->job.kind() == v1::JOB_KIND_TEST) {
    return ToGrpc(absl::FailedPreconditionError(
        StrCat("job ", request->job_id(),
               " is not a finished training job (or an imported snapshot)")));
  }
  absl::StatusOr<std::shared_ptr<ServedModel>> model =
      inference_.Get(store_, request->job_id());
  if (!model.ok()) return ToGrpc(model.status());
  std::vector<InferTensor> inputs;
  int64_t elements = 0;
  for (const v1::Tensor& t : request->inputs()) {
    InferTensor in{t.name(), {t.shape().begin(), t.shape().end()}, {}};
    const std::string type = t.data_type().empty() ? "float32" : t.data_type();
    if (!t.raw().empty()) {
      absl::StatusOr<std::vector<double>> values = DecodeRaw(type, t.raw());
      if (!values.ok()) {
        return ToGrpc(absl::InvalidArgumentError(
            StrCat("input '", t.name(), "': ", values.status().message())));
      }
      elements += static_cast<int64_t>(values->size());
      if (elements > limits_.max_infer_elements) break;
      in.values = std::move(*values);
    } else {
      elements += t.values_size();
      if (elements > limits_.max_infer_elements) break;
      in.values.assign(t.values().begin(), t.values().end());
    }
    inputs.push_back(std::move(in));
  }
  if (elements > limits_.max_infer_elements) {
    return ToGrpc(absl::ResourceExhaustedError(
        StrCat("the inputs have more than ", limits_.max_infer_elements,
               " elements (the daemon's limit)")));
  }
  absl::StatusOr<std::vector<InferTensor>> outputs =
      InferenceCache::Run(**model, inputs, limits_.max_infer_elements);
  if (!outputs.ok()) return ToGrpc(outputs.status());
  for (const InferTensor& o : *outputs) {
    v1::Tensor* t = response->add_outputs();
    t->set_name(o.name);
    t->set_data_type("float32");
    for (int64_t e : o.shape) t->add_shape(e);
    for (double v : o.values) t->add_values(v);
  }
  for (const std::string& c : InferenceCache::Classes(**model)) {
    response->add_classes(c);
  }
  return grpc::Status::OK;
}

}  // namespace webnnm::server
