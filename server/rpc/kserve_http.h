// KServe's Open Inference Protocol v2 over HTTP/JSON, on the HTTP listener
// (--http-listen) beside grpc-web. Each request becomes one call of the
// daemon's own inference.GRPCInferenceService (kserve.h) through the
// listener's in-process channel, with the request's headers as metadata:
// authentication, limits, model names and answers are exactly the gRPC
// service's. The paths:
//
//   GET  /v2                                   server metadata
//   GET  /v2/health/live, /v2/health/ready     {"live"|"ready": true}
//   GET  /v2/models/NAME[/versions/1]          model metadata
//   GET  /v2/models/NAME[/versions/1]/ready    200, or 400 when not ready
//   POST /v2/models/NAME[/versions/1]/infer    inference, JSON tensors
//
// NAME (percent-decoded) is a job id, alias, name or unique id prefix.
// Infer takes {"id", "inputs": [{"name", "shape", "datatype", "data"}],
// "outputs": [{"name", "parameters": {"classification": K}}]} with "data"
// flat or nested row-major (BOOL, INT8..INT64, UINT8..UINT64, FP16, FP32,
// FP64), and answers {"model_name", "model_version", "id", "outputs":
// [{"name", "datatype", "shape", "data"}]} — a classifier's OUT_class
// (BYTES) beside its probabilities. Errors are {"error": MESSAGE} with the
// HTTP status of the gRPC code (400, 401, 403, 404, 413, 501, 503, 500).
#ifndef WEBNNM_SERVER_RPC_KSERVE_HTTP_H_
#define WEBNNM_SERVER_RPC_KSERVE_HTTP_H_

#include <functional>
#include <string>

#include <grpcpp/grpcpp.h>

#include "server/rpc/http_server.h"

namespace webnnm::server {

// One unary call of the daemon's gRPC server: the method's path
// (/inference.GRPCInferenceService/ModelInfer), the serialized request,
// the HTTP request whose headers become metadata; the serialized answer.
using GrpcUnary = std::function<grpc::Status(
    const std::string& method, const std::string& message,
    const HttpRequest& http, std::string* answer)>;

// Answers a request for /v2 or a path under it and returns true; false
// (nothing sent) for any other path.
bool ServeKServeHttp(const GrpcUnary& call, const HttpRequest& request,
                     HttpResponder& response);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_KSERVE_HTTP_H_
