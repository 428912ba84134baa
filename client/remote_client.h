// What webnnmctl's remote commands share (remote.cc, remote_jobs.cc,
// remote_models.cc): the connection to webnnmd with its token, deadlines
// and error messages, and the commands each file implements.
#ifndef WEBNNM_CLIENT_REMOTE_CLIENT_H_
#define WEBNNM_CLIENT_REMOTE_CLIENT_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "client/remote.h"
#include "webnnm/v1/webnnm.grpc.pb.h"

namespace webnnm::client {

// Upload chunks: well under the daemon's smallest message limit (2 MiB).
inline constexpr size_t kChunk = 1 << 20;

// The whole file at `path` (binary); false when it cannot be read.
bool ReadWhole(const std::string& path, std::string* out);

// A channel to the daemon: --server or WEBNNM_SERVER (default
// 127.0.0.1:50051), --token or WEBNNM_TOKEN, TLS when --ca names a root
// certificate.
class Client {
 public:
  std::shared_ptr<grpc::Channel> channel;

  explicit Client(const RemoteOptions& o);

  // A context with the token and, for unary calls, a deadline.
  std::unique_ptr<grpc::ClientContext> Context(bool deadline = true) const {
    auto c = std::make_unique<grpc::ClientContext>();
    if (!token_.empty()) c->AddMetadata("authorization", "Bearer " + token_);
    if (deadline) {
      c->set_deadline(std::chrono::system_clock::now() +
                      std::chrono::seconds(120));
    }
    return c;
  }

  // Prints the error (naming the server when it cannot be reached); 1.
  int Error(const grpc::Status& s) const;

  v1::Webnnm::Stub& stub() { return *stub_; }

 private:
  std::string server_, token_;
  std::unique_ptr<v1::Webnnm::Stub> stub_;
};

// The dataset `arg` names: a file or folder (uploaded unless the daemon
// has its content), else the id of a dataset the daemon holds; 0 or the
// exit code (remote_datasets.cc, as the two below).
int ResolveDataset(Client& client, const std::string& arg, bool quiet,
                   v1::Dataset* out);
// Uploads a CSV file, an IDX folder, an .npz archive or an image folder or
// .zip as dataset `name` ("": the file's) unless the daemon has its
// content; 0 and `out` set, or the exit code after saying why.
int UploadDataset(Client& client, const std::string& path,
                  const std::string& name, bool quiet, v1::Dataset* out);
// The daemon's dataset whose id is `arg`, else the one whose id starts
// with it: 0 and `out` set; 2 after saying why not (an ambiguous prefix
// lists the matches; `missing` says what no match means).
int FindDatasetById(Client& client, const std::string& arg,
                    const std::string& missing, v1::Dataset* out);

// The job `id` names: itself when the daemon knows it, else the one job
// whose id starts with it (docker's habit). Returns 0 (and sets `id`), or
// the exit code after saying why on stderr: 1 for no such job, 2 for a
// prefix several jobs share (listing them). remote_jobs.cc.
int ResolveJobId(Client& client, std::string& id);

// A tag KEY=VALUE split at its first '='; false without one or a key.
bool SplitTag(const std::string& tag, std::string* key, std::string* value);

// The commands; each returns the exit code (0, 1 on failure, 2 on usage).
// remote_jobs.cc:
int Watch(Client& client, const std::string& job, int64_t from_seq, bool json,
          bool follow);
int JobCall(Client& client, RemoteOptions& o, bool json);  // get, cancel, ...
int List(Client& client, RemoteOptions& o, bool json);
int Metrics(Client& client, RemoteOptions& o, bool json);
int Tag(Client& client, RemoteOptions& o, bool json);
// `alias JOB NAME`: tags the job alias=NAME, which the daemon moves from
// the caller's job that held it.
int Alias(Client& client, RemoteOptions& o, bool json);
// `export-metrics JOB --tensorboard DIR` (export_metrics.cc).
int ExportMetrics(Client& client, RemoteOptions& o, bool json);
// remote_models.cc:
int Infer(Client& client, RemoteOptions& o, bool json);
// The newest snapshot of `job` (an id), its bytes appended to `bytes`.
grpc::Status FetchSnapshot(Client& client, const std::string& job,
                           std::string* bytes);
int ExportSnapshot(Client& client, RemoteOptions& o, bool json);
int ImportSnapshot(Client& client, RemoteOptions& o, bool json);
int Health(Client& client, RemoteOptions& o, bool json);
int Nodes(Client& client, bool json);  // remote_nodes.cc

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_REMOTE_CLIENT_H_
