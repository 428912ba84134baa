#include "server/rpc/grpc_web.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>

#include <google/protobuf/descriptor.h>
#include <grpcpp/generic/generic_stub.h>

#include "absl/strings/escaping.h"
#include "engine/base/strings.h"
#include "server/rpc/web_assets.h"

namespace webnnm::server {
namespace grpc_web {

namespace {

// The timeout's microseconds, unbounded.
std::optional<int64_t> RawTimeout(const std::string& value) {
  if (value.size() < 2 || value.size() > 9) return std::nullopt;
  int64_t n = 0;
  for (size_t i = 0; i + 1 < value.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(value[i])))
      return std::nullopt;
    n = n * 10 + (value[i] - '0');
  }
  switch (value.back()) {
    case 'H':
      return n * 3600 * 1000000;
    case 'M':
      return n * 60 * 1000000;
    case 'S':
      return n * 1000000;
    case 'm':
      return n * 1000;
    case 'u':
      return n;
    case 'n':
      return n / 1000;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<int64_t> ParseTimeout(const std::string& value) {
  // At most 8 digits and a unit; the result is clamped to kMaxTimeout, so
  // that 99999999H (11,000 years) is a long deadline, not an overflow.
  constexpr int64_t kMaxTimeout = int64_t{366} * 24 * 3600 * 1000000;
  std::optional<int64_t> micros = RawTimeout(value);
  if (!micros) return std::nullopt;
  return std::min(*micros, kMaxTimeout);
}

std::string PercentEncode(const std::string& text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c <= 0x7e && c != '%') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

absl::StatusOr<std::string> DecodeRequest(bool text, const std::string& body) {
  std::string bytes = body;
  if (text) {
    std::string compact;
    for (char ch : body) {
      if (!std::isspace(static_cast<unsigned char>(ch))) compact += ch;
    }
    if (!absl::Base64Unescape(compact, &bytes)) {
      return absl::InvalidArgumentError("the grpc-web-text body is not base64");
    }
  }
  if (bytes.size() < 5 || bytes[0] != 0) {
    return absl::InvalidArgumentError(
        "the request needs one uncompressed grpc-web DATA frame");
  }
  uint32_t length =
      (static_cast<uint32_t>(static_cast<uint8_t>(bytes[1])) << 24) |
      (static_cast<uint32_t>(static_cast<uint8_t>(bytes[2])) << 16) |
      (static_cast<uint32_t>(static_cast<uint8_t>(bytes[3])) << 8) |
      static_cast<uint32_t>(static_cast<uint8_t>(bytes[4]));
  if (length != bytes.size() - 5) {
    return absl::InvalidArgumentError(
        "the grpc-web frame's length does not match the body");
  }
  return bytes.substr(5);
}

std::string Frame(uint8_t flags, const std::string& payload) {
  std::string frame(5, '\0');
  frame[0] = static_cast<char>(flags);
  uint32_t n = static_cast<uint32_t>(payload.size());
  frame[1] = static_cast<char>(n >> 24);
  frame[2] = static_cast<char>(n >> 16);
  frame[3] = static_cast<char>(n >> 8);
  frame[4] = static_cast<char>(n);
  return frame + payload;
}

}  // namespace grpc_web

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

  bool Read(std::string* message) {
    grpc::ByteBuffer buffer;
    rw_->Read(&buffer, Tag());
    if (!Wait()) return false;
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
  bool Wait() {
    void* tag;
    bool ok = false;
    if (!cq_.Next(&tag, &ok)) return false;
    return ok;
  }

  grpc::GenericStub& stub_;
  std::string method_;
  grpc::CompletionQueue cq_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> rw_;
  bool finished_ = false;
  uintptr_t tag_ = 0;
};

struct Context {
  GrpcWebOptions options;
  std::unique_ptr<grpc::GenericStub> stub;
};

void AllowOrigin(const Context& c, const httplib::Request& req,
                 httplib::Response& res) {
  std::string origin = req.get_header_value("Origin");
  if (origin.empty() || !c.options.cors_origins.count(origin)) return;
  res.set_header("Access-Control-Allow-Origin", origin);
  res.set_header("Vary", "Origin");
  res.set_header("Access-Control-Expose-Headers",
                 "grpc-status, grpc-message, grpc-status-details-bin");
}

void TrailersOnly(httplib::Response& res, const grpc::Status& status,
                  const std::string& content_type) {
  res.status = 200;
  res.set_header("grpc-status",
                 std::to_string(static_cast<int>(status.error_code())));
  res.set_header("grpc-message", PercentEncode(status.error_message()));
  res.set_content("", content_type.c_str());
}

void Handle(Context& c, const httplib::Request& req, httplib::Response& res) {
  AllowOrigin(c, req, res);
  const std::string type = Lower(req.get_header_value("Content-Type"));
  const bool text = type.rfind("application/grpc-web-text", 0) == 0;
  if (type != "application/grpc-web" && type != "application/grpc-web+proto" &&
      type != "application/grpc-web-text" &&
      type != "application/grpc-web-text+proto") {
    res.status = 415;
    res.set_content("webnnmd: this endpoint speaks grpc-web\n", "text/plain");
    return;
  }
  const std::string response_type =
      text ? "application/grpc-web-text+proto" : "application/grpc-web+proto";
  auto fail = [&](grpc::StatusCode code, const std::string& message) {
    TrailersOnly(res, grpc::Status(code, message), response_type);
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

  auto call = std::make_shared<Call>(*c.stub, req.path);
  for (const auto& [name, value] : req.headers) {
    std::string key = Lower(name);
    if (HttpOnly(key) || !ValidMetadataKey(key) || !ValidMetadataValue(value)) {
      continue;
    }
    call->context.AddMetadata(key, value);
  }
  auto deadline = std::chrono::system_clock::now() + std::chrono::hours(24);
  if (req.has_header("grpc-timeout")) {
    std::optional<int64_t> micros =
        grpc_web::ParseTimeout(req.get_header_value("grpc-timeout"));
    if (!micros) {
      return fail(grpc::StatusCode::INVALID_ARGUMENT, "malformed grpc-timeout");
    }
    deadline = std::min(deadline, std::chrono::system_clock::now() +
                                      std::chrono::microseconds(*micros));
  }
  call->context.set_deadline(deadline);
  if (!call->Start(*message)) {
    return fail(call->Finish().error_code(), "the call could not start");
  }
  std::string first;
  bool have_first = call->Read(&first);
  if (!have_first) {
    grpc::Status status = call->Finish();
    if (!status.ok()) return fail(status.error_code(), status.error_message());
  }
  auto encode = [text](const std::string& frame) {
    return text ? absl::Base64Escape(frame) : frame;
  };
  res.status = 200;
  res.set_header("X-Accel-Buffering", "no");
  if (shape == Shape::kUnary || !have_first) {
    std::string out;
    if (have_first) out += Frame(0, first);
    grpc::Status status = have_first ? call->Finish() : grpc::Status::OK;
    if (have_first && !status.ok()) {
      return fail(status.error_code(), status.error_message());
    }
    out += Frame(0x80, call->Trailers(status));
    res.set_content(encode(out), response_type.c_str());
    return;
  }
  // Server streaming: each message flushed as it arrives.
  res.set_chunked_content_provider(
      response_type, [call, first, encode](size_t, httplib::DataSink& sink) {
        std::string message = first;
        bool more = true;
        while (more) {
          std::string frame = encode(Frame(0, message));
          if (!sink.write(frame.data(), frame.size())) {
            call->context.TryCancel();  // the browser went away
            return false;
          }
          more = call->Read(&message);
        }
        grpc::Status status = call->Finish();
        std::string trailers = encode(Frame(0x80, call->Trailers(status)));
        sink.write(trailers.data(), trailers.size());
        sink.done();
        return true;
      });
}

void Preflight(const Context& c, const httplib::Request& req,
               httplib::Response& res) {
  std::string origin = req.get_header_value("Origin");
  if (origin.empty() || !c.options.cors_origins.count(origin)) {
    res.status = 403;
    return;
  }
  res.status = 204;
  res.set_header("Access-Control-Allow-Origin", origin);
  res.set_header("Vary", "Origin");
  res.set_header("Access-Control-Allow-Methods", "POST, OPTIONS");
  std::string asked = req.get_header_value("Access-Control-Request-Headers");
  res.set_header("Access-Control-Allow-Headers",
                 asked.empty() ? "content-type, x-grpc-web, x-user-agent, "
                                 "grpc-timeout, authorization"
                               : asked);
  res.set_header("Access-Control-Max-Age", "86400");
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
  auto context = std::make_shared<Context>();
  context->options = options;
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(static_cast<int>(
      std::min<int64_t>(options.max_message_bytes, INT32_MAX)));
  context->stub =
      std::make_unique<grpc::GenericStub>(server.InProcessChannel(args));

  std::unique_ptr<GrpcWebBridge> bridge(new GrpcWebBridge);
  bridge->http_ = std::make_unique<httplib::Server>();
  httplib::Server& http = *bridge->http_;
  int threads = std::max(4, options.threads);
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // The body limit: one message plus its frame (base64 is 4/3 larger).
  http.set_payload_max_length(
      static_cast<size_t>(options.max_message_bytes / 3 * 4 + 64));
  http.Post(R"(/[^/]+/[^/]+)",
            [context](const httplib::Request& req, httplib::Response& res) {
              Handle(*context, req, res);
            });
  http.Options(R"(/.*)",
               [context](const httplib::Request& req, httplib::Response& res) {
                 Preflight(*context, req, res);
               });
  // The front end, embedded: same origin as the API, so no CORS.
  http.Get(R"(/.*)", [](const httplib::Request& req, httplib::Response& res) {
    std::string path = req.path == "/" ? "/index.html" : req.path;
    for (size_t i = 0; i < kWebAssetCount; ++i) {
      const WebAsset& a = kWebAssets[i];
      if (path != a.path) continue;
      res.set_header("Cache-Control", "no-cache");
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_header("Content-Security-Policy",
                     "default-src 'self'; style-src 'self' 'unsafe-inline'");
      res.set_content(reinterpret_cast<const char*>(a.data), a.size,
                      a.content_type);
      return;
    }
    res.status = 404;
    res.set_content("not found\n", "text/plain");
  });
  int bound = port == 0 ? http.bind_to_any_port(host)
                        : (http.bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    return absl::UnavailableError(
        StrCat("cannot listen for HTTP on ", options.listen));
  }
  bridge->port_ = bound;
  bridge->thread_ = std::thread([&http] { http.listen_after_bind(); });
  return bridge;
}

void GrpcWebBridge::Stop() {
  if (http_) http_->stop();
  if (thread_.joinable()) thread_.join();
}

GrpcWebBridge::~GrpcWebBridge() { Stop(); }

}  // namespace webnnm::server
