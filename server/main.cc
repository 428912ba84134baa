// webnnmd: the WebNNM training daemon (docs/daemon.md).
//
//   webnnmd [--config FILE] [--listen HOST:PORT] [--db PATH|URI]
//           [--node NAME] [--tokens FILE] [--workers N] [--threads N]
//           [--http-listen HOST:PORT] [--metrics-listen HOST:PORT]
//
// --db postgresql://USER@HOST:PORT/DBNAME puts it in cluster mode: daemons
// sharing one PostgreSQL database share its jobs (docs/daemon.md).
//
// Prints `webnnmd ready grpc=HOST:PORT [http=HOST:PORT] [metrics=HOST:PORT]`
// once serving; SIGTERM or SIGINT stops it: running jobs checkpoint at
// their epoch boundary and resume at the next start.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <CLI/CLI.hpp>

#include "absl/synchronization/mutex.h"

#include "engine/api/threads.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/collectives/gloo_collective.h"
#include "server/config.h"
#include "server/core/daemon_metrics.h"
#include "server/core/inference.h"
#include "server/core/jobs.h"
#include "server/rpc/auth.h"
#include "server/rpc/grpc_web.h"
#include "server/rpc/http_server.h"
#include "server/rpc/kserve.h"
#include "server/rpc/metrics_interceptor.h"
#include "server/rpc/ops_http.h"
#include "server/rpc/reflection_v1.h"
#include "server/rpc/service.h"
#include "server/store/pg.h"
#include "server/store/pg_rendezvous.h"
#include "server/store/postgres_store.h"
#include "server/store/sqlite_store.h"

namespace {

int Fail(const std::string& message, int code = 1) {
  std::cerr << "webnnmd: " << message << "\n";
  return code;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

using namespace webnnm::server;

// The settings: the config file's, then the flags'. Returns the exit code
// of a usage error or of --help, or -1 to go on.
int ParseSettings(int argc, char** argv, Settings& settings) {
  CLI::App app{"webnnmd: the WebNNM training daemon"};
  std::string web_runtime;
  std::string config_path, listen, db, tokens_path, http_listen, metrics_listen,
      node, replica_address;
  int workers = 0, threads = 0;
  app.add_option("--config", config_path,
                 "A webnnm.v1.DaemonConfig text file "
                 "(configs/webnnmd.textproto)");
  app.add_option("--listen", listen,
                 "HOST:PORT to serve gRPC on (default 127.0.0.1:50051; port "
                 "0 picks a free one)");
  app.add_option("--db", db,
                 "The store: a SQLite file (default ./var/webnnm.db), or "
                 "postgresql://USER@HOST:PORT/DBNAME for cluster mode");
  app.add_option("--node", node,
                 "This daemon's name in a cluster (default: host name and "
                 "gRPC port)");
  app.add_option("--replica-address", replica_address,
                 "Cluster mode: the address data-parallel replicas bind for "
                 "Gloo's TCP (default 127.0.0.1; a trusted network only)");
  app.add_option("--tokens", tokens_path,
                 "Bearer tokens: TOKEN PRINCIPAL [admin] per line");
  app.add_option("--http-listen", http_listen,
                 "HOST:PORT to serve grpc-web on (HTTP/1.1; off by default)");
  app.add_option("--web-runtime", web_runtime,
                 "A folder of ONNX Runtime Web's files (npm's onnxruntime-web "
                 "dist/) to serve under /ort/ for the job page's \"Run in "
                 "this browser\" (off by default)");
  app.add_option("--metrics-listen", metrics_listen,
                 "HOST:PORT to serve /metrics, /healthz and /readyz on "
                 "(besides the --http-listen one; off by default)");
  app.add_option("--workers", workers, "Jobs running at once (default 1)")
      ->check(CLI::Range(1, 64));
  app.add_option("--threads", threads, "Compute threads per job (default 1)")
      ->check(CLI::Range(1, 256));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  absl::StatusOr<Settings> loaded = LoadSettings(config_path);
  if (!loaded.ok()) return Fail(std::string(loaded.status().message()), 2);
  settings = *loaded;
  if (!listen.empty()) settings.listen = listen;
  if (!db.empty()) settings.database = db;
  if (!node.empty()) settings.node = node;
  if (!replica_address.empty()) settings.replica_address = replica_address;
  if (!settings.node.empty() &&
      (settings.node.size() > 200 ||
       settings.node.find_first_of(" \t\n\r") != std::string::npos)) {
    return Fail("--node: a name of at most 200 bytes without spaces", 2);
  }
  if (!tokens_path.empty()) settings.tokens_file = tokens_path;
  if (workers > 0) settings.jobs.workers = workers;
  if (threads > 0) settings.jobs.threads = threads;
  if (!http_listen.empty()) settings.http_listen = http_listen;
  if (!web_runtime.empty()) settings.web_runtime_dir = web_runtime;
  if (!metrics_listen.empty()) settings.metrics_listen = metrics_listen;
  for (const std::string& address :
       {settings.listen, settings.http_listen, settings.metrics_listen}) {
    if (address.empty()) continue;  // no grpc-web listener
    if (absl::StatusOr<ListenAddress> parsed = ParseListenAddress(address);
        !parsed.ok()) {
      return Fail(std::string(parsed.status().message()), 2);
    }
  }
  return -1;
}

// Holds `database` for this process: an exclusive lock on DATABASE.lock
// (flock, released when the process ends, however it ends) holding the
// pid; FailedPrecondition naming the holder when another process has it.
absl::Status LockDatabase(const std::string& database) {
  const std::string path = database + ".lock";
  std::error_code ec;
  const std::filesystem::path folder =
      std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError("cannot open " + path + ": " +
                                         std::strerror(errno));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    const ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
    ::close(fd);
    std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) {
      holder.pop_back();
    }
    return absl::FailedPreconditionError(
        "the database " + database + " is in use by another webnnmd" +
        (holder.empty() ? "" : " (pid " + holder + ")") +
        ": one daemon serves a database; stop it first or use another --db");
  }
  // The pid, for a second daemon's message (the lock holds without it).
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    (void)!::pwrite(fd, pid.data(), pid.size(), 0);
  }
  return absl::OkStatus();  // fd stays open (and locked) until exit
}

// The tokens, and that without them only loopback is served.
absl::StatusOr<Tokens> LoadTokens(const Settings& settings) {
  Tokens tokens;
  if (!settings.tokens_file.empty()) {
    absl::StatusOr<Tokens> t = Tokens::Load(settings.tokens_file);
    if (!t.ok()) return t.status();
    tokens = std::move(*t);
  }
  for (const std::string& address :
       {settings.listen, settings.http_listen, settings.metrics_listen}) {
    if (!tokens.enabled() && !address.empty() && !IsLoopback(address)) {
      return absl::InvalidArgumentError(
          "without tokens (--tokens) webnnmd serves only on loopback; "
          "refusing to listen on " +
          address);
    }
  }
  return tokens;
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(
    const Settings& settings) {
  if (settings.tls_certificate.empty()) {
    return grpc::InsecureServerCredentials();
  }
  // Checked here, so that a key that does not fit its certificate (or the
  // two files swapped) is said as such, not as a listener that fails.
  if (absl::Status tls =
          CheckTlsFiles(settings.tls_certificate, settings.tls_private_key);
      !tls.ok()) {
    return tls;
  }
  grpc::SslServerCredentialsOptions ssl;
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  if (!ReadFile(settings.tls_private_key, &pair.private_key) ||
      !ReadFile(settings.tls_certificate, &pair.cert_chain)) {
    return absl::InvalidArgumentError("cannot read the TLS certificate or key");
  }
  ssl.pem_key_cert_pairs.push_back(pair);
  return grpc::SslServerCredentials(ssl);
}

// The gRPC server with both services, listening (`port` is set).
std::unique_ptr<grpc::Server> BuildServer(
    const Settings& settings,
    const std::shared_ptr<grpc::ServerCredentials>& credentials,
    std::vector<grpc::Service*> services, int& port) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(settings.listen, credentials, &port);
  const int max_bytes = static_cast<int>(
      std::min<int64_t>(settings.max_message_bytes, INT32_MAX));
  builder.SetMaxReceiveMessageSize(max_bytes);
  builder.SetMaxSendMessageSize(max_bytes);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 60000);
  // A connection must finish its handshake (TLS, then HTTP/2's settings)
  // within the request deadline, as on the HTTP listeners: one that stalls
  // is cut (gRPC's default waits 120 s).
  builder.AddChannelArgument(
      GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
      static_cast<int>(std::min<int64_t>(
          int64_t{1000} * settings.http_request_timeout_seconds, INT32_MAX)));
  builder.AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
  for (grpc::Service* service : services) builder.RegisterService(service);
  std::vector<
      std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
      interceptors;
  interceptors.push_back(std::make_unique<MetricsInterceptorFactory>());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  return builder.BuildAndStart();
}

// Who a grpc-web request's authorization header authenticates (for the
// listener's per-client stream limits); nothing without tokens.
std::function<std::optional<std::string>(std::string_view)> PrincipalOf(
    const Tokens& tokens) {
  if (!tokens.enabled()) return nullptr;
  return [&tokens](std::string_view header) -> std::optional<std::string> {
    absl::StatusOr<Principal> who = tokens.AuthenticateHeader(header);
    if (!who.ok()) return std::nullopt;
    return who->name;
  };
}

// /metrics and the probes for a listener on `address`: a bearer token
// asked for /metrics off loopback, unless the config says otherwise.
OpsEndpoints Ops(const Settings& settings, const Tokens& tokens, Store& store,
                 JobManager& jobs, const std::string& address) {
  OpsEndpoints ops;
  ops.metrics = [] { return Metrics().registry.Expose(); };
  ops.ready = [&store, &jobs]() -> absl::Status {
    if (!jobs.Serving()) {
      return absl::UnavailableError("the job workers are not running");
    }
    absl::StatusOr<int64_t> count = store.CountJobs("", JobState::kRunning);
    if (!count.ok()) {
      return absl::UnavailableError(
          StrCat("the database cannot be read: ", count.status().message()));
    }
    return absl::OkStatus();
  };
  ops.token_required = tokens.enabled() && !IsLoopback(address) &&
                       !settings.metrics_without_token;
  ops.authorized = [&tokens](std::string_view header) {
    return tokens.AuthenticateHeader(header).ok();
  };
  return ops;
}

absl::StatusOr<std::unique_ptr<HttpServer>> StartMetricsListener(
    const Settings& settings, OpsEndpoints ops) {
  ASSIGN_OR_RETURN(ListenAddress address,
                   ParseListenAddress(settings.metrics_listen));
  absl::StatusOr<std::unique_ptr<HttpServer>> server =
      StartOpsServer(address.host, address.port, std::move(ops),
                     settings.tls_certificate, settings.tls_private_key);
  if (!server.ok()) {
    return absl::Status(server.status().code(),
                        StrCat("--metrics-listen ", settings.metrics_listen,
                               ": ", server.status().message()));
  }
  return server;
}

std::string Host(const std::string& address) {
  return address.substr(0, address.rfind(':'));
}

std::string HostName() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "webnnmd");
  return host;
}

// This daemon's name: --node, else the host name and the gRPC port.
std::string NodeName(const Settings& settings, int port) {
  if (!settings.node.empty()) return settings.node;
  return HostName() + ":" + std::to_string(port);
}

// The address other daemons and `webnnmctl nodes` see: the listening one,
// or the host name where it listens on every interface.
std::string NodeAddress(const Settings& settings, int port) {
  std::string host = Host(settings.listen);
  if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::") {
    host = HostName();
  }
  return host + ":" + std::to_string(port);
}

// The store the settings name: a SQLite file (locked for this process) or
// a PostgreSQL server (cluster mode).
absl::StatusOr<std::unique_ptr<Store>> OpenStore(const Settings& settings,
                                                 bool cluster) {
  if (cluster) {
    std::string cache = settings.cache_folder;
    if (cache.empty()) {
      std::string name = settings.node.empty() ? "default" : settings.node;
      for (char& c : name) {
        if (c == '/' || c == ':' || c == '\\') c = '_';
      }
      cache = "./var/cache/" + name;
    }
    absl::StatusOr<std::unique_ptr<PostgresStore>> pg =
        PostgresStore::Open({.uri = settings.database,
                             .cache_folder = cache,
                             .snapshot_retention = settings.snapshot_retention,
                             .connections = settings.jobs.workers + 4,
                             .lease = settings.jobs.lease});
    if (!pg.ok()) return pg.status();
    return std::unique_ptr<Store>(std::move(*pg));
  }
  // One daemon a database: a second one would take the first's running
  // jobs for crashed and run them again.
  RETURN_IF_ERROR(LockDatabase(settings.database));
  {
    // A database file of zero bytes opens as a new, empty one: say so, as
    // it may be a truncated copy rather than a fresh start.
    std::error_code ec;
    if (std::filesystem::exists(settings.database, ec) &&
        std::filesystem::file_size(settings.database, ec) == 0 && !ec) {
      std::cerr << "webnnmd: warning: the database " << settings.database
                << " is empty (0 bytes); starting with no jobs and no "
                   "datasets (if it held some, it was truncated: restore it "
                   "from a backup)\n";
    }
  }
  absl::StatusOr<std::unique_ptr<SqliteStore>> sqlite =
      SqliteStore::Open(settings.database, settings.snapshot_retention);
  if (!sqlite.ok()) return sqlite.status();
  return std::unique_ptr<Store>(std::move(*sqlite));
}

// Cluster mode's data-parallel jobs: replicas meet through the database's
// rendezvous table and sum over Gloo's TCP on the configured address.
void AllowReplicas(Settings& settings) {
  settings.jobs.max_replicas = settings.max_replicas;
  if (settings.max_replicas <= 1) return;
  const std::string uri = settings.database;
  const std::string address = settings.replica_address;
  const auto timeout = std::chrono::seconds(settings.gloo_timeout_seconds);
  auto prefix = [](const ReplicaSlot& p) {
    return webnnm::StrCat("job/", p.job_id, "/", p.attempt);
  };
  settings.jobs.collectives = [=](const ReplicaSlot& p,
                                  const std::function<std::string()>& give_up)
      -> absl::StatusOr<std::unique_ptr<webnnm::train::Collective>> {
    ASSIGN_OR_RETURN(std::unique_ptr<webnnm::dist::GlooCollective> c,
                     webnnm::dist::GlooCollective::Connect(
                         {.rank = p.rank,
                          .size = p.size,
                          .address = address,
                          .timeout = timeout,
                          .store = std::make_shared<PgRendezvous>(uri, give_up),
                          .prefix = prefix(p)}));
    return std::unique_ptr<webnnm::train::Collective>(std::move(c));
  };
  settings.jobs.rendezvous_done = [=](const ReplicaSlot& p) {
    (void)PgRendezvous::Cleanup(uri, prefix(p) + "/");
  };
}

// What the database-size metric reads.
std::function<std::optional<double>()> DatabaseBytes(const Settings& settings,
                                                     Store& store,
                                                     bool cluster) {
  if (cluster) {
    auto* pg = static_cast<PostgresStore*>(&store);
    return [pg]() -> std::optional<double> {
      absl::StatusOr<int64_t> bytes = pg->DatabaseBytes();
      if (!bytes.ok()) return std::nullopt;
      return static_cast<double>(*bytes);
    };
  }
  return [database = settings.database]() -> std::optional<double> {
    return SqliteFileBytes(database);
  };
}

void PrintReady(const Settings& settings, int port, const GrpcWebBridge* web,
                const HttpServer* metrics) {
  std::cout << "webnnmd ready grpc=" << Host(settings.listen) << ":" << port;
  if (web) {
    std::cout << " http=" << Host(settings.http_listen) << ":" << web->port();
  }
  if (metrics) {
    std::cout << " metrics=" << Host(settings.metrics_listen) << ":"
              << metrics->port();
  }
  std::cout << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  // SIGTERM and SIGINT are taken by sigwait below: block them before any
  // library starts a thread (gRPC does when it first makes credentials),
  // so that every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // Debian's Abseil checks every Mutex lock for deadlock cycles (a debug
  // build's default): a graph lookup on each lock of every call. The tests
  // keep the check; the daemon does not pay for it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Blocks of 4 MiB and more (request bodies, datasets, snapshots) are
  // mapped on their own and unmapped when freed: glibc's default raises
  // this threshold after large frees (up to 32 MiB), and a burst of large
  // requests then stays resident for good (issue 50: 131 MiB after 40
  // bodies of 20 MiB; 29 MiB before and after with this). Training's
  // speed is the same within the VM's noise (Fashion CNN, 4 runs each:
  // 30–36k samples/s against 29–35k).
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  Settings settings;
  if (int code = ParseSettings(argc, argv, settings); code >= 0) return code;
  absl::StatusOr<Tokens> tokens = LoadTokens(settings);
  if (!tokens.ok()) return Fail(std::string(tokens.status().message()), 2);
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      Credentials(settings);
  if (!credentials.ok()) {
    return Fail(std::string(credentials.status().message()), 2);
  }
  // A browser that disconnects must not kill the daemon with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  // Before anything touches OpenMP: passive waiting, the thread count.
  webnnm::ConfigureComputeThreads(settings.jobs.threads);

  const bool cluster = pg::IsUri(settings.database);
  absl::StatusOr<std::unique_ptr<Store>> store = OpenStore(settings, cluster);
  if (!store.ok()) return Fail(std::string(store.status().message()));
  if (cluster) AllowReplicas(settings);
  JobManager jobs(**store, settings.jobs);
  InferenceCache inference(settings.jobs.threads,
                           absl::Microseconds(settings.infer_batch_window_us));
  WebnnmService service(**store, jobs, *tokens, settings.limits, inference);
  KServeService kserve(**store, *tokens, settings.limits, inference);
  ReflectionV1Service reflection_v1(
      {webnnm::v1::Webnnm::service_full_name(),
       inference::GRPCInferenceService::service_full_name(),
       "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection",
       grpc::reflection::v1::ServerReflection::service_full_name()});
  jobs.OnDeleted([&inference](const std::string& id) { inference.Forget(id); });
  AddDaemonCollectors(
      **store, settings.jobs.workers, [&jobs] { return jobs.Busy(); },
      DatabaseBytes(settings, **store, cluster),
      [&service] { return service.UploadsInProgress(); });
  int port = 0;
  std::unique_ptr<grpc::Server> server = BuildServer(
      settings, *credentials, {&service, &kserve, &reflection_v1}, port);
  if (!server || port == 0) {
    return Fail("cannot listen on " + settings.listen +
                " (address in use or not valid?)");
  }
  jobs.Identify(NodeName(settings, port), NodeAddress(settings, port),
                WEBNNM_VERSION);
  if (absl::Status started = jobs.Start(); !started.ok()) {
    server->Shutdown();
    return Fail(std::string(started.message()));
  }
  server->GetHealthCheckService()->SetServingStatus("webnnm.v1.Webnnm", true);
  server->GetHealthCheckService()->SetServingStatus(
      "inference.GRPCInferenceService", true);

  std::unique_ptr<GrpcWebBridge> web;
  if (!settings.http_listen.empty()) {
    absl::StatusOr<std::unique_ptr<GrpcWebBridge>> started_web =
        GrpcWebBridge::Start(
            *server,
            {.listen = settings.http_listen,
             .cors_origins = settings.cors_origins,
             .max_message_bytes = settings.max_message_bytes,
             .max_streams = settings.max_http_streams,
             .max_streams_per_client = settings.max_http_streams_per_client,
             .max_anonymous_streams = settings.max_http_anonymous_streams,
             .tokens_required = tokens->enabled(),
             .principal_of = PrincipalOf(*tokens),
             .max_connections = settings.max_http_connections,
             .request_timeout =
                 std::chrono::seconds(settings.http_request_timeout_seconds),
             .tls_certificate = settings.tls_certificate,
             .tls_private_key = settings.tls_private_key,
             .web_runtime_dir = settings.web_runtime_dir,
             .also = [ops = Ops(settings, *tokens, **store, jobs,
                                settings.http_listen)](const HttpRequest& req,
                                                       HttpResponder& res) {
               return ServeOps(ops, req, res);
             }});
    if (!started_web.ok()) {
      jobs.Stop();
      server->Shutdown();
      return Fail(std::string(started_web.status().message()));
    }
    web = std::move(*started_web);
  }
  std::unique_ptr<HttpServer> metrics;
  if (!settings.metrics_listen.empty()) {
    absl::StatusOr<std::unique_ptr<HttpServer>> started_metrics =
        StartMetricsListener(settings, Ops(settings, *tokens, **store, jobs,
                                           settings.metrics_listen));
    if (!started_metrics.ok()) {
      if (web) web->Stop();
      jobs.Stop();
      server->Shutdown();
      return Fail(std::string(started_metrics.status().message()));
    }
    metrics = std::move(*started_metrics);
  }
  PrintReady(settings, port, web.get(), metrics.get());

  int signal = 0;
  sigwait(&signals, &signal);
  std::cerr << "webnnmd: " << (signal == SIGTERM ? "SIGTERM" : "SIGINT")
            << ": checkpointing running jobs and stopping\n";
  server->GetHealthCheckService()->Shutdown();
  jobs.Stop();
  // gRPC first: its shutdown cancels the calls grpc-web streams wait on.
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  if (web) web->Stop();
  if (metrics) metrics->Stop();
  std::cerr << "webnnmd: stopped\n";
  return 0;
}
