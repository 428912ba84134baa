// webnnmd's settings: the defaults, then the config file (a
// webnnm.v1.DaemonConfig in protobuf text format), then the flags.
#ifndef WEBNNM_SERVER_CONFIG_H_
#define WEBNNM_SERVER_CONFIG_H_

#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "server/core/jobs.h"
#include "server/rpc/service.h"

namespace webnnm::server {

struct Settings {
  std::string listen = "127.0.0.1:50051";
  // A SQLite file, or a PostgreSQL URI (cluster mode).
  std::string database = "./var/webnnm.db";
  std::string node;          // "": HOST:PORT
  std::string cache_folder;  // "": ./var/cache/NODE
  // Cluster mode's data-parallel jobs (JobOptions::max_replicas: 8 there).
  int max_replicas = 8;
  int gloo_timeout_seconds = 30;
  std::string replica_address = "127.0.0.1";
  std::string tls_certificate, tls_private_key;
  std::string tokens_file;
  std::string http_listen;      // empty: no grpc-web listener
  std::string web_runtime_dir;  // ONNX Runtime Web's files; empty: none
  std::string metrics_listen;   // empty: /metrics on http_listen only
  bool metrics_without_token = false;
  int infer_batch_window_us = 0;  // < 0: no dynamic batching
  std::set<std::string> cors_origins;
  int64_t max_message_bytes = 16 << 20;
  int snapshot_retention = 1;
  // The grpc-web listener's limits (grpc_web.h).
  int max_http_streams = 24;
  int max_http_streams_per_client = 8;
  int max_http_anonymous_streams = 4;
  int max_http_connections = 256;
  int http_request_timeout_seconds = 10;
  JobOptions jobs;
  Limits limits;
};

// Reads a config file over the defaults (InvalidArgument with the parser's
// line and column for a malformed file; NotFound for a missing one).
absl::StatusOr<Settings> LoadSettings(const std::string& config_path);

// A listening address, HOST:PORT, parsed strictly: HOST a name, an IPv4
// literal or a bracketed IPv6 literal ([::1]); PORT decimal, 0..65535 (0:
// a free one). InvalidArgument naming the address otherwise (a missing or
// non-numeric port included).
struct ListenAddress {
  std::string host;  // without brackets
  int port = 0;
};
absl::StatusOr<ListenAddress> ParseListenAddress(const std::string& address);

// Whether HOST:PORT's host is a loopback address: `localhost`, `::1` or an
// IPv4 literal in 127.0.0.0/8 (not a name that merely starts with "127.").
// False for an address ParseListenAddress refuses.
bool IsLoopback(const std::string& listen);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CONFIG_H_
