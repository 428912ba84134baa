#include "server/core/admission.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include "backends/backend.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/core/dataset_source.h"
#include "server/core/job_log.h"

namespace webnnm::server {

absl::Status CheckImpute(const std::string& impute) {
  if (impute.empty() || train::ParseImputeMode(impute)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      StrCat("data.impute must be auto, mean, median or none, not '", impute,
             "'"));
}

absl::StatusOr<train::StarterModel> Admission::Starter(
    const Principal& who, const DataSpec& spec, const std::string& name) {
  ASSIGN_OR_RETURN(StoredData data, FindStoredData(store_, who.Filter(), spec,
                                                   limits_.max_dataset_bytes));
  const std::string stem = std::filesystem::path(data.name).stem().string();
  absl::StatusOr<train::StarterModel> model = train::WriteStarterModel(
      data.source.path, {.label = spec.label,
                         .name = name.empty() ? stem : name,
                         .no_header = spec.no_header,
                         .shown_as = data.name});
  if (model.ok()) return model;
  // Data the starter cannot model is the request's: its message names the
  // dataset, never the store's path.
  std::string message(model.status().message());
  for (size_t at = message.find(data.source.path); at != std::string::npos;
       at = message.find(data.source.path, at)) {
    message.replace(at, data.source.path.size(), data.name);
  }
  return absl::InvalidArgumentError(message);
}

absl::StatusOr<CheckResult> Admission::CheckModelText(
    const std::string& file_name, const std::string& text) const {
  if (static_cast<int64_t>(text.size()) > limits_.max_model_bytes) {
    return absl::ResourceExhaustedError(
        StrCat("the model text has ", text.size(), " bytes; the limit is ",
               limits_.max_model_bytes));
  }
  return webnnm::CheckModel(file_name.empty() ? "model.wnm" : file_name, text);
}

absl::Status Admission::CheckReplicas(int replicas) const {
  if (replicas <= jobs_.max_replicas()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      jobs_.max_replicas() == 1
          ? StrCat("hyperparameter replicas: ", replicas,
                   " replicas need as many daemons in cluster mode; this "
                   "webnnmd runs a job in one (train --local --replicas "
                   "runs them on one machine)")
          : StrCat("hyperparameter replicas: ", replicas,
                   " is more than the cluster allows (max_replicas ",
                   jobs_.max_replicas(), ")"));
}

absl::Status Admission::CheckBackend(const std::string& requested) const {
  if (!requested.empty() && requested != "cpu" && requested != "vulkan") {
    return absl::InvalidArgumentError(
        StrCat("unknown backend '", requested, "' (cpu or vulkan)"));
  }
  // A backend without its device fails here, not as a failed job later.
  const std::string& backend =
      requested.empty() ? jobs_.default_backend() : requested;
  if (backend == "cpu") return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<backends::Backend>> opened =
      backends::CreateBackend(backend);
  if (opened.ok()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      StrCat("the ", backend, " backend is not available on this daemon: ",
             opened.status().message()));
}

absl::StatusOr<train::ModelSnapshot> Admission::TestedSnapshot(
    const Principal& who, const JobRequest& request) {
  if (request.snapshot_job_id.empty()) {
    return absl::InvalidArgumentError(
        "a test job names the job whose snapshot it tests "
        "(snapshot_job_id)");
  }
  ASSIGN_OR_RETURN(StoredJob source,
                   VisibleJob(store_, who, request.snapshot_job_id));
  ASSIGN_OR_RETURN(std::optional<SnapshotBlob> blob,
                   store_.LatestSnapshot(source.job.id));
  if (!blob) {
    return absl::FailedPreconditionError(
        StrCat("job ", source.job.id, " has no snapshot yet"));
  }
  return train::DecodeModelSnapshot(blob->bytes);
}

absl::StatusOr<Admission::Admitted> Admission::Check(
    const Principal& who, const JobRequest& request) {
  RETURN_IF_ERROR(CheckLabels(request.name, request.tags, request.note));
  ASSIGN_OR_RETURN(train::Hyperparameters hyper,
                   ResolveJobHyperparameters(request.hyperparameters, 1));
  RETURN_IF_ERROR(CheckReplicas(hyper.replicas));
  RETURN_IF_ERROR(CheckBackend(request.backend));
  // An unknown dataset first: it costs nothing to find.
  ASSIGN_OR_RETURN(StoredData data,
                   FindStoredData(store_, who.Filter(), request.data,
                                  limits_.max_dataset_bytes));
  std::string model_text = request.model_text;
  std::string file_name = request.file_name;
  std::optional<train::ModelSnapshot> snapshot;
  if (request.kind == JobKind::kTest) {
    ASSIGN_OR_RETURN(snapshot, TestedSnapshot(who, request));
    // Images resize as the tested job's did, or as asked (as the job will).
    ASSIGN_OR_RETURN(std::optional<StoredJob> trained,
                     store_.GetJob(request.snapshot_job_id));
    if (trained) data.source.resize |= trained->request.data.resize;
    model_text = snapshot->model_source;
    if (!snapshot->model_file.empty()) file_name = snapshot->model_file;
  } else if (request.kind != JobKind::kTrain &&
             request.kind != JobKind::kUnspecified) {
    return absl::InvalidArgumentError("a job is TRAIN or TEST");
  }
  ASSIGN_OR_RETURN(CheckResult check, CheckModelText(file_name, model_text));
  if (!check.ok) {
    return absl::InvalidArgumentError(StrCat("the model does not check:\n",
                                             webnnm::RenderedForStatus(check)));
  }
  // The data must suit the model: the run prepared now (without a
  // backend), so that a bad dataset is an error of this call.
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

Job Admission::NewJob(const Principal& who, const JobRequest& request,
                      const Admitted& admitted) const {
  Job job;
  job.model_name = admitted.model_name;
  job.name = request.name.empty() ? admitted.model_name : request.name;
  job.tags = request.tags;
  job.note = request.note;
  job.id = NewId("j");
  job.principal = who.name;
  job.kind = request.kind == JobKind::kTest ? JobKind::kTest : JobKind::kTrain;
  job.created = Now();
  job.dataset_id = request.data.dataset_id;
  job.backend =
      request.backend.empty() ? jobs_.default_backend() : request.backend;
  job.snapshot_job_id = request.snapshot_job_id;
  job.hyperparameters = request.hyperparameters;
  job.data = request.data;
  auto epochs = request.hyperparameters.find("epochs");
  if (epochs != request.hyperparameters.end()) {
    job.epochs = static_cast<int>(std::get<int64_t>(epochs->second));
  } else if (job.kind == JobKind::kTrain) {
    job.epochs = train::Hyperparameters{}.epochs;
  }
  return job;
}

absl::StatusOr<std::optional<Job>> Admission::Earlier(const Principal& who,
                                                      const std::string& key) {
  if (key.empty()) return std::nullopt;
  if (key.size() > 200) {
    return absl::InvalidArgumentError("the idempotency key is too long");
  }
  return store_.FindByIdempotencyKey(who.name, key);
}

absl::StatusOr<Admission::Submitted> Admission::Submit(const Principal& who,
                                                       JobRequest request) {
  ASSIGN_OR_RETURN(std::optional<Job> earlier,
                   Earlier(who, request.idempotency_key));
  if (earlier) return Submitted{.job = *earlier, .existing = true};
  ASSIGN_OR_RETURN(Admitted admitted, Check(who, request));
  // The label column the data is read with, chosen now when none was
  // named: `get` shows it (the job chooses it again, alike).
  request.data.chosen_label =
      request.data.label.empty() ? admitted.label : std::string();
  Job job = NewJob(who, request, admitted);
  request.kind = job.kind;
  absl::StatusOr<Job> created =
      store_.CreateJob(job, request, limits_.max_queued_jobs);
  if (absl::IsAlreadyExists(created.status())) {
    // Another call with the same key won the race: its job is the answer.
    absl::StatusOr<std::optional<Job>> winner =
        store_.FindByIdempotencyKey(who.name, request.idempotency_key);
    if (winner.ok() && *winner) {
      return Submitted{.job = **winner, .existing = true};
    }
  }
  RETURN_IF_ERROR(created.status());
  LogJobEvents(*created, {StateEvent(JobState::kQueued, "submitted")});
  jobs_.Queued();
  return Submitted{.job = *std::move(created)};
}

absl::StatusOr<train::Preview> Admission::Preview(
    const Principal& who, const train::HyperparameterValues& values,
    const DataSpec& spec, const dag::Dag& dag) {
  ASSIGN_OR_RETURN(train::Hyperparameters hyper,
                   ResolveJobHyperparameters(values, 1));
  if (spec.dataset_id.empty()) {
    return train::PreviewTraining(dag, hyper, nullptr);
  }
  ASSIGN_OR_RETURN(StoredData data, FindStoredData(store_, who.Filter(), spec,
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
  return run->PreviewTraining();
}

}  // namespace webnnm::server
