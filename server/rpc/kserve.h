// The KServe / Triton Open Inference Protocol v2 over gRPC
// (inference.GRPCInferenceService, proto/inference/grpc_predict_v2.proto):
// the required calls, serving finished training jobs' best snapshots. A
// model's name is its job id and its only version is "1"; authentication
// and visibility are those of webnnm.v1 (another principal's job is an
// unknown model).
#ifndef WEBNNM_SERVER_RPC_KSERVE_H_
#define WEBNNM_SERVER_RPC_KSERVE_H_

#include "inference/grpc_predict_v2.grpc.pb.h"
#include "server/core/inference.h"
#include "server/core/store.h"
#include "server/rpc/auth.h"
#include "server/rpc/service.h"

namespace webnnm::server {

class KServeService final : public inference::GRPCInferenceService::Service {
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
  grpc::Status ModelInfer(grpc::ServerContext* context,
                          const inference::ModelInferRequest* request,
                          inference::ModelInferResponse* response) override;

 private:
  // The served model of a visible, finished training (or imported) job.
  absl::StatusOr<std::shared_ptr<ServedModel>> Model(
      const grpc::ServerContext& context, const std::string& name,
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
