// The KServe / Triton Open Inference Protocol v2 over gRPC
// (inference.GRPCInferenceService, proto/inference/grpc_predict_v2.proto):
// the required calls, serving finished training jobs' best snapshots. A
// model's name is its job id and its only version is "1"; authentication
// and visibility are those of webnnm.v1 (another principal's job is an
// unknown model). A model may also be named by its job's alias, name or a
// unique prefix of its id (ResolveJobRef). A classifier's output OUT comes
// with OUT_class beside it (BYTES: each row's class name), and a requested
// output with the parameter `classification: K` becomes Triton's
// classification: BYTES "score:index:name", the K best a row
// (kserve_classes.h).
#ifndef WEBNNM_SERVER_RPC_KSERVE_H_
#define WEBNNM_SERVER_RPC_KSERVE_H_

#include "inference/grpc_predict_v2.grpc.pb.h"
#include "server/core/inference.h"
#include "server/core/store.h"
#include "server/rpc/auth.h"
#include "server/rpc/service.h"

namespace webnnm::server {

// ModelInfer runs on gRPC's callback API: its handler, on gRPC's own
// threads, checks the call and queues it on the model's batcher
// (InferenceCache::RunAsync) without waiting for other calls — the thread
// running a batch finishes every call in it — so concurrent calls still
// meet in batches and no synchronous handler thread is waited for (16
// clients: about twice the calls/s of the synchronous API on iris,
// docs/performance.md). The other methods are synchronous.
class KServeService final
    : public inference::GRPCInferenceService::WithCallbackMethod_ModelInfer<
          inference::GRPCInferenceService::Service> {
 public:
  KServeService(Store& store, const Tokens& tokens, Limits limits,
                InferenceCache& inference)
      : store_(store),
        tokens_(tokens),
        limits_(limits),
        inference_(inference) {}

  grpc::Status ServerLive(grpc::ServerContext* context,
                          const inference::ServerLiveRequest* request,
                          inference::ServerLiveResponse* response) override;
  grpc::Status ServerReady(grpc::ServerContext* context,
                           const inference::ServerReadyRequest* request,
                           inference::ServerReadyResponse* response) override;
  grpc::Status ModelReady(grpc::ServerContext* context,
                          const inference::ModelReadyRequest* request,
                          inference::ModelReadyResponse* response) override;
  grpc::Status ServerMetadata(
      grpc::ServerContext* context,
      const inference::ServerMetadataRequest* request,
      inference::ServerMetadataResponse* response) override;
  grpc::Status ModelMetadata(
      grpc::ServerContext* context,
      const inference::ModelMetadataRequest* request,
      inference::ModelMetadataResponse* response) override;
  grpc::ServerUnaryReactor* ModelInfer(
      grpc::CallbackServerContext* context,
      const inference::ModelInferRequest* request,
      inference::ModelInferResponse* response) override;
  // ModelInfer's work, all of it on the calling thread (tests, fuzzers).
  grpc::Status RunModelInfer(const grpc::ServerContextBase& context,
                             const inference::ModelInferRequest* request,
                             inference::ModelInferResponse* response);

 private:
  // ModelInfer in two halves around the model's run: the caller's model
  // and inputs, checked; the response from the outputs.
  struct PreparedInfer {
    std::shared_ptr<ServedModel> model;
    std::vector<InferTensor> inputs;
  };
  grpc::Status PrepareModelInfer(const grpc::ServerContextBase& context,
                                 const inference::ModelInferRequest* request,
                                 PreparedInfer& call);
  static grpc::Status RespondModelInfer(
      const ServedModel& model, const inference::ModelInferRequest* request,
      const absl::StatusOr<std::vector<InferTensor>>& outputs,
      inference::ModelInferResponse* response);
  // The served model of a visible, finished training (or imported) job.
  absl::StatusOr<std::shared_ptr<ServedModel>> Model(
      const grpc::ServerContextBase& context, const std::string& name,
      const std::string& version);

  Store& store_;
  const Tokens& tokens_;
  const Limits limits_;
  InferenceCache& inference_;
};

// WebNN data type name -> the protocol's ("float32" -> "FP32").
std::string KServeDataType(std::string_view webnn);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_KSERVE_H_
