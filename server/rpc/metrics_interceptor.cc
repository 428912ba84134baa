#include "server/rpc/metrics_interceptor.h"

#include <chrono>
#include <string_view>

#include "server/core/daemon_metrics.h"

namespace webnnm::server {

namespace {

using grpc::experimental::InterceptionHookPoints;

class MetricsInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit MetricsInterceptor(std::string method)
      : method_(std::move(method)),
        infer_(method_ == "/webnnm.v1.Webnnm/Infer" ||
               method_ == "/inference.GRPCInferenceService/ModelInfer") {}

  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_STATUS)) {
      const double seconds =
          std::chrono::duration<double>(Clock::now() - start_).count();
      DaemonMetrics& m = Metrics();
      m.rpc_calls
          .With(
              {method_, StatusCodeName(methods->GetSendStatus().error_code())})
          .Add();
      m.rpc_seconds.With({method_}).Observe(seconds);
      if (infer_) m.infer_seconds.With({method_}).Observe(seconds);
    }
    methods->Proceed();
  }

 private:
  using Clock = std::chrono::steady_clock;
  const std::string method_;
  const bool infer_;
  const Clock::time_point start_ = Clock::now();
};

}  // namespace

grpc::experimental::Interceptor*
MetricsInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  return new MetricsInterceptor(MethodLabel(info->method()));
}

std::string MethodLabel(const char* method) {
  if (method == nullptr) return "other";
  const std::string_view m(method);
  for (std::string_view service :
       {"/webnnm.v1.Webnnm/", "/inference.GRPCInferenceService/",
        "/grpc.health.v1.Health/", "/grpc.reflection.v1alpha.ServerReflection/",
        "/grpc.reflection.v1.ServerReflection/"}) {
    if (m.size() > service.size() && m.size() <= service.size() + 64 &&
        m.substr(0, service.size()) == service &&
        m.find('/', service.size()) == std::string_view::npos) {
      return std::string(m);
    }
  }
  return "other";
}

const char* StatusCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    default:
      return "UNKNOWN";
  }
}

}  // namespace webnnm::server
