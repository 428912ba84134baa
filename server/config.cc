#include "server/config.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <array>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include "engine/base/strings.h"
#include "webnnm/v1/config.pb.h"

namespace webnnm::server {
namespace {

class Collector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first.empty()) {
      first = StrCat(line + 1, ":", column + 1, ": ", message);
    }
  }
  std::string first;
};

}  // namespace

absl::StatusOr<Settings> LoadSettings(const std::string& path) {
  Settings s;
  // A job reads its data under the limit its submission is checked with.
  s.jobs.max_dataset_bytes = s.limits.max_dataset_bytes;
  if (path.empty()) return s;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(StrCat("cannot read the config '", path, "'"));
  }
  std::stringstream text;
  text << in.rdbuf();
  v1::DaemonConfig c;
  google::protobuf::TextFormat::Parser parser;
  Collector errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text.str(), &c)) {
    return absl::InvalidArgumentError(
        StrCat(path, ":", errors.first.empty() ? "malformed" : errors.first));
  }
  auto positive = [&](std::string_view field, int64_t v) -> absl::Status {
    if (v < 0) {
      return absl::InvalidArgumentError(
          StrCat(path, ": ", field, " must not be negative"));
    }
    return absl::OkStatus();
  };
  for (auto [field, v] :
       std::initializer_list<std::pair<std::string_view, int64_t>>{
           {"workers", c.workers()},
           {"threads", c.threads()},
           {"max_message_bytes", c.max_message_bytes()},
           {"max_model_bytes", c.max_model_bytes()},
           {"max_dataset_bytes", c.max_dataset_bytes()},
           {"max_queued_jobs", c.max_queued_jobs()},
           {"max_infer_elements", c.max_infer_elements()},
           {"snapshot_retention", c.snapshot_retention()},
           {"restart_budget", c.restart_budget()},
           {"max_http_streams", c.max_http_streams()},
           {"max_http_streams_per_client", c.max_http_streams_per_client()},
           {"max_http_anonymous_streams", c.max_http_anonymous_streams()},
           {"max_http_connections", c.max_http_connections()},
           {"http_request_timeout_seconds", c.http_request_timeout_seconds()},
           {"upload_idle_timeout_seconds", c.upload_idle_timeout_seconds()},
           {"max_open_uploads", c.max_open_uploads()},
           {"max_open_upload_bytes", c.max_open_upload_bytes()},
           {"lease_seconds", c.lease_seconds()},
           {"max_replicas", c.max_replicas()},
           {"gloo_timeout_seconds", c.gloo_timeout_seconds()}}) {
    if (absl::Status st = positive(field, v); !st.ok()) return st;
  }
  if (!c.listen().empty()) s.listen = c.listen();
  if (!c.database().empty()) s.database = c.database();
  s.node = c.node();
  s.cache_folder = c.cache_folder();
  if (c.lease_seconds() > 0) {
    if (c.lease_seconds() < 2 || c.lease_seconds() > 3600) {
      return absl::InvalidArgumentError(
          StrCat(path, ": lease_seconds must be within 2..3600"));
    }
    s.jobs.lease = std::chrono::seconds(c.lease_seconds());
  }
  if (c.max_replicas() > 0) {
    if (c.max_replicas() > 64) {
      return absl::InvalidArgumentError(
          StrCat(path, ": max_replicas is at most 64"));
    }
    s.max_replicas = c.max_replicas();
  }
  if (c.gloo_timeout_seconds() > 0) {
    s.gloo_timeout_seconds = std::min(3600, c.gloo_timeout_seconds());
  }
  if (!c.replica_address().empty()) s.replica_address = c.replica_address();
  s.tls_certificate = c.tls_certificate();
  s.tls_private_key = c.tls_private_key();
  if (s.tls_certificate.empty() != s.tls_private_key.empty()) {
    return absl::InvalidArgumentError(
        StrCat(path, ": TLS needs both tls_certificate and tls_private_key"));
  }
  s.tokens_file = c.tokens_file();
  s.http_listen = c.http_listen();
  s.web_runtime_dir = c.web_runtime_dir();
  s.metrics_listen = c.metrics_listen();
  s.metrics_without_token = c.metrics_without_token();
  if (c.infer_batch_window_us() > 100000) {
    return absl::InvalidArgumentError(
        StrCat(path, ": infer_batch_window_us is at most 100000 (0.1 s)"));
  }
  s.infer_batch_window_us = c.infer_batch_window_us();
  s.cors_origins.insert(c.cors_origins().begin(), c.cors_origins().end());
  if (c.workers() > 0) s.jobs.workers = c.workers();
  if (c.threads() > 0) s.jobs.threads = c.threads();
  if (!c.default_backend().empty())
    s.jobs.default_backend = c.default_backend();
  if (c.max_message_bytes() > 0) {
    if (c.max_message_bytes() < (2 << 20)) {
      return absl::InvalidArgumentError(
          StrCat(path, ": max_message_bytes must be at least 2 MiB (", 2 << 20,
                 "): uploads come in chunks of 1 MiB"));
    }
    s.max_message_bytes = c.max_message_bytes();
  }
  if (c.max_model_bytes() > 0) s.limits.max_model_bytes = c.max_model_bytes();
  if (c.max_dataset_bytes() > 0) {
    s.limits.max_dataset_bytes = c.max_dataset_bytes();
  }
  if (c.max_queued_jobs() > 0) s.limits.max_queued_jobs = c.max_queued_jobs();
  if (c.max_infer_elements() > 0) {
    s.limits.max_infer_elements = c.max_infer_elements();
  }
  if (c.has_snapshot_retention()) s.snapshot_retention = c.snapshot_retention();
  if (c.has_restart_budget()) s.jobs.restart_budget = c.restart_budget();
  if (c.data_cache_bytes() > 0) s.jobs.data_cache_bytes = c.data_cache_bytes();
  if (c.max_http_streams() > 0) s.max_http_streams = c.max_http_streams();
  if (c.max_http_streams_per_client() > 0) {
    s.max_http_streams_per_client = c.max_http_streams_per_client();
  }
  if (c.max_http_anonymous_streams() > 0) {
    s.max_http_anonymous_streams = c.max_http_anonymous_streams();
  }
  if (c.max_http_connections() > 0) {
    s.max_http_connections = c.max_http_connections();
  }
  if (c.http_request_timeout_seconds() > 0) {
    s.http_request_timeout_seconds = c.http_request_timeout_seconds();
  }
  if (c.upload_idle_timeout_seconds() > 0) {
    s.limits.upload_idle_timeout =
        std::chrono::seconds(c.upload_idle_timeout_seconds());
  }
  if (c.max_open_uploads() > 0) s.limits.max_open_uploads = c.max_open_uploads();
  if (c.max_open_upload_bytes() > 0) {
    s.limits.max_open_upload_bytes = c.max_open_upload_bytes();
  }
  // A job reads its data under the limit its submission was checked with.
  s.jobs.max_dataset_bytes = s.limits.max_dataset_bytes;
  return s;
}

namespace {

// Decimal digits only, at most `most` of them, as a number.
std::optional<int> Decimal(std::string_view text, size_t most) {
  if (text.empty() || text.size() > most) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// The four octets of a dotted-quad IPv4 literal.
std::optional<std::array<int, 4>> Ipv4(std::string_view host) {
  std::array<int, 4> octets{};
  for (int i = 0; i < 4; ++i) {
    const size_t dot = i < 3 ? host.find('.') : host.size();
    if (dot == std::string_view::npos) return std::nullopt;
    std::optional<int> octet = Decimal(host.substr(0, dot), 3);
    if (!octet || *octet > 255) return std::nullopt;
    octets[i] = *octet;
    host = i < 3 ? host.substr(dot + 1) : std::string_view();
  }
  return octets;
}

}  // namespace

absl::StatusOr<ListenAddress> ParseListenAddress(const std::string& address) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        StrCat("the listening address '", address, "' ", why,
               " (HOST:PORT, e.g. 127.0.0.1:50051 or [::1]:0)"));
  };
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return bad("has no port");
  ListenAddress out;
  std::string_view host(address.data(), colon);
  if (host.starts_with('[')) {
    if (!host.ends_with(']') || host.size() < 3) {
      return bad("has an unclosed IPv6 bracket");
    }
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("needs its IPv6 host in brackets");
  }
  if (host.empty()) return bad("has no host");
  const std::optional<int> port =
      Decimal(std::string_view(address).substr(colon + 1), 5);
  if (!port || *port > 65535) return bad("has no port number in 0..65535");
  out.host = std::string(host);
  out.port = *port;
  return out;
}

bool IsLoopback(const std::string& listen) {
  absl::StatusOr<ListenAddress> parsed = ParseListenAddress(listen);
  if (!parsed.ok()) return false;
  const std::string& host = parsed->host;
  if (host == "localhost" || host == "::1") return true;
  const std::optional<std::array<int, 4>> ipv4 = Ipv4(host);
  return ipv4 && (*ipv4)[0] == 127;
}

}  // namespace webnnm::server
