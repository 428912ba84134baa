#include "server/rpc/service.h"

#include <map>
#include <string>
#include <vector>

#include "engine/base/strings.h"
#include "engine/train/hyperparameters_proto.h"
#include "server/convert/answers.h"
#include "server/convert/convert.h"
#include "server/core/access.h"
#include "server/core/watch.h"
#include "server/rpc/service_internal.h"

namespace webnnm::server {

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

WebnnmService::WebnnmService(Store& store, JobManager& jobs,
                             const Tokens& tokens, Limits limits,
                             InferenceCache& inference)
    : store_(store),
      jobs_(jobs),
      tokens_(tokens),
      limits_(limits),
      inference_(inference),
      admission_(store, jobs, limits),
      uploads_(store, limits, [&jobs] { jobs.Queued(); }) {}

grpc::Status WebnnmService::CheckModel(grpc::ServerContext* context,
                                       const v1::CheckModelRequest* request,
                                       v1::CheckModelResponse* response) {
  AUTHENTICATE(who);
  // The data's preview imputes as submission would: refused alike.
  if (absl::Status bad = CheckImpute(request->data().impute()); !bad.ok()) {
    return ToGrpc(bad);
  }
  absl::StatusOr<CheckResult> check = admission_.CheckModelText(
      request->file_name(), request->model_text());
  if (!check.ok()) return ToGrpc(check.status());
  FillCheck(*check, *response);
  if (!check->ok || !check->summary || !check->dag) return grpc::Status::OK;
  absl::StatusOr<train::Preview> preview = admission_.Preview(
      who, train::ValuesFromProto(request->hyperparameters()),
      FromProto(request->data()), *check->dag);
  if (preview.ok()) {
    FillPreview(*preview, *response);
  } else {
    response->set_preview_error(std::string(preview.status().message()));
  }
  return grpc::Status::OK;
}

grpc::Status WebnnmService::SubmitJob(grpc::ServerContext* context,
                                      const v1::SubmitJobRequest* request,
                                      v1::SubmitJobResponse* response) {
  AUTHENTICATE(who);
  if (absl::Status bad = CheckImpute(request->data().impute()); !bad.ok()) {
    return ToGrpc(bad);
  }
  absl::StatusOr<Admission::Submitted> submitted =
      admission_.Submit(who, FromProto(*request));
  if (!submitted.ok()) return ToGrpc(submitted.status());
  *response->mutable_job() = ToProto(submitted->job);
  response->set_existing(submitted->existing);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::WatchJob(grpc::ServerContext* context,
                                     const v1::WatchJobRequest* request,
                                     grpc::ServerWriter<v1::JobEvent>* writer) {
  AUTHENTICATE(who);
  const std::string& id = request->job_id();
  absl::StatusOr<StoredJob> job = VisibleJob(store_, who, id);
  if (!job.ok()) return ToGrpc(job.status());
  Watcher watcher{
      .event = [&](const JobEvent& e) { return writer->Write(ToProto(e)); },
      .progress = nullptr,
      .cancelled = [&] { return context->IsCancelled(); }};
  if (request->progress()) {
    watcher.progress = [&](const train::StepReport& r) {
      return writer->Write(ProgressEvent(id, r));
    };
  }
  absl::Status watched =
      server::WatchJob(store_, jobs_, id, request->from_seq(), watcher);
  if (absl::IsCancelled(watched)) return grpc::Status::CANCELLED;
  return ToGrpc(watched);
}

grpc::Status WebnnmService::GetJob(grpc::ServerContext* context,
                                   const v1::GetJobRequest* request,
                                   v1::Job* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(store_, who, request->job_id());
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
  absl::StatusOr<JobPage> page = ListJobPage(
      store_, who,
      {.state = FromProto(request->state()),
       .name = request->name(),
       .tags = {request->tags().begin(), request->tags().end()},
       .page_size = request->page_size(),
       .page_token = request->page_token()});
  if (!page.ok()) return ToGrpc(page.status());
  for (const Job& job : page->jobs) *response->add_jobs() = ToProto(job);
  response->set_next_page_token(page->next_page);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::TagJob(grpc::ServerContext* context,
                                   const v1::TagJobRequest* request,
                                   v1::Job* response) {
  AUTHENTICATE(who);
  LabelChange change{
      .set = {request->set().begin(), request->set().end()},
      .remove = {request->remove().begin(), request->remove().end()}};
  if (request->has_name()) change.name = request->name();
  if (request->has_note()) change.note = request->note();
  absl::StatusOr<Job> stored =
      RelabelJob(store_, who, request->job_id(), change);
  if (!stored.ok()) return ToGrpc(stored.status());
  *response = ToProto(*stored);
  return grpc::Status::OK;
}

grpc::Status WebnnmService::CancelJob(grpc::ServerContext* context,
                                      const v1::CancelJobRequest* request,
                                      v1::Job* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(store_, who, request->job_id());
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
  absl::StatusOr<StoredJob> job = VisibleJob(store_, who, request->job_id());
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
  absl::StatusOr<StoredJob> job = VisibleJob(store_, who, request->job_id());
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
  absl::StatusOr<std::vector<NodeRecord>> nodes =
      VisibleNodes(store_, jobs_, who);
  if (!nodes.ok()) return ToGrpc(nodes.status());
  for (const NodeRecord& n : *nodes) *response->add_nodes() = ToProto(n);
  response->set_cluster(store_.Shared());
  return grpc::Status::OK;
}

grpc::Status WebnnmService::GetMetrics(grpc::ServerContext* context,
                                       const v1::GetMetricsRequest* request,
                                       v1::GetMetricsResponse* response) {
  AUTHENTICATE(who);
  absl::StatusOr<StoredJob> job = VisibleJob(store_, who, request->job_id());
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
