// The webnnm.v1.Webnnm service: an adapter from gRPC to the core. Each
// method authenticates, converts the request (server/convert), makes one
// call of the core (admission.h, uploads.h, access.h, watch.h, serving.h,
// model_export.h, the store, the job manager) and converts its answer.
// Every call authenticates first (auth.h); another principal's job or
// dataset is NOT_FOUND. Errors map to gRPC codes: a model that does not
// check and bad arguments are INVALID_ARGUMENT, limits are
// RESOURCE_EXHAUSTED, wrong states FAILED_PRECONDITION.
#ifndef WEBNNM_SERVER_RPC_SERVICE_H_
#define WEBNNM_SERVER_RPC_SERVICE_H_

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "server/core/admission.h"
#include "server/core/inference.h"
#include "server/core/jobs.h"
#include "server/core/limits.h"
#include "server/core/store.h"
#include "server/core/uploads.h"
#include "server/rpc/auth.h"
#include "webnnm/v1/webnnm.grpc.pb.h"

namespace webnnm::server {

// Infer runs on gRPC's callback API, its call queued on the model's batcher
// without waiting (as KServe's ModelInfer: kserve.h); the other methods are
// synchronous.
class WebnnmService final
    : public v1::Webnnm::WithCallbackMethod_Infer<v1::Webnnm::Service> {
 public:
  WebnnmService(Store& store, JobManager& jobs, const Tokens& tokens,
                Limits limits, InferenceCache& inference);

  // Dataset uploads begun and not yet finished (expired ones dropped).
  int UploadsInProgress() { return uploads_.InProgress(); }

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
  grpc::Status ExportModel(grpc::ServerContext* context,
                           const v1::ExportModelRequest* request,
                           grpc::ServerWriter<v1::ModelChunk>* writer) override;
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
  InferenceCache& inference_;
  Admission admission_;
  Uploads uploads_;
};

grpc::Status ToGrpc(const absl::Status& status);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_SERVICE_H_
