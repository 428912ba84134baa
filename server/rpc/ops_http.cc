#include "server/rpc/ops_http.h"

#include <utility>

namespace webnnm::server {

namespace {

constexpr char kText[] = "text/plain; charset=utf-8";

void Answer(const HttpRequest& request, HttpResponder& response, int status,
            HttpHeaders headers, std::string_view body) {
  headers.push_back({"Cache-Control", "no-store"});
  // HEAD: the same status and headers, without the body.
  response.Send(status, headers, request.method == "HEAD" ? "" : body);
}

}  // namespace

bool ServeOps(const OpsEndpoints& ops, const HttpRequest& request,
              HttpResponder& response) {
  const std::string& path = request.path;
  if (path != "/metrics" && path != "/healthz" && path != "/readyz") {
    return false;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    response.Send(405, {{"Content-Type", kText}, {"Allow", "GET, HEAD"}},
                  "webnnmd: " + path + " takes GET or HEAD\n");
    return true;
  }
  if (path == "/healthz") {
    Answer(request, response, 200, {{"Content-Type", kText}}, "ok\n");
  } else if (path == "/readyz") {
    absl::Status ready = ops.ready ? ops.ready() : absl::OkStatus();
    if (ready.ok()) {
      Answer(request, response, 200, {{"Content-Type", kText}}, "ready\n");
    } else {
      Answer(request, response, 503, {{"Content-Type", kText}},
             "not ready: " + std::string(ready.message()) + "\n");
    }
  } else if (ops.token_required &&
             !(ops.authorized &&
               ops.authorized(request.Header("authorization")))) {
    Answer(request, response, 401,
           {{"Content-Type", kText},
            {"WWW-Authenticate", "Bearer realm=\"webnnmd\""}},
           "webnnmd: /metrics needs a bearer token here (Authorization: "
           "Bearer TOKEN), or metrics_without_token in the config\n");
  } else {
    Answer(request, response, 200,
           {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}},
           ops.metrics ? ops.metrics() : "");
  }
  return true;
}

absl::StatusOr<std::unique_ptr<HttpServer>> StartOpsServer(
    const std::string& host, int port, OpsEndpoints ops,
    const std::string& tls_certificate, const std::string& tls_private_key) {
  HttpServerOptions options;
  options.host = host;
  options.port = port;
  options.workers = 4;
  options.max_connections = 64;
  options.max_body_bytes = 64 << 10;
  options.tls_certificate = tls_certificate;
  options.tls_private_key = tls_private_key;
  return HttpServer::Start(
      options, [ops = std::move(ops)](const HttpRequest& request,
                                      HttpResponder& response) {
        if (!ServeOps(ops, request, response)) {
          response.Send(404, {{"Content-Type", kText}},
                        "webnnmd: the metrics listener serves /metrics, "
                        "/healthz and /readyz\n");
        }
      });
}

}  // namespace webnnm::server
