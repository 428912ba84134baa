// The operator's HTTP endpoints, on the grpc-web listener and on the
// metrics listener (--metrics-listen):
//
// - GET /metrics: Prometheus's text exposition (format 0.0.4). Asks for a
//   bearer token (any valid one; 401 otherwise) when `token_required`.
// - GET /healthz: 200 "ok" while the process serves HTTP (liveness).
// - GET /readyz: 200 "ready" when `ready()` is OK, else 503 with its
//   message (the database cannot be read, the job workers are stopping).
//
// HEAD is answered like GET; other methods on these paths get 405.
#ifndef WEBNNM_SERVER_RPC_OPS_HTTP_H_
#define WEBNNM_SERVER_RPC_OPS_HTTP_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/rpc/http_server.h"

namespace webnnm::server {

struct OpsEndpoints {
  std::function<std::string()> metrics;  // the exposition
  std::function<absl::Status()> ready;
  bool token_required = false;
  // Whether an `authorization` header's bearer token is valid.
  std::function<bool(std::string_view)> authorized;
};

// Answers a request for one of the three paths and returns true; false
// (nothing sent) for any other path.
bool ServeOps(const OpsEndpoints& ops, const HttpRequest& request,
              HttpResponder& response);

// A listener serving only these endpoints (404 for any other path), with
// TLS when both PEM files are given.
absl::StatusOr<std::unique_ptr<HttpServer>> StartOpsServer(
    const std::string& host, int port, OpsEndpoints ops,
    const std::string& tls_certificate, const std::string& tls_private_key);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_OPS_HTTP_H_
