// The webnnm.v1.Webnnm service: a thin adapter from gRPC to the store
// (store.h), the job manager (jobs.h) and the engine (checking models,
// inference). Every call authenticates first (auth.h); another principal's
// job or dataset is NOT_FOUND. Errors map to gRPC codes: a model that does
// not check and bad arguments are INVALID_ARGUMENT, limits are
// RESOURCE_EXHAUSTED, wrong states FAILED_PRECONDITION.
#ifndef WEBNNM_SERVER_RPC_SERVICE_H_
#define WEBNNM_SERVER_RPC_SERVICE_H_

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "engine/dag/dag.h"
#include "engine/train/checkpoint.h"
#include "server/core/inference.h"
#include "server/core/jobs.h"
#include "server/core/store.h"
#include "server/rpc/auth.h"
#include "webnnm/v1/webnnm.grpc.pb.h"

namespace webnnm::server {

struct Limits {
  int64_t max_model_bytes = 1 << 20;
  int64_t max_dataset_bytes = 256ll << 20;
  int64_t max_chunk_bytes = 1 << 20;  // one upload call's data
  int max_queued_jobs = 100;          // per principal
  int64_t max_infer_elements = 16 << 20;
  int64_t max_snapshot_bytes = 1ll << 30;
  // Uploads: unfinished ones are deleted after this idle time; open
  // (unfinished) uploads per principal, and the bytes they announce.
  std::chrono::seconds upload_idle_timeout{3600};
  int max_open_uploads = 8;
  int64_t max_open_upload_bytes = 1ll << 30;
};

// Infer runs on gRPC's callback API, its call queued on the model's batcher
// without waiting (as KServe's ModelInfer: kserve.h); the other methods are
// synchronous.
class WebnnmService final
    : public v1::Webnnm::WithCallbackMethod_Infer<v1::Webnnm::Service> {
 public:
  WebnnmService(Store& store, JobManager& jobs, const Tokens& tokens,
                Limits limits, InferenceCache& inference);

  // Dataset uploads begun and not yet finished (expired ones dropped).
  int UploadsInProgress();

  grpc::Status CheckModel(grpc::ServerContext* context,
                          const v1::CheckModelRequest* request,
                          v1::CheckModelResponse* response) override;
  grpc::Status InitModel(grpc::ServerContext* context,
                         const v1::InitModelRequest* request,
                         v1::InitModelResponse* response) override;
  grpc::Status SubmitJob(grpc::ServerContext* context,
                         const v1::SubmitJobRequest* request,
                         v1::SubmitJobResponse* response) override;
  grpc::Status WatchJob(grpc::ServerContext* context,
                        const v1::WatchJobRequest* request,
                        grpc::ServerWriter<v1::JobEvent>* writer) override;
  grpc::Status GetJob(grpc::ServerContext* context,
                      const v1::GetJobRequest* request,
                      v1::Job* response) override;
  grpc::Status ListJobs(grpc::ServerContext* context,
                        const v1::ListJobsRequest* request,
                        v1::ListJobsResponse* response) override;
  grpc::Status TagJob(grpc::ServerContext* context,
                      const v1::TagJobRequest* request,
                      v1::Job* response) override;
  grpc::Status CancelJob(grpc::ServerContext* context,
                         const v1::CancelJobRequest* request,
                         v1::Job* response) override;
  grpc::Status ResumeJob(grpc::ServerContext* context,
                         const v1::ResumeJobRequest* request,
                         v1::Job* response) override;
  grpc::Status DeleteJob(grpc::ServerContext* context,
                         const v1::DeleteJobRequest* request,
                         v1::DeleteJobResponse* response) override;
  grpc::Status GetMetrics(grpc::ServerContext* context,
                          const v1::GetMetricsRequest* request,
                          v1::GetMetricsResponse* response) override;
  grpc::Status UploadDataset(grpc::ServerContext* context,
                             const v1::UploadDatasetRequest* request,
                             v1::UploadDatasetResponse* response) override;
  grpc::Status ListDatasets(grpc::ServerContext* context,
                            const v1::ListDatasetsRequest* request,
                            v1::ListDatasetsResponse* response) override;
  grpc::Status DeleteDataset(grpc::ServerContext* context,
                             const v1::DeleteDatasetRequest* request,
                             v1::DeleteDatasetResponse* response) override;
  grpc::Status ExportSnapshot(
      grpc::ServerContext* context, const v1::ExportSnapshotRequest* request,
      grpc::ServerWriter<v1::SnapshotChunk>* writer) override;
  grpc::Status ImportSnapshot(grpc::ServerContext* context,
                              const v1::ImportSnapshotRequest* request,
                              v1::ImportSnapshotResponse* response) override;
  grpc::ServerUnaryReactor* Infer(grpc::CallbackServerContext* context,
                                  const v1::InferRequest* request,
                                  v1::InferResponse* response) override;
  // Infer's work, all of it on the calling thread (tests, fuzzers).
  grpc::Status RunInfer(const grpc::ServerContextBase* context,
                        const v1::InferRequest* request,
                        v1::InferResponse* response);
  grpc::Status Predict(grpc::ServerContext* context,
                       const v1::PredictRequest* request,
                       grpc::ServerWriter<v1::PredictChunk>* writer) override;
  grpc::Status ListNodes(grpc::ServerContext* context,
                         const v1::ListNodesRequest* request,
                         v1::ListNodesResponse* response) override;

 private:
  // The job if the principal may see it (NotFound otherwise).
  absl::StatusOr<StoredJob> VisibleJob(const Principal& who,
                                       const std::string& id);
  // The job if the principal may see it and it has a model to serve: a
  // succeeded training job or an imported snapshot (FailedPrecondition
  // otherwise).
  absl::StatusOr<StoredJob> ServableJob(const Principal& who,
                                        const std::string& id);
  // A submission as the job will run it (the model checks, the data fits
  // it, the labels are within limits): the model's name, or why not.
  // What admission learned of a submission: the model's name, and the
  // label column its data will be read with (a CSV's, chosen for the
  // model when the request named none; "" otherwise).
  struct Admitted {
    std::string model_name, label;
  };
  absl::StatusOr<Admitted> CheckSubmission(const Principal& who,
                                           const JobRequest& request);
  // The snapshot a TEST job tests: the newest of the job it names, if the
  // principal may see that job.
  absl::StatusOr<train::ModelSnapshot> TestedSnapshot(
      const Principal& who, const JobRequest& request);
  // Fills the response's decisions, warnings and resolved hyperparameters
  // with what training `dag` on the request's data would decide (its
  // preview_error when the data or hyperparameters do not do).
  void Preview(const Principal& who, const v1::CheckModelRequest& request,
               const dag::Dag& dag, v1::CheckModelResponse& response);
  // Uploads (datasets and snapshots) are the store's: what bounds them,
  // and the principal's upload `id` of `kind` (NotFound otherwise).
  UploadCaps Caps() const;
  absl::StatusOr<UploadRecord> FindUpload(const Principal& who,
                                          const std::string& id, int kind);
  grpc::Status FinishDatasetUpload(const Principal& who, const std::string& id,
                                   UploadRecord& upload,
                                   v1::UploadDatasetResponse* response);
  // Calls on one upload run one at a time (in this daemon).
  absl::Mutex& UploadLock(const std::string& id);
  // Infer in two halves around the model's run: the caller's model and
  // inputs, checked; the response from the outputs.
  struct PreparedInfer {
    std::shared_ptr<ServedModel> model;
    std::vector<InferTensor> inputs;
  };
  grpc::Status PrepareInfer(const grpc::ServerContextBase* context,
                            const v1::InferRequest* request,
                            PreparedInfer& call);
  static grpc::Status RespondInfer(
      const ServedModel& model,
      const absl::StatusOr<std::vector<InferTensor>>& outputs,
      v1::InferResponse* response);

  Store& store_;
  JobManager& jobs_;
  const Tokens& tokens_;
  const Limits limits_;
  static constexpr int kUploadLocks = 32;
  absl::Mutex upload_locks_[kUploadLocks];
  // Held while a dataset's files and record are stored or deleted, so that
  // a deletion never removes files an upload has just recorded.
  absl::Mutex dataset_files_mutex_;
  InferenceCache& inference_;
};

grpc::Status ToGrpc(const absl::Status& status);
std::string NewId(std::string_view prefix);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_SERVICE_H_
