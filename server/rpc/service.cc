#include "server/rpc/service.h"

#include <cstring>

#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "backends/backend.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "engine/train/hyperparameters_proto.h"
#include "engine/train/run.h"
#include "server/core/dataset_source.h"
#include "server/core/inference.h"
#include "server/core/job_log.h"
#include "server/rpc/convert.h"
#include "server/rpc/service_internal.h"

namespace webnnm::server {

namespace fs = std::filesystem;

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

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

namespace {

// A data request's impute: "" (auto), auto, mean, median or none.
absl::Status CheckImpute(const std::string& impute) {
  if (impute.empty() || train::ParseImputeMode(impute)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      StrCat("data.impute must be auto, mean, median or none, not '", impute,
             "'"));
}

}  // namespace

WebnnmService::WebnnmService(Store& store, JobManager& jobs,
                             const Tokens& tokens, Limits limits,
                             InferenceCache& inference)
    : store_(store),
      jobs_(jobs),
      tokens_(tokens),
      limits_(limits),
      inference_(inference) {}

absl::StatusOr<StoredJob> WebnnmService::VisibleJob(const Principal& who,
                                                    const std::string& id) {
  if (id.empty()) return absl::InvalidArgumentError("no job id given");
  ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store_.GetJob(id));
  if (!stored || !who.Owns(stored->job.principal)) {
    return absl::NotFoundError(StrCat("no job ", id));
  }
  return *stored;
}

grpc::Status WebnnmService::CheckModel(grpc::ServerContext* context,
                                       const v1::CheckModelRequest* request,
                                       v1::CheckModelResponse* response) {
  AUTHENTICATE(who);
  // The data's preview imputes as submission would: refused alike.
  if (absl::Status bad = CheckImpute(request->data().impute()); !bad.ok()) {
    return ToGrpc(bad);
  }
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
  // Every diagnostic, up to kBodyDiagnostics; then one saying how many
  // more there were.
  constexpr size_t kBodyDiagnostics = 1000;
  for (size_t i = 0; i < check.diagnostics.size(); ++i) {
    const LocatedDiagnostic& d = check.diagnostics[i];
    v1::Diagnostic* out = response->add_diagnostics();
    if (i == kBodyDiagnostics) {
      out->set_severity("error");
      out->set_message(StrCat("… and ", check.diagnostics.size() - i, " more"));
      break;
    }
    out->set_severity(SeverityName(d.severity));
    out->set_message(d.message);
    out->set_line(d.line);
    out->set_column(d.column);
  }
  response->set_rendered(
      check.diagnostics.size() > kBodyDiagnostics
          ? RenderedFirst(check, kBodyDiagnostics, size_t{64} << 20)
          : check.rendered);
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
    Preview(who, *request, *check.dag, *response);
  }
  return grpc::Status::OK;
}

absl::StatusOr<WebnnmService::Admitted> WebnnmService::CheckSubmission(
    const Principal& who, const JobRequest& request) {
  RETURN_IF_ERROR(CheckLabels(request.name, request.tags, request.note));
  ASSIGN_OR_RETURN(train::Hyperparameters hyper,
                   ResolveJobHyperparameters(request.hyperparameters, 1));
  if (hyper.replicas > jobs_.max_replicas()) {
    return absl::InvalidArgumentError(
        jobs_.max_replicas() == 1
            ? StrCat("hyperparameter replicas: ", hyper.replicas,
                     " replicas need as many daemons in cluster mode; this "
                     "webnnmd runs a job in one (train --local --replicas "
                     "runs them on one machine)")
            : StrCat("hyperparameter replicas: ", hyper.replicas,
                     " is more than the cluster allows (max_replicas ",
                     jobs_.max_replicas(), ")"));
  }
  if (!request.backend.empty() && request.backend != "cpu" &&
      request.backend != "vulkan") {
    return absl::InvalidArgumentError(
        StrCat("unknown backend '", request.backend, "' (cpu or vulkan)"));
  }
  // A backend without its device fails here, not as a failed job later.
  const std::string& backend =
      request.backend.empty() ? jobs_.default_backend() : request.backend;
  if (backend != "cpu") {
    absl::StatusOr<std::unique_ptr<backends::Backend>> opened =
        backends::CreateBackend(backend);
    if (!opened.ok()) {
      return absl::FailedPreconditionError(
          StrCat("the ", backend, " backend is not available on this daemon: ",
                 opened.status().message()));
    }
  }
  // An unknown dataset first: it costs nothing to find.
  ASSIGN_OR_RETURN(StoredData data,
                   FindStoredData(store_, who.Filter(), request.data,
                                  limits_.max_dataset_bytes));
  std::string model_text = request.model_text;
  std::string file_name =
      request.file_name.empty() ? "model.wnm" : request.file_name;
  std::optional<train::ModelSnapshot> snapshot;
  if (request.kind == JobKind::kTest) {
    ASSIGN_OR_RETURN(snapshot, TestedSnapshot(who, request));
    // Images resize as the tested job's did, or as asked (as the job will).
    ASSIGN_OR_RETURN(std::optional<StoredJob> trained,
                     store_.GetJob(request.snapshot_job_id));
    if (trained) data.source.resize |= trained->request.data.resize;
    model_text = snapshot->model_source;
    file_name = snapshot->model_file.empty() ? file_name : snapshot->model_file;
  } else if (request.kind != JobKind::kTrain &&
             request.kind != JobKind::kUnspecified) {
    return absl::InvalidArgumentError("a job is TRAIN or TEST");
  }
  if (static_cast<int64_t>(model_text.size()) > limits_.max_model_bytes) {
    return absl::ResourceExhaustedError(
        StrCat("the model text has ", model_text.size(),
               " bytes; the limit is ", limits_.max_model_bytes));
  }
  CheckResult check = webnnm::CheckModel(file_name, model_text);
  if (!check.ok) {
    return absl::InvalidArgumentError(StrCat("the model does not check:\n",
                                             webnnm::RenderedForStatus(check)));
  }
  // The data must suit the model: prepare the run now (without a backend),
  // so that a bad dataset is an error of this call and not a failed job.
  absl::StatusOr<std::unique_ptr<train::Run>> run =
      train::Run::Prepare({.purpose = snapshot ? train::RunPurpose::kTest
                                               : train::RunPurpose::kTrain,
                           .dag = &*check.dag,
                           .source = data.source,
                           .read = jobs_.Reader(),
                           .dataset_name = data.name,
                           .split = request.data.split,
                           .standardize = request.data.standardize,
                           .impute = request.data.impute,
                           .hyperparameters = hyper,
                           .snapshot = snapshot ? &*snapshot : nullptr,
                           .backend = ""});
  if (!run.ok()) return absl::InvalidArgumentError(run.status().message());
  // As the job will check it: classes, features, loss weights.
  RETURN_IF_ERROR((*run)->CheckDataFits());
  return Admitted{.model_name = check.name,
                  .label = (*run)->data().label_column()};
}

absl::StatusOr<train::ModelSnapshot> WebnnmService::TestedSnapshot(
    const Principal& who, const JobRequest& request) {
  if (request.snapshot_job_id.empty()) {
    return absl::InvalidArgumentError(
        "a test job names the job whose snapshot it tests "
        "(snapshot_job_id)");
  }
  ASSIGN_OR_RETURN(StoredJob source, VisibleJob(who, request.snapshot_job_id));
  ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob,
                   store_.LatestSnapshot(source.job.id));
  if (!blob) {
    return absl::FailedPreconditionError(
        StrCat("job ", source.job.id, " has no snapshot yet"));
  }
  return train::DecodeModelSnapshot(blob->bytes);
}

void WebnnmService::Preview(const Principal& who,
                            const v1::CheckModelRequest& request,
                            const dag::Dag& dag,
                            v1::CheckModelResponse& response) {
  absl::Status status = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(train::Hyperparameters hyper,
                     ResolveJobHyperparameters(
                         train::ValuesFromProto(request.hyperparameters()), 1));
    const DataSpec spec = FromProto(request.data());
    train::Preview preview;
    if (spec.dataset_id.empty()) {
      ASSIGN_OR_RETURN(preview, train::PreviewTraining(dag, hyper, nullptr));
    } else {
      ASSIGN_OR_RETURN(StoredData data,
                       FindStoredData(store_, who.Filter(), spec,
                                      limits_.max_dataset_bytes));
      ASSIGN_OR_RETURN(std::unique_ptr<train::Run> run,
                       train::Run::Prepare({.dag = &dag,
                                            .source = data.source,
                                            .read = jobs_.Reader(),
                                            .dataset_name = data.name,
                                            .split = spec.split,
                                            .standardize = spec.standardize,
                                            .impute = spec.impute,
                                            .hyperparameters = hyper,
                                            .backend = ""}));
      ASSIGN_OR_RETURN(preview, run->PreviewTraining());
    }
    for (const train::Decision& d : preview.decisions) {
      *response.add_decisions() = ToProto(d);
    }
    for (const std::string& w : preview.warnings) response.add_warnings(w);
    *response.mutable_resolved() = ShownHyperparameters(preview.resolved);
    return absl::OkStatus();
  }();
  if (!status.ok()) response.set_preview_error(std::string(status.message()));
}

grpc::Status WebnnmService::SubmitJob(grpc::ServerContext* context,
                                      const v1::SubmitJobRequest* request,
                                      v1::SubmitJobResponse* response) {
  AUTHENTICATE(who);
  if (absl::Status bad = CheckImpute(request->data().impute()); !bad.ok()) {
    return ToGrpc(bad);
  }
  JobRequest submitted = FromProto(*request);
  if (!submitted.idempotency_key.empty()) {
    if (submitted.idempotency_key.size() > 200) {
      return ToGrpc(
          absl::InvalidArgumentError("the idempotency key is too long"));
    }
    absl::StatusOr<std::optional<Job>> existing =
        store_.FindByIdempotencyKey(who.name, submitted.idempotency_key);
    if (!existing.ok()) return ToGrpc(existing.status());
    if (*existing) {
      *response->mutable_job() = ToProto(**existing);
      response->set_existing(true);
      return grpc::Status::OK;
    }
  }
  absl::StatusOr<Admitted> admitted = CheckSubmission(who, submitted);
  if (!admitted.ok()) return ToGrpc(admitted.status());
  // The label column the data is read with, chosen now when none was
  // named: `get` shows it (the job chooses it again, alike).
  submitted.data.chosen_label =
      submitted.data.label.empty() ? admitted->label : "";
  const std::string& model_name = admitted->model_name;
  Job job;
  job.model_name = model_name;
  job.name = submitted.name.empty() ? model_name : submitted.name;
  job.tags = submitted.tags;
  job.note = submitted.note;
  job.id = NewId("j");
  job.principal = who.name;
  job.kind =
      submitted.kind == JobKind::kTest ? JobKind::kTest : JobKind::kTrain;
  job.created = Now();
  job.dataset_id = submitted.data.dataset_id;
  job.backend =
      submitted.backend.empty() ? jobs_.default_backend() : submitted.backend;
  job.snapshot_job_id = submitted.snapshot_job_id;
  job.hyperparameters = submitted.hyperparameters;
  job.data = submitted.data;
  auto epochs = submitted.hyperparameters.find("epochs");
  if (epochs != submitted.hyperparameters.end()) {
    job.epochs = static_cast<int>(std::get<int64_t>(epochs->second));
  } else if (job.kind == JobKind::kTrain) {
    job.epochs = train::Hyperparameters{}.epochs;
  }
  submitted.kind = job.kind;
  absl::StatusOr<Job> created =
      store_.CreateJob(job, submitted, limits_.max_queued_jobs);
  if (absl::IsAlreadyExists(created.status())) {
    // Another call with the same key won the race: answer with its job.
    absl::StatusOr<std::optional<Job>> existing =
        store_.FindByIdempotencyKey(who.name, submitted.idempotency_key);
    if (existing.ok() && *existing) {
      *response->mutable_job() = ToProto(**existing);
      response->set_existing(true);
      return grpc::Status::OK;
    }
  }
  if (!created.ok()) return ToGrpc(created.status());
  LogJobEvents(*created, {StateEvent(JobState::kQueued, "submitted")});
  jobs_.Queued();
  *response->mutable_job() = ToProto(*created);
  return grpc::Status::OK;
}

namespace {

// A PROGRESS event (seq 0: not one of the job's stored events).
v1::JobEvent ProgressEvent(const std::string& job, const train::StepReport& r) {
  v1::JobEvent e;
  e.set_seq(0);
  e.set_job_id(job);
  e.set_type(v1::EVENT_TYPE_PROGRESS);
  *e.mutable_time() = ToProto(Now());
  v1::ProgressEvent* p = e.mutable_progress();
  p->set_epoch(r.epoch);
  p->set_epochs(r.epochs);
  p->set_step(r.step);
  p->set_steps(r.steps);
  p->set_rows(r.rows);
  p->set_seconds(r.seconds);
  return e;
}

}  // namespace

grpc::Status WebnnmService::WatchJob(grpc::ServerContext* context,
                                     const v1::WatchJobRequest* request,
                                     grpc::ServerWriter<v1::JobEvent>* writer) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  int64_t next = std::max<int64_t>(1, request->from_seq());
  train::StepReport sent;  // the last progress written, and when
  auto sent_at = std::chrono::steady_clock::time_point{};
  while (!context->IsCancelled()) {
    uint64_t generation = jobs_.generation();
    absl::StatusOr<std::vector<JobEvent>> events =
        store_.Events(request->job_id(), next, 256);
    if (!events.ok()) return ToGrpc(events.status());
    for (const JobEvent& e : *events) {
      if (!writer->Write(ToProto(e))) return grpc::Status::CANCELLED;
      next = e.seq + 1;
    }
    if (!events->empty()) continue;
    absl::StatusOr<std::optional<StoredJob>> now =
        store_.GetJob(request->job_id());
    if (!now.ok()) return ToGrpc(now.status());
    if (!*now) {
      return ToGrpc(absl::NotFoundError(
          StrCat("job ", request->job_id(), " was deleted")));
    }
    if (IsFinished((*now)->job.state) && next > (*now)->job.last_seq) {
      return grpc::Status::OK;
    }
    const auto tick = std::chrono::steady_clock::now();
    if (request->progress() &&
        tick - sent_at >= std::chrono::milliseconds(250)) {
      if (std::optional<train::StepReport> p =
              jobs_.Progress(request->job_id());
          p && (p->epoch != sent.epoch || p->step != sent.step)) {
        sent = *p;
        sent_at = tick;
        if (!writer->Write(ProgressEvent(request->job_id(), *p))) {
          return grpc::Status::CANCELLED;
        }
      }
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
  *response = ToProto(job->job);
  response->set_model_text(job->request.model_text);
  const std::string& dataset = job->request.data.dataset_id;
  if (!dataset.empty()) {
    // The dataset's record as its owner sees it (it may be gone).
    absl::StatusOr<std::optional<Dataset>> record =
        store_.GetDataset(job->job.principal, dataset);
    if (record.ok() && *record) {
      *response->mutable_dataset() = ToProto(**record);
    }
  }
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
  // With tags or a name to match, the store's jobs are read in batches
  // until a page is full; the token stays an offset in the store's list.
  const std::map<std::string, std::string> tags(request->tags().begin(),
                                                request->tags().end());
  auto wanted = [&](const Job& job) {
    // Jobs from before names go by their model's name.
    const std::string& name = job.name.empty() ? job.model_name : job.name;
    if (!request->name().empty() && !GlobMatch(request->name(), name)) {
      return false;
    }
    for (const auto& [key, value] : tags) {
      auto it = job.tags.find(key);
      if (it == job.tags.end() || it->second != value) return false;
    }
    return true;
  };
  const bool filtered = !tags.empty() || !request->name().empty();
  const int batch = filtered ? 1000 : size + 1;
  for (int64_t at = offset;; at += batch) {
    absl::StatusOr<std::vector<Job>> jobs =
        store_.ListJobs(who.Filter(), FromProto(request->state()), at, batch);
    if (!jobs.ok()) return ToGrpc(jobs.status());
    for (size_t i = 0; i < jobs->size(); ++i) {
      if (!wanted((*jobs)[i])) continue;
      if (response->jobs_size() == size) {  // a next page exists
        response->set_next_page_token(
            std::to_string(at + static_cast<int64_t>(i)));
        return grpc::Status::OK;
      }
      *response->add_jobs() = ToProto((*jobs)[i]);
    }
    if (static_cast<int>(jobs->size()) < batch) break;
  }
  return grpc::Status::OK;
}

grpc::Status WebnnmService::TagJob(grpc::ServerContext* context,
                                   const v1::TagJobRequest* request,
                                   v1::Job* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  // The change, applied to the job as stored at that moment (a running
  // job's state moves meanwhile) and checked there: a change past the
  // limits leaves the job as it was.
  auto apply = [&](Job& j) {
    for (const std::string& key : request->remove()) j.tags.erase(key);
    for (const auto& [key, value] : request->set()) j.tags[key] = value;
    if (request->has_name()) j.name = request->name();
    if (request->has_note()) j.note = request->note();
  };
  absl::Status bad;
  absl::StatusOr<Job> stored = store_.Update(
      request->job_id(),
      [&](Job& j) {
        Job changed = j;
        apply(changed);
        bad = CheckLabels(changed.name, changed.tags, changed.note);
        if (bad.ok()) j = std::move(changed);
      },
      {});
  if (!bad.ok()) return ToGrpc(bad);
  if (!stored.ok()) return ToGrpc(stored.status());
  *response = ToProto(*stored);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::CancelJob(grpc::ServerContext* context,
                                      const v1::CancelJobRequest* request,
                                      v1::Job* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  absl::StatusOr<Job> cancelled = jobs_.Cancel(request->job_id());
  if (!cancelled.ok()) return ToGrpc(cancelled.status());
  *response = ToProto(*cancelled);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::ResumeJob(grpc::ServerContext* context,
                                      const v1::ResumeJobRequest* request,
                                      v1::Job* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  absl::StatusOr<int64_t> queued =
      store_.CountJobs(job->job.principal, JobState::kQueued);
  if (!queued.ok()) return ToGrpc(queued.status());
  if (*queued >= limits_.max_queued_jobs) {
    return ToGrpc(absl::ResourceExhaustedError(
        StrCat(job->job.principal, " has ", *queued,
               " queued jobs; the limit is ", limits_.max_queued_jobs)));
  }
  absl::StatusOr<Job> resumed = jobs_.Resume(request->job_id());
  if (!resumed.ok()) return ToGrpc(resumed.status());
  *response = ToProto(*resumed);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::DeleteJob(grpc::ServerContext* context,
                                      const v1::DeleteJobRequest* request,
                                      v1::DeleteJobResponse*) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  if (!IsFinished(job->job.state)) {
    return ToGrpc(absl::FailedPreconditionError(
        StrCat("job ", request->job_id(), " is ", StateName(job->job.state),
               "; cancel it before deleting it")));
  }
  absl::Status s = store_.DeleteJob(request->job_id());
  inference_.Forget(request->job_id());
  jobs_.Queued();  // wakes watchers of the deleted job
  return ToGrpc(s);
}

grpc::Status WebnnmService::ListNodes(grpc::ServerContext* context,
                                      const v1::ListNodesRequest*,
                                      v1::ListNodesResponse* response) {
  AUTHENTICATE(who);
  // Live: seen within a lease (a dead daemon's jobs are requeued then).
  absl::StatusOr<std::vector<NodeRecord>> nodes = store_.ListNodes(
      std::max(jobs_.lease(), std::chrono::milliseconds(5000)));
  if (!nodes.ok()) return ToGrpc(nodes.status());
  // Whose the running jobs are: the caller sees only its own.
  std::map<std::string, std::string> owner;
  absl::StatusOr<std::vector<Job>> running =
      store_.ListJobs("", JobState::kRunning, 0, 100000);
  if (!running.ok()) return ToGrpc(running.status());
  for (const Job& j : *running) owner[j.id] = j.principal;
  for (const NodeRecord& n : *nodes) {
    v1::Node* out = response->add_nodes();
    out->set_name(n.name);
    out->set_address(n.address);
    out->set_version(n.version);
    if (n.started) *out->mutable_started() = ToProto(*n.started);
    if (n.seen) *out->mutable_last_seen() = ToProto(*n.seen);
    out->set_workers(n.workers);
    out->set_busy(n.busy);
    out->set_threads(n.threads);
    for (const std::string& id : n.running) {
      auto it = owner.find(id);
      if (it != owner.end() && who.Owns(it->second)) {
        out->add_running_job_ids(id);
      }
    }
  }
  response->set_cluster(store_.Shared());
  return grpc::Status::OK;
}

grpc::Status WebnnmService::GetMetrics(grpc::ServerContext* context,
                                       const v1::GetMetricsRequest* request,
                                       v1::GetMetricsResponse* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(who, request->job_id());
  if (!job.ok()) return ToGrpc(job.status());
  std::vector<std::string> names(request->names().begin(),
                                 request->names().end());
  absl::StatusOr<std::vector<MetricSeries>> series =
      store_.Metrics(request->job_id(), names);
  if (!series.ok()) return ToGrpc(series.status());
  for (const MetricSeries& s : *series) *response->add_series() = ToProto(s);
  return grpc::Status::OK;
}

}  // namespace webnnm::server
