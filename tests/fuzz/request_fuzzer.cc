// libFuzzer target: the daemon's request paths that parse user data. The
// first byte chooses a call; the rest is its request message as it would
// arrive on the wire (protobuf bytes), handed to the real service handlers
// (webnnm.v1 and KServe's ModelInfer) over a real store in a temporary
// folder, or, for the tokens file, its text. A request that names no
// dataset or job gets the ones the setup stored (iris.csv and an imported
// iris snapshot), so mutations reach the deeper checks. Every outcome must
// be a status with a message; nothing may crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "google/protobuf/stubs/logging.h"
#include "server/rpc/auth.h"
#include "server/config.h"
#include "server/core/inference.h"
#include "server/core/jobs.h"
#include "server/rpc/kserve.h"
#include "server/rpc/service.h"
#include "proto/wire/sha256.h"
#include "server/store/sqlite_store.h"

namespace {

namespace fs = std::filesystem;
using namespace webnnm::server;
namespace v1 = webnnm::v1;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct World {
  fs::path folder;
  std::unique_ptr<Store> store;
  std::unique_ptr<JobManager> jobs;
  Tokens tokens;
  std::unique_ptr<InferenceCache> inference;
  std::unique_ptr<WebnnmService> service;
  std::unique_ptr<KServeService> kserve;
};

World& Setup() {
  static World* world = [] {
    auto* w = new World;
    w->folder = fs::temp_directory_path() /
                ("webnnm-request-fuzz-" + std::to_string(::getpid()));
    fs::remove_all(w->folder);
    static fs::path* folder = new fs::path(w->folder);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(*folder, ec);
    });
    w->store = std::move(*SqliteStore::Open((w->folder / "fuzz.db").string()));
    w->jobs = std::make_unique<JobManager>(*w->store, JobOptions{});
    Limits limits;
    limits.max_dataset_bytes = 1 << 16;
    limits.max_infer_elements = 1 << 12;
    w->inference = std::make_unique<InferenceCache>(1);
    w->service = std::make_unique<WebnnmService>(*w->store, *w->jobs, w->tokens,
                                                 limits, *w->inference);
    w->kserve = std::make_unique<KServeService>(*w->store, w->tokens, limits,
                                                *w->inference);
    // The iris dataset, stored as an upload would store it.
    fs::path iris = fs::path(WEBNNM_SOURCE_DIR) / "configs/datasets/iris.csv";
    std::string sha = *webnnm::wire::DatasetHash({iris.string()});
    fs::create_directories(w->store->DatasetFolder(sha));
    fs::copy_file(iris, fs::path(w->store->DatasetFolder(sha)) / "iris.csv",
                  fs::copy_options::overwrite_existing);
    Dataset dataset{.id = "d-iris",
                    .name = "iris.csv",
                    .format = DatasetFormat::kCsv,
                    .sha256 = sha,
                    .files = {"iris.csv"}};
    (void)w->store->InsertDataset("local", dataset);
    // A trained iris model, imported.
    Job job{.id = "j-iris", .principal = "local", .kind = JobKind::kImport};
    std::string snapshot = ReadFile(fs::path(WEBNNM_SOURCE_DIR) /
                                    "tests/fuzz/seeds/iris-2-epochs.wnms");
    (void)w->store->CreateFinishedJob(job, {"final", 2, snapshot});
    return w;
  }();
  return *world;
}

void Expect(const grpc::Status& s) {
  if (!s.ok() && s.error_message().empty()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);  // parse errors are expected
  Setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  World& w = Setup();
  const uint8_t call = data[0] % 9;
  const char* bytes = reinterpret_cast<const char*>(data + 1);
  const int n = static_cast<int>(size - 1);
  grpc::ServerContext context;
  switch (call) {
    case 0: {
      v1::CheckModelRequest r;
      if (!r.ParseFromArray(bytes, n)) return 0;
      v1::CheckModelResponse out;
      Expect(w.service->CheckModel(&context, &r, &out));
      break;
    }
    case 1: {
      v1::SubmitJobRequest r;
      if (!r.ParseFromArray(bytes, n)) return 0;
      if (r.data().dataset_id().empty()) {
        r.mutable_data()->set_dataset_id("d-iris");
      }
      if (r.snapshot_job_id().empty()) r.set_snapshot_job_id("j-iris");
      v1::SubmitJobResponse out;
      Expect(w.service->SubmitJob(&context, &r, &out));
      break;
    }
    case 2: {
      v1::InferRequest r;
      if (!r.ParseFromArray(bytes, n)) return 0;
      if (r.job_id().empty()) r.set_job_id("j-iris");
      v1::InferResponse out;
      Expect(w.service->RunInfer(&context, &r, &out));
      break;
    }
    case 3: {
      v1::UploadDatasetRequest r;
      if (!r.ParseFromArray(bytes, n)) return 0;
      v1::UploadDatasetResponse out;
      Expect(w.service->UploadDataset(&context, &r, &out));
      break;
    }
    case 4: {
      v1::ImportSnapshotRequest r;
      if (!r.ParseFromArray(bytes, n)) return 0;
      v1::ImportSnapshotResponse out;
      Expect(w.service->ImportSnapshot(&context, &r, &out));
      break;
    }
    case 5: {
      v1::ListJobsRequest r;
      if (!r.ParseFromArray(bytes, n)) return 0;
      v1::ListJobsResponse out;
      Expect(w.service->ListJobs(&context, &r, &out));
      break;
    }
    case 6: {
      v1::GetMetricsRequest r;
      if (!r.ParseFromArray(bytes, n)) return 0;
      if (r.job_id().empty()) r.set_job_id("j-iris");
      v1::GetMetricsResponse out;
      Expect(w.service->GetMetrics(&context, &r, &out));
      break;
    }
    case 7: {
      std::string text(bytes, static_cast<size_t>(n));
      absl::StatusOr<Tokens> tokens = Tokens::Parse(text, "tokens");
      if (!tokens.ok() && tokens.status().message().empty()) __builtin_trap();
      (void)IsLoopback(text);
      break;
    }
    case 8: {
      inference::ModelInferRequest r;
      if (!r.ParseFromArray(bytes, n)) return 0;
      if (r.model_name().empty()) r.set_model_name("j-iris");
      inference::ModelInferResponse out;
      Expect(w.kserve->RunModelInfer(context, &r, &out));
      break;
    }
  }
  return 0;
}
