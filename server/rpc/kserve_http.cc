// KServe v2 over HTTP/JSON as calls of the gRPC service (see the header).
#include "server/rpc/kserve_http.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/base/float16.h"
#include "engine/base/strings.h"
#include "inference/grpc_predict_v2.pb.h"

namespace webnnm::server {
namespace {

using nlohmann::json;
namespace kpb = inference;

constexpr char kService[] = "/inference.GRPCInferenceService/";

int HttpStatus(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 413;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    default:
      return 500;
  }
}

void SendJson(HttpResponder& res, int status, const json& body,
              HttpHeaders headers = {}) {
  headers.push_back({"Content-Type", "application/json"});
  headers.push_back({"Cache-Control", "no-store"});
  res.Send(status, headers, body.dump() + "\n");
}

void SendError(HttpResponder& res, int status, const std::string& message) {
  HttpHeaders headers;
  if (status == 401) headers.push_back({"WWW-Authenticate", "Bearer"});
  SendJson(res, status, json{{"error", message}}, headers);
}

// %XX decoded; nullopt for a malformed escape.
std::optional<std::string> PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    int value = 0;
    if (i + 2 >= s.size() ||
        std::from_chars(s.data() + i + 1, s.data() + i + 3, value, 16).ptr !=
            s.data() + i + 3) {
      return std::nullopt;
    }
    out.push_back(static_cast<char>(value));
    i += 2;
  }
  return out;
}

// A float as the shortest decimal that reads back as it, as a JSON number
// (null for NaN and infinities, which JSON has not).
json FloatNumber(float f) {
  if (!std::isfinite(f)) return nullptr;
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, f);
  double d = 0;
  std::from_chars(buffer, end, d);
  return d;
}

// The leaves of a (nested) JSON array, row-major.
void Flatten(const json& data, std::vector<const json*>& out) {
  if (data.is_array()) {
    for (const json& d : data) Flatten(d, out);
  } else {
    out.push_back(&data);
  }
}

template <typename T>
void Put(std::string& raw, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  raw.append(bytes, sizeof(T));
}

// One JSON value as `type`'s little-endian bytes; an error's text.
std::string Encode(const json& v, const std::string& type, std::string& raw) {
  if (type == "BOOL") {
    if (v.is_boolean()) return Put<uint8_t>(raw, v.get<bool>()), "";
    if (v.is_number_integer() && (v == 0 || v == 1)) {
      return Put<uint8_t>(raw, v.get<int>()), "";
    }
    return "takes true or false";
  }
  if (!v.is_number()) return "takes numbers";
  const double d = v.get<double>();
  if (type == "FP32") return Put<float>(raw, static_cast<float>(d)), "";
  if (type == "FP64") return Put<double>(raw, d), "";
  if (type == "FP16") return Put<uint16_t>(raw, DoubleToHalf(d)), "";
  if (!v.is_number_integer()) return "takes integers";
  auto in = [&](double lo, double hi) { return d >= lo && d <= hi; };
  auto fits = [&]<typename T>(T) {
    return in(static_cast<double>(std::numeric_limits<T>::min()),
              static_cast<double>(std::numeric_limits<T>::max()));
  };
  if (type == "INT8" && fits(int8_t{})) return Put(raw, v.get<int8_t>()), "";
  if (type == "INT16" && fits(int16_t{})) return Put(raw, v.get<int16_t>()), "";
  if (type == "INT32" && fits(int32_t{})) return Put(raw, v.get<int32_t>()), "";
  if (type == "INT64") return Put(raw, v.get<int64_t>()), "";
  if (type == "UINT8" && fits(uint8_t{})) return Put(raw, v.get<uint8_t>()), "";
  if (type == "UINT16" && fits(uint16_t{})) {
    return Put(raw, v.get<uint16_t>()), "";
  }
  if (type == "UINT32" && fits(uint32_t{})) {
    return Put(raw, v.get<uint32_t>()), "";
  }
  if (type == "UINT64" && d >= 0) return Put(raw, v.get<uint64_t>()), "";
  static const char* kKnown[] = {"INT8",  "INT16",  "INT32",  "INT64",
                                 "UINT8", "UINT16", "UINT32", "UINT64"};
  for (const char* k : kKnown) {
    if (type == k) return StrCat("holds ", v.dump(), ", outside ", type);
  }
  return StrCat("has data type '", type.substr(0, 40),
                "', not one of BOOL, INT8..INT64, UINT8..UINT64, FP16, FP32, "
                "FP64");
}

// The request's JSON as ModelInferRequest (every input's raw contents); an
// error's text.
std::string InferRequest(const json& body, kpb::ModelInferRequest& r) {
  if (!body.is_object()) return "the body is not a JSON object";
  if (body.contains("id")) {
    if (!body["id"].is_string()) return "'id' is not a string";
    r.set_id(body["id"].get<std::string>());
  }
  if (!body.contains("inputs") || !body["inputs"].is_array()) {
    return "the body has no 'inputs' array";
  }
  for (const json& in : body["inputs"]) {
    if (!in.is_object() || !in.contains("name") || !in["name"].is_string()) {
      return "an input without a 'name'";
    }
    const std::string name = in["name"].get<std::string>();
    auto* t = r.add_inputs();
    t->set_name(name);
    if (!in.contains("datatype") || !in["datatype"].is_string()) {
      return StrCat("input '", name, "' has no 'datatype'");
    }
    t->set_datatype(in["datatype"].get<std::string>());
    if (!in.contains("shape") || !in["shape"].is_array()) {
      return StrCat("input '", name, "' has no 'shape'");
    }
    double count = 1;
    for (const json& e : in["shape"]) {
      if (!e.is_number_integer() || e.get<int64_t>() < 0) {
        return StrCat("input '", name, "': 'shape' takes sizes >= 0");
      }
      t->add_shape(e.get<int64_t>());
      count *= e.get<double>();
    }
    std::vector<const json*> leaves;
    if (in.contains("data")) Flatten(in["data"], leaves);
    if (static_cast<double>(leaves.size()) != count) {
      return StrCat("input '", name, "' has ", leaves.size(),
                    " values in 'data' for shape ", in["shape"].dump());
    }
    std::string* raw = r.add_raw_input_contents();
    for (const json* v : leaves) {
      std::string bad = Encode(*v, t->datatype(), *raw);
      if (!bad.empty()) return StrCat("input '", name, "' ", bad);
    }
  }
  if (body.contains("outputs")) {
    if (!body["outputs"].is_array()) return "'outputs' is not an array";
    for (const json& out : body["outputs"]) {
      if (!out.is_object() || !out.contains("name") ||
          !out["name"].is_string()) {
        return "an output without a 'name'";
      }
      auto* o = r.add_outputs();
      o->set_name(out["name"].get<std::string>());
      if (out.contains("parameters") && out["parameters"].is_object() &&
          out["parameters"].contains("classification")) {
        const json& k = out["parameters"]["classification"];
        (*o->mutable_parameters())["classification"].set_int64_param(
            k.is_number_integer() ? k.get<int64_t>() : 0);
      }
    }
  }
  return "";
}

// An answer's outputs as JSON (they come back raw: FP32, or BYTES).
json InferAnswer(const kpb::ModelInferResponse& r) {
  json outputs = json::array();
  for (int i = 0; i < r.outputs_size(); ++i) {
    const auto& o = r.outputs(i);
    const std::string raw =
        i < r.raw_output_contents_size() ? r.raw_output_contents(i) : "";
    json data = json::array();
    if (o.datatype() == "BYTES") {
      for (size_t at = 0; at + 4 <= raw.size();) {
        uint32_t n = 0;
        for (int b = 0; b < 4; ++b) {
          n |= static_cast<uint32_t>(static_cast<uint8_t>(raw[at + b]))
               << (8 * b);
        }
        data.push_back(raw.substr(at + 4, n));
        at += 4 + n;
      }
    } else {
      for (size_t at = 0; at + 4 <= raw.size(); at += 4) {
        float f;
        std::memcpy(&f, raw.data() + at, 4);
        data.push_back(FloatNumber(f));
      }
    }
    outputs.push_back({{"name", o.name()},
                       {"datatype", o.datatype()},
                       {"shape", o.shape()},
                       {"data", std::move(data)}});
  }
  json answer = {{"model_name", r.model_name()},
                 {"model_version", r.model_version()},
                 {"outputs", std::move(outputs)}};
  if (!r.id().empty()) answer["id"] = r.id();
  return answer;
}

json MetadataAnswer(const kpb::ModelMetadataResponse& r) {
  auto tensors = [](const auto& list) {
    json out = json::array();
    for (const auto& t : list) {
      out.push_back({{"name", t.name()},
                     {"datatype", t.datatype()},
                     {"shape", t.shape()}});
    }
    return out;
  };
  return {{"name", r.name()},
          {"versions", r.versions()},
          {"platform", r.platform()},
          {"inputs", tensors(r.inputs())},
          {"outputs", tensors(r.outputs())}};
}

// Calls `method` with `request`; on success fills `answer` and returns
// true, else sends the error and returns false.
template <typename Request, typename Answer>
bool Call(const GrpcUnary& call, const std::string& method,
          const Request& request, const HttpRequest& http, HttpResponder& res,
          Answer& answer) {
  std::string bytes;
  grpc::Status s =
      call(StrCat(kService, method), request.SerializeAsString(), http, &bytes);
  if (s.ok() && !answer.ParseFromString(bytes)) {
    s = grpc::Status(grpc::StatusCode::INTERNAL, "a malformed answer");
  }
  if (!s.ok()) {
    SendError(res, HttpStatus(s.error_code()), s.error_message());
    return false;
  }
  return true;
}

// /v2/models/NAME[/versions/V][/ready|/infer].
void ServeModel(const GrpcUnary& call, const std::vector<std::string>& parts,
                const HttpRequest& req, HttpResponder& res) {
  const std::string& name = parts[0];
  std::string version, action;
  size_t at = 1;
  if (parts.size() > at + 1 && parts[at] == "versions") {
    version = parts[at + 1];
    at += 2;
  }
  if (parts.size() == at + 1) action = parts[at];
  if (parts.size() > at + 1 ||
      (!action.empty() && action != "ready" && action != "infer")) {
    return SendError(res, 404, StrCat("no such KServe path ", req.path));
  }
  const std::string wanted = action == "infer" ? "POST" : "GET";
  if (req.method != wanted) {
    return SendJson(res, 405,
                    json{{"error", StrCat(req.path, " takes ", wanted)}},
                    {{"Allow", wanted}});
  }
  if (action == "ready") {
    kpb::ModelReadyRequest r;
    r.set_name(name);
    r.set_version(version);
    kpb::ModelReadyResponse a;
    if (!Call(call, "ModelReady", r, req, res, a)) return;
    return SendJson(res, a.ready() ? 200 : 400,
                    json{{"name", name}, {"ready", a.ready()}});
  }
  if (action.empty()) {
    kpb::ModelMetadataRequest r;
    r.set_name(name);
    r.set_version(version);
    kpb::ModelMetadataResponse a;
    if (!Call(call, "ModelMetadata", r, req, res, a)) return;
    return SendJson(res, 200, MetadataAnswer(a));
  }
  json body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return SendError(res, 400, "the body is not JSON");
  }
  kpb::ModelInferRequest r;
  r.set_model_name(name);
  r.set_model_version(version);
  if (std::string bad = InferRequest(body, r); !bad.empty()) {
    return SendError(res, 400, bad);
  }
  kpb::ModelInferResponse a;
  if (!Call(call, "ModelInfer", r, req, res, a)) return;
  SendJson(res, 200, InferAnswer(a));
}

}  // namespace

bool ServeKServeHttp(const GrpcUnary& call, const HttpRequest& req,
                     HttpResponder& res) {
  const std::string& path = req.path;
  if (path != "/v2" && !path.starts_with("/v2/")) return false;
  std::vector<std::string> parts;
  for (size_t at = 4; at <= path.size() && path.size() > 3;) {
    size_t slash = std::min(path.find('/', at), path.size());
    std::optional<std::string> part =
        PercentDecode(std::string_view(path).substr(at, slash - at));
    if (!part) {
      SendError(res, 400, "a malformed %-escape in the path");
      return true;
    }
    parts.push_back(std::move(*part));
    at = slash + 1;
  }
  if (parts.size() >= 2 && parts[0] == "models" && !parts[1].empty()) {
    ServeModel(call, {parts.begin() + 1, parts.end()}, req, res);
    return true;
  }
  const bool get = req.method == "GET";
  if (parts.empty() || (parts.size() == 2 && parts[0] == "health" &&
                        (parts[1] == "live" || parts[1] == "ready"))) {
    if (!get) {
      SendJson(res, 405, json{{"error", StrCat(path, " takes GET")}},
               {{"Allow", "GET"}});
    } else if (parts.empty()) {
      kpb::ServerMetadataResponse a;
      if (Call(call, "ServerMetadata", kpb::ServerMetadataRequest(), req, res,
               a)) {
        SendJson(res, 200,
                 {{"name", a.name()},
                  {"version", a.version()},
                  {"extensions", json::array({"classification"})}});
      }
    } else if (parts[1] == "live") {
      kpb::ServerLiveResponse a;
      if (Call(call, "ServerLive", kpb::ServerLiveRequest(), req, res, a)) {
        SendJson(res, 200, {{"live", a.live()}});
      }
    } else {
      kpb::ServerReadyResponse a;
      if (Call(call, "ServerReady", kpb::ServerReadyRequest(), req, res, a)) {
        SendJson(res, a.ready() ? 200 : 503, {{"ready", a.ready()}});
      }
    }
    return true;
  }
  SendError(res, 404, StrCat("no such KServe path ", path));
  return true;
}

}  // namespace webnnm::server
