// The gRPC server interceptor behind the RPC metrics (daemon_metrics.h):
// each call's method, final status code and latency, from its arrival to
// its status. grpc-web calls pass through it too (they are forwarded into
// the same server). Methods outside the daemon's services are counted as
// "other", so that no client can grow the label set.
#ifndef WEBNNM_SERVER_RPC_METRICS_INTERCEPTOR_H_
#define WEBNNM_SERVER_RPC_METRICS_INTERCEPTOR_H_

#include <memory>
#include <string>

#include <grpcpp/support/server_interceptor.h>

namespace webnnm::server {

class MetricsInterceptorFactory
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;
};

// A status code's name as gRPC spells it (OK, NOT_FOUND, ...).
const char* StatusCodeName(grpc::StatusCode code);
// The method label for a full method name: itself for the daemon's
// services (webnnm.v1.Webnnm, inference.GRPCInferenceService,
// grpc.health.v1.Health, grpc.reflection), "other" otherwise.
std::string MethodLabel(const char* method);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_METRICS_INTERCEPTOR_H_
