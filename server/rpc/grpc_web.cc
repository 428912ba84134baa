#include "server/rpc/grpc_web.h"
#include "server/rpc/kserve_http.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

#include <google/protobuf/descriptor.h>
#include <grpcpp/generic/generic_stub.h>

#include "absl/strings/escaping.h"
#include "absl/synchronization/mutex.h"
#include "engine/base/strings.h"
#include "server/rpc/http_server.h"
#include "server/rpc/web_assets.h"

namespace webnnm::server {
namespace {

using grpc_web::Frame;
using grpc_web::PercentEncode;

enum class Shape { kUnknown, kUnary, kServerStreaming, kOther };

// The method's shape, when its service is on the allow-list.
Shape MethodShape(const std::string& path) {
  if (path.size() < 4 || path[0] != '/') return Shape::kUnknown;
  size_t slash = path.find('/', 1);
  if (slash == std::string::npos) return Shape::kUnknown;
  std::string service = path.substr(1, slash - 1);
  std::string method = path.substr(slash + 1);
  if (service == "grpc.health.v1.Health") {
    // The default health service is not in the generated descriptor pool.
    return method == "Check"   ? Shape::kUnary
           : method == "Watch" ? Shape::kServerStreaming
                               : Shape::kUnknown;
  }
  if (service != "webnnm.v1.Webnnm" &&
      service != "inference.GRPCInferenceService") {
    return Shape::kUnknown;
  }
  const google::protobuf::ServiceDescriptor* s =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          service);
  const google::protobuf::MethodDescriptor* m =
      s ? s->FindMethodByName(method) : nullptr;
  if (!m) return Shape::kUnknown;
  if (m->client_streaming()) return Shape::kOther;
  return m->server_streaming() ? Shape::kServerStreaming : Shape::kUnary;
}

bool ValidMetadataKey(const std::string& key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
          c == '.')) {
      return false;
    }
  }
  return true;
}

bool ValidMetadataValue(const std::string& value) {
  for (char c : value) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// Headers that are HTTP's or the bridge's, not call metadata.
bool HttpOnly(const std::string& key) {
  static const std::set<std::string> kSkip = {"accept",
                                              "accept-encoding",
                                              "accept-language",
                                              "cache-control",
                                              "connection",
                                              "content-length",
                                              "content-type",
                                              "cookie",
                                              "host",
                                              "keep-alive",
                                              "origin",
                                              "pragma",
                                              "referer",
                                              "te",
                                              "transfer-encoding",
                                              "upgrade",
                                              "user-agent",
                                              "x-grpc-web",
                                              "x-user-agent",
                                              "grpc-timeout",
                                              "remote_addr",
                                              "remote_port",
                                              "local_addr",
                                              "local_port"};
  return kSkip.count(key) > 0 || key.rfind("sec-", 0) == 0 ||
         key.rfind("grpc-", 0) == 0;
}

std::string Lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// One forwarded call, driven synchronously on its own completion queue.
class Call {
 public:
  Call(grpc::GenericStub& stub, const std::string& method)
      : stub_(stub), method_(method) {}
  ~Call() {
    if (rw_ && !finished_) {
      context.TryCancel();
      (void)Finish();
    }
    cq_.Shutdown();
    void* tag;
    bool ok;
    while (cq_.Next(&tag, &ok)) {
    }
  }

  grpc::ClientContext context;

  bool Start(const std::string& request) {
    rw_ = stub_.PrepareCall(&context, method_, &cq_);
    rw_->StartCall(Tag());
    if (!Wait()) return false;
    grpc::Slice slice(request);
    grpc::ByteBuffer buffer(&slice, 1);
    rw_->Write(buffer, Tag());
    if (!Wait()) return false;
    rw_->WritesDone(Tag());
    return Wait();
  }

  // The next message; false at the end of the stream. While it waits,
  // `gone` is asked twice a second: when it says the client went away, the
  // call is cancelled (and the read then ends).
  bool Read(std::string* message, const std::function<bool()>& gone = {}) {
    grpc::ByteBuffer buffer;
    rw_->Read(&buffer, Tag());
    if (!Wait(gone)) return false;
    std::vector<grpc::Slice> slices;
    (void)buffer.Dump(&slices);
    message->clear();
    for (const grpc::Slice& s : slices) {
      message->append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
    return true;
  }

  grpc::Status Finish() {
    grpc::Status status;
    rw_->Finish(&status, Tag());
    Wait();
    finished_ = true;
    return status;
  }

  std::string Trailers(const grpc::Status& status) {
    std::string t = StrCat(
        "grpc-status:", static_cast<int>(status.error_code()),
        "\r\ngrpc-message:", PercentEncode(status.error_message()), "\r\n");
    for (const auto& [key, value] : context.GetServerTrailingMetadata()) {
      t += StrCat(std::string(key.data(), key.size()), ":",
                  std::string(value.data(), value.size()), "\r\n");
    }
    return t;
  }

 private:
  void* Tag() { return reinterpret_cast<void*>(++tag_); }
  bool Wait(const std::function<bool()>& gone = {}) {
    void* tag;
    bool ok = false;
    bool cancelled = false;
    for (;;) {
      auto deadline =
          std::chrono::system_clock::now() + std::chrono::milliseconds(500);
      grpc::CompletionQueue::NextStatus next =
          gone ? cq_.AsyncNext(&tag, &ok, deadline)
               : (cq_.Next(&tag, &ok) ? grpc::CompletionQueue::GOT_EVENT
                                      : grpc::CompletionQueue::SHUTDOWN);
      if (next == grpc::CompletionQueue::GOT_EVENT) return ok;
      if (next == grpc::CompletionQueue::SHUTDOWN) return false;
      if (!cancelled && gone()) {
        context.TryCancel();  // the client went away without a word
        cancelled = true;
      }
    }
  }

  grpc::GenericStub& stub_;
  std::string method_;
  grpc::CompletionQueue cq_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> rw_;
  bool finished_ = false;
  uintptr_t tag_ = 0;
};

// Open server streams, bounded in all, per client (the principal of a
// valid bearer token, else its address) and, where tokens are required,
// for calls without a valid token.
class StreamLimits {
 public:
  explicit StreamLimits(const GrpcWebOptions& o) : options_(o) {}

  // A refusal's reason, or empty when the stream may open (then Release
  // must follow).
  std::string Acquire(const std::string& client, bool anonymous) {
    absl::MutexLock lock(&mu_);
    if (total_ >= options_.max_streams) {
      return StrCat("the daemon has ", total_,
                    " grpc-web streams open, its limit (max_http_streams); "
                    "try again when one ends");
    }
    auto held = per_client_.find(client);
    const int mine = held == per_client_.end() ? 0 : held->second;
    if (mine >= options_.max_streams_per_client) {
      return StrCat("this client has ", mine,
                    " grpc-web streams open, the limit per client "
                    "(max_http_streams_per_client); close one first");
    }
    if (anonymous && options_.tokens_required &&
        anonymous_ >= options_.max_anonymous_streams) {
      return StrCat(anonymous_,
                    " grpc-web streams without a token are open, the limit "
                    "(max_http_anonymous_streams)");
    }
    ++total_;
    ++per_client_[client];
    if (anonymous) ++anonymous_;
    return "";
  }

  void Release(const std::string& client, bool anonymous) {
    absl::MutexLock lock(&mu_);
    --total_;
    if (--per_client_[client] == 0) per_client_.erase(client);
    if (anonymous) --anonymous_;
  }

 private:
  const GrpcWebOptions options_;
  absl::Mutex mu_;
  int total_ ABSL_GUARDED_BY(mu_) = 0;
  int anonymous_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> per_client_ ABSL_GUARDED_BY(mu_);
};

struct Context {
  explicit Context(const GrpcWebOptions& o) : options(o), streams(o) {}
  GrpcWebOptions options;
  std::unique_ptr<grpc::GenericStub> stub;
  StreamLimits streams;
};

void AllowOrigin(const Context& c, const HttpRequest& req,
                 HttpHeaders& headers) {
  std::string origin = req.Header("origin");
  if (origin.empty() || !c.options.cors_origins.count(origin)) return;
  headers.push_back({"Access-Control-Allow-Origin", origin});
  headers.push_back({"Vary", "Origin"});
  headers.push_back({"Access-Control-Expose-Headers",
                     "grpc-status, grpc-message, grpc-status-details-bin"});
}

void TrailersOnly(HttpResponder& res, HttpHeaders headers,
                  const grpc::Status& status, const std::string& content_type) {
  headers.push_back({"Content-Type", content_type});
  headers.push_back(
      {"grpc-status", std::to_string(static_cast<int>(status.error_code()))});
  headers.push_back({"grpc-message", PercentEncode(status.error_message())});
  res.Send(200, headers, "");
}

// The call's metadata and deadline from the request's headers; false for a
// malformed grpc-timeout.
bool Prepare(const HttpRequest& req, grpc::ClientContext& context) {
  for (const auto& [name, value] : req.headers) {
    if (HttpOnly(name) || !ValidMetadataKey(name) ||
        !ValidMetadataValue(value)) {
      continue;
    }
    context.AddMetadata(name, value);
  }
  auto deadline = std::chrono::system_clock::now() + std::chrono::hours(24);
  if (req.HasHeader("grpc-timeout")) {
    std::optional<int64_t> micros =
        grpc_web::ParseTimeout(req.Header("grpc-timeout"));
    if (!micros) return false;
    deadline = std::min(deadline, std::chrono::system_clock::now() +
                                      std::chrono::microseconds(*micros));
  }
  context.set_deadline(deadline);
  return true;
}

// A server stream: each message flushed as it arrives, the trailers last.
void Stream(Call& call, std::string message, bool text, HttpResponder& res,
            HttpHeaders headers, const std::string& response_type) {
  auto encode = [text](const std::string& frame) {
    return text ? absl::Base64Escape(frame) : frame;
  };
  headers.push_back({"Content-Type", response_type});
  if (!res.StartStream(200, headers)) return;
  auto gone = [&res] { return res.ClientGone(); };
  bool more = true;
  while (more) {
    if (!res.Write(encode(Frame(0, message)))) {
      call.context.TryCancel();  // the browser went away
      return;
    }
    more = call.Read(&message, gone);
  }
  grpc::Status status = call.Finish();
  res.Write(encode(Frame(0x80, call.Trailers(status))));
  res.EndStream();
}

void Handle(Context& c, const HttpRequest& req, HttpResponder& res) {
  HttpHeaders headers;
  AllowOrigin(c, req, headers);
  const std::string type = Lower(req.Header("content-type"));
  const bool text = type.rfind("application/grpc-web-text", 0) == 0;
  if (type != "application/grpc-web" && type != "application/grpc-web+proto" &&
      type != "application/grpc-web-text" &&
      type != "application/grpc-web-text+proto") {
    headers.push_back({"Content-Type", "text/plain"});
    res.Send(415, headers, "webnnmd: this endpoint speaks grpc-web\n");
    return;
  }
  const std::string response_type =
      text ? "application/grpc-web-text+proto" : "application/grpc-web+proto";
  auto fail = [&](grpc::StatusCode code, const std::string& message) {
    TrailersOnly(res, headers, grpc::Status(code, message), response_type);
  };
  Shape shape = MethodShape(req.path);
  if (shape == Shape::kUnknown) {
    return fail(grpc::StatusCode::UNIMPLEMENTED,
                StrCat("no method ", req.path, " over grpc-web"));
  }
  if (shape == Shape::kOther) {
    return fail(grpc::StatusCode::UNIMPLEMENTED,
                "grpc-web carries unary and server-streaming calls only");
  }
  absl::StatusOr<std::string> message = grpc_web::DecodeRequest(text, req.body);
  if (!message.ok()) {
    return fail(grpc::StatusCode::INVALID_ARGUMENT,
                std::string(message.status().message()));
  }
  // A stream holds a worker while it lasts: it must fit the limits. The
  // client is its principal when its token is valid, else its address (an
  // invented token is no one, and counts as anonymous).
  std::optional<std::string> principal;
  if (c.options.principal_of) {
    principal = c.options.principal_of(req.Header("authorization"));
  }
  const bool anonymous = !principal.has_value();
  const std::string client =
      principal ? "principal " + *principal : "address " + req.remote_ip;
  const bool streaming = shape == Shape::kServerStreaming;
  if (streaming) {
    std::string refused = c.streams.Acquire(client, anonymous);
    if (!refused.empty()) {
      return fail(grpc::StatusCode::RESOURCE_EXHAUSTED, refused);
    }
  }
  struct Release {
    Context& c;
    const std::string& client;
    bool anonymous, active;
    ~Release() {
      if (active) c.streams.Release(client, anonymous);
    }
  } release{c, client, anonymous, streaming};

  Call call(*c.stub, req.path);
  if (!Prepare(req, call.context)) {
    return fail(grpc::StatusCode::INVALID_ARGUMENT, "malformed grpc-timeout");
  }
  if (!call.Start(*message)) {
    return fail(call.Finish().error_code(), "the call could not start");
  }
  std::string first;
  bool have_first = call.Read(&first, [&res] { return res.ClientGone(); });
  if (!have_first) {
    grpc::Status status = call.Finish();
    if (!status.ok()) return fail(status.error_code(), status.error_message());
  }
  headers.push_back({"X-Accel-Buffering", "no"});
  if (!streaming || !have_first) {
    std::string out;
    if (have_first) out += Frame(0, first);
    grpc::Status status = have_first ? call.Finish() : grpc::Status::OK;
    if (have_first && !status.ok()) {
      return fail(status.error_code(), status.error_message());
    }
    out += Frame(0x80, call.Trailers(status));
    headers.push_back({"Content-Type", response_type});
    res.Send(200, headers, text ? absl::Base64Escape(out) : out);
    return;
  }
  Stream(call, std::move(first), text, res, std::move(headers), response_type);
}

void Preflight(const Context& c, const HttpRequest& req, HttpResponder& res) {
  std::string origin = req.Header("origin");
  if (origin.empty() || !c.options.cors_origins.count(origin)) {
    res.Send(403, {}, "");
    return;
  }
  std::string asked = req.Header("access-control-request-headers");
  res.Send(204,
           {{"Access-Control-Allow-Origin", origin},
            {"Vary", "Origin"},
            {"Access-Control-Allow-Methods", "POST, OPTIONS"},
            {"Access-Control-Allow-Headers",
             asked.empty() ? "content-type, x-grpc-web, x-user-agent, "
                             "grpc-timeout, authorization"
                           : asked},
            {"Access-Control-Max-Age", "86400"}},
           "");
}

// ONNX Runtime Web's files the job page loads (in_browser.js), from the
// configured folder: by these names only, never a path the client makes.
void ServeRuntime(const Context& c, const HttpRequest& req,
                  HttpResponder& res) {
  static constexpr const char* kFiles[] = {
      "ort.wasm.min.mjs",
      "ort-wasm-simd-threaded.mjs",
      "ort-wasm-simd-threaded.wasm",
      "ort.webgpu.min.mjs",
      "ort-wasm-simd-threaded.asyncify.mjs",
      "ort-wasm-simd-threaded.asyncify.wasm"};
  const std::string name = req.path.substr(std::string("/ort/").size());
  bool known = false;
  for (const char* f : kFiles) known |= name == f;
  std::ifstream in(c.options.web_runtime_dir + "/" + name, std::ios::binary);
  if (c.options.web_runtime_dir.empty() || !known || !in) {
    res.Send(404, {{"Content-Type", "text/plain"}},
             "no ONNX Runtime Web here (webnnmd --web-runtime DIR)\n");
    return;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  res.Send(200,
           {{"Content-Type",
             name.ends_with(".wasm") ? "application/wasm" : "text/javascript"},
            {"Cache-Control", "max-age=3600"},
            {"X-Content-Type-Options", "nosniff"},
            {"Access-Control-Allow-Origin", "*"}},
           bytes.str());
}

// The front end, embedded: same origin as the API, so no CORS. Its scripts
// may compile WebAssembly, nothing else dynamic. The in-browser runner
// (runner.html) runs sandboxed — an opaque origin, without the token or
// the API — and only there may ONNX Runtime Web's WebNN build evaluate
// code; its script and the runtime's files are fetched from that opaque
// origin, hence the CORS header.
void ServeAsset(const HttpRequest& req, HttpResponder& res) {
  std::string path = req.path == "/"              ? "/index.html"
                     : req.path == "/favicon.ico" ? "/favicon.svg"
                                                  : req.path;
  for (size_t i = 0; i < kWebAssetCount; ++i) {
    const WebAsset& a = kWebAssets[i];
    if (path != a.path) continue;
    HttpHeaders headers = {{"Content-Type", a.content_type},
                           {"Cache-Control", "no-cache"},
                           {"X-Content-Type-Options", "nosniff"}};
    if (path == "/runner.html") {
      headers.push_back(
          {"Content-Security-Policy",
           "sandbox allow-scripts; default-src 'none'; script-src 'self' "
           "'wasm-unsafe-eval' 'unsafe-eval'; connect-src 'self'"});
    } else {
      headers.push_back({"Content-Security-Policy",
                         "default-src 'self'; script-src 'self' "
                         "'wasm-unsafe-eval'; style-src 'self' "
                         "'unsafe-inline'"});
    }
    if (path == "/runner.js") {
      headers.push_back({"Access-Control-Allow-Origin", "*"});
    }
    res.Send(200, headers,
             std::string_view(reinterpret_cast<const char*>(a.data), a.size));
    return;
  }
  res.Send(404, {{"Content-Type", "text/plain"}}, "not found\n");
}

bool IsMethodPath(const std::string& path) {
  // /<service>/<method>: two non-empty segments.
  if (path.size() < 4 || path[0] != '/') return false;
  size_t slash = path.find('/', 1);
  return slash != std::string::npos && slash > 1 && slash + 1 < path.size() &&
         path.find('/', slash + 1) == std::string::npos;
}

// One unary call through the in-process channel, with the request's
// headers as metadata (KServe over HTTP).
grpc::Status Unary(Context& c, const std::string& method,
                   const std::string& message, const HttpRequest& req,
                   std::string* answer) {
  Call call(*c.stub, method);
  if (!Prepare(req, call.context)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "malformed grpc-timeout");
  }
  if (!call.Start(message)) return call.Finish();
  const bool got = call.Read(answer);
  grpc::Status status = call.Finish();
  if (status.ok() && !got) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "no answer");
  }
  return status;
}

void Route(Context& c, const HttpRequest& req, HttpResponder& res) {
  if (c.options.also && c.options.also(req, res)) return;
  auto unary = [&c](const std::string& method, const std::string& message,
                    const HttpRequest& http, std::string* answer) {
    return Unary(c, method, message, http, answer);
  };
  if (ServeKServeHttp(unary, req, res)) return;
  if (req.method == "POST" && IsMethodPath(req.path))
    return Handle(c, req, res);
  if (req.method == "OPTIONS") return Preflight(c, req, res);
  if ((req.method == "GET" || req.method == "HEAD") &&
      req.path.starts_with("/ort/")) {
    return ServeRuntime(c, req, res);
  }
  if (req.method == "GET" || req.method == "HEAD") return ServeAsset(req, res);
  res.Send(405,
           {{"Content-Type", "text/plain"}, {"Allow", "GET, POST, OPTIONS"}},
           "webnnmd: GET, POST (grpc-web) and OPTIONS only\n");
}

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcWebBridge>> GrpcWebBridge::Start(
    grpc::Server& server, GrpcWebOptions options) {
  size_t colon = options.listen.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(
        StrCat("--http-listen takes HOST:PORT, not '", options.listen, "'"));
  }
  std::string host = options.listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int port = std::atoi(options.listen.substr(colon + 1).c_str());
  // Each stream holds a worker: a few are always left for the rest.
  options.threads = std::max(4, options.threads);
  options.max_streams =
      std::clamp(options.max_streams, 1, std::max(1, options.threads - 4));
  auto context = std::make_shared<Context>(options);
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(static_cast<int>(
      std::min<int64_t>(options.max_message_bytes, INT32_MAX)));
  context->stub =
      std::make_unique<grpc::GenericStub>(server.InProcessChannel(args));

  HttpServerOptions http;
  http.host = host;
  http.port = port;
  http.workers = options.threads;
  http.max_connections = options.max_connections;
  // The body limit: one message plus its frame (base64 is 4/3 larger).
  http.max_body_bytes = options.max_message_bytes / 3 * 4 + 64;
  http.request_timeout = options.request_timeout;
  http.tls_certificate = options.tls_certificate;
  http.tls_private_key = options.tls_private_key;
  absl::StatusOr<std::unique_ptr<HttpServer>> started = HttpServer::Start(
      http, [context](const HttpRequest& req, HttpResponder& res) {
        Route(*context, req, res);
      });
  if (!started.ok()) return started.status();
  std::unique_ptr<GrpcWebBridge> bridge(new GrpcWebBridge);
  bridge->http_ = std::move(*started);
  return bridge;
}

int GrpcWebBridge::port() const { return http_ ? http_->port() : 0; }

void GrpcWebBridge::Stop() {
  if (http_) http_->Stop();
}

GrpcWebBridge::~GrpcWebBridge() { Stop(); }

}  // namespace webnnm::server
