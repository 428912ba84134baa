// `webnnm-bench serve`: inference latency and throughput over loopback.
//
// Runs the daemon in this process (its store in a temporary folder, the
// services on a free 127.0.0.1 port), trains the iris model (and, when the
// Fashion-MNIST folder is there, the spec's 784-128-80-40-10 MLP, the small
// CNN and a wide MLP — 784-2048-2048-10, whose batch-1 run reads 23 MB of
// weights: a model that dominates its calls — for one epoch each) through
// SubmitJob, then calls webnnm.v1's Infer and KServe's
// ModelInfer (typed and raw contents) at batch 1 over a real gRPC channel:
// sequentially for latency (p50, p99) and from several client threads for
// throughput. One JSON line per measurement.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include "inference/grpc_predict_v2.grpc.pb.h"
#include "proto/wire/sha256.h"
#include "server/core/inference.h"
#include "server/core/jobs.h"
#include "server/rpc/kserve.h"
#include "server/rpc/service.h"
#include "server/store/sqlite_store.h"
#include "tests/bench/bench.h"
#include "webnnm/v1/webnnm.grpc.pb.h"

namespace webnnm::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Uploads a CSV file or IDX folder through UploadDataset; its id.
std::string Upload(v1::Webnnm::Stub& stub, const std::string& path) {
  std::vector<std::string> files;
  v1::DatasetFormat format = v1::DATASET_FORMAT_CSV;
  if (fs::is_directory(path)) {
    format = v1::DATASET_FORMAT_IDX;
    for (const auto& e : fs::directory_iterator(path)) {
      std::string name = e.path().filename().string();
      if (name.find("-idx") != std::string::npos) files.push_back(e.path());
    }
  } else {
    files.push_back(path);
  }
  int64_t total = 0;
  for (const std::string& f : files) total += fs::file_size(f);
  v1::UploadDatasetRequest start;
  start.set_name(fs::path(path).filename().string());
  start.set_format(format);
  start.set_sha256(*wire::DatasetHash(files));
  start.set_total_bytes(total);
  v1::UploadDatasetResponse answer;
  grpc::ClientContext c0;
  if (!stub.UploadDataset(&c0, start, &answer).ok()) return "";
  if (answer.has_dataset()) return answer.dataset().dataset_id();
  for (const std::string& f : files) {
    std::string bytes = ReadFile(f);
    for (size_t at = 0; at < bytes.size(); at += 1 << 20) {
      v1::UploadDatasetRequest chunk;
      chunk.set_upload_id(answer.upload_id());
      chunk.set_file_name(fs::path(f).filename().string());
      chunk.set_offset(static_cast<int64_t>(at));
      chunk.set_data(bytes.substr(at, 1 << 20));
      grpc::ClientContext c;
      if (!stub.UploadDataset(&c, chunk, &answer).ok()) return "";
    }
  }
  v1::UploadDatasetRequest finish;
  finish.set_upload_id(answer.upload_id());
  finish.set_finish(true);
  grpc::ClientContext c1;
  if (!stub.UploadDataset(&c1, finish, &answer).ok()) return "";
  return answer.dataset().dataset_id();
}

// Trains a model through SubmitJob and WatchJob; the job id ("" on failure).
std::string Train(v1::Webnnm::Stub& stub, const std::string& model,
                  const std::string& dataset, int epochs) {
  v1::SubmitJobRequest request;
  request.set_model_text(ReadFile(model));
  request.set_file_name(fs::path(model).filename().string());
  request.mutable_data()->set_dataset_id(dataset);
  request.mutable_hyperparameters()->set_epochs(epochs);
  request.mutable_hyperparameters()->set_optimizer("sgdm");
  request.mutable_hyperparameters()->set_lr(0.05);
  request.mutable_hyperparameters()->set_seeds(10);
  v1::SubmitJobResponse response;
  grpc::ClientContext c;
  grpc::Status s = stub.SubmitJob(&c, request, &response);
  if (!s.ok()) {
    std::cerr << "webnnm-bench: " << s.error_message() << "\n";
    return "";
  }
  v1::WatchJobRequest watch;
  watch.set_job_id(response.job().job_id());
  grpc::ClientContext w;
  auto reader = stub.WatchJob(&w, watch);
  v1::JobEvent e;
  v1::JobState state = v1::JOB_STATE_UNSPECIFIED;
  while (reader->Read(&e)) {
    if (e.has_state()) state = e.state();
  }
  reader->Finish();
  return state == v1::JOB_STATE_SUCCEEDED ? response.job().job_id() : "";
}

struct Timing {
  std::vector<double> micros;
  double seconds = 0;
};

// `clients` threads each run `calls` calls of `call`.
template <typename Call>
Timing Measure(int clients, int calls, Call call) {
  std::vector<std::vector<double>> per(clients);
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < calls; ++i) {
        auto a = Clock::now();
        if (!call()) std::abort();
        per[t].push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - a)
                .count());
      }
    });
  }
  for (auto& th : threads) th.join();
  Timing timing;
  timing.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& p : per)
    timing.micros.insert(timing.micros.end(), p.begin(), p.end());
  std::sort(timing.micros.begin(), timing.micros.end());
  return timing;
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1));
  return sorted[i];
}

nlohmann::ordered_json Report(const std::string& call, const std::string& model,
                              int clients, const Timing& t,
                              std::optional<bool> batching = std::nullopt,
                              int64_t window_us = -1) {
  nlohmann::ordered_json j;
  j["bench"] = "serve";
  j["call"] = call;
  j["model"] = model;
  j["batch"] = 1;
  j["clients"] = clients;
  if (batching) j["batching"] = *batching;
  if (batching && *batching) j["batchWindowUs"] = window_us;
  j["calls"] = t.micros.size();
  j["p50Us"] = Percentile(t.micros, 0.5);
  j["p99Us"] = Percentile(t.micros, 0.99);
  j["callsPerSecond"] = static_cast<double>(t.micros.size()) / t.seconds;
  std::cout << j.dump() << std::endl;
  return j;
}

// ServerLive on gRPC's callback API, answered on gRPC's own threads: the
// floor of a call without the synchronous API's handler threads, to see
// what the daemon's synchronous services cost in latency.
class CallbackLive final
    : public inference::GRPCInferenceService::WithCallbackMethod_ServerLive<
          inference::GRPCInferenceService::Service> {
 public:
  grpc::ServerUnaryReactor* ServerLive(
      grpc::CallbackServerContext* context,
      const inference::ServerLiveRequest* /*request*/,
      inference::ServerLiveResponse* response) override {
    response->set_live(true);
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

}  // namespace

int RunServe(const ServeBenchOptions& o) {
  fs::path folder = fs::temp_directory_path() /
                    ("webnnm-bench-serve-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  absl::StatusOr<std::unique_ptr<server::Store>> store =
      server::SqliteStore::Open((folder / "bench.db").string());
  if (!store.ok()) {
    std::cerr << "webnnm-bench: " << store.status().message() << "\n";
    return 1;
  }
  server::JobManager jobs(**store, server::JobOptions{});
  server::Tokens tokens;
  server::Limits limits;
  server::InferenceCache inference(1);
  server::WebnnmService service(**store, jobs, tokens, limits, inference);
  server::KServeService kserve(**store, tokens, limits, inference);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.SetMaxReceiveMessageSize(16 << 20);
  builder.RegisterService(&service);
  builder.RegisterService(&kserve);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || !jobs.Start().ok()) {
    std::cerr << "webnnm-bench: cannot start the daemon\n";
    return 1;
  }
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                     grpc::InsecureChannelCredentials());
  auto stub = v1::Webnnm::NewStub(channel);
  auto kstub = inference::GRPCInferenceService::NewStub(channel);

  struct Served {
    std::string name, job;
    std::vector<float> sample;
  };
  std::vector<Served> served;
  auto wanted = [&](const std::string& name) {
    return o.only.empty() ||
           std::find(o.only.begin(), o.only.end(), name) != o.only.end();
  };
  if (wanted("iris")) {
    std::string iris =
        Train(*stub, o.models + "/iris.wnm", Upload(*stub, o.iris), 100);
    if (!iris.empty()) {
      served.push_back({"iris", iris, {6.7f, 3.0f, 5.2f, 2.3f}});
    }
  }
  if (fs::is_directory(o.fashion) &&
      (wanted("mlp784") || wanted("cnn") || wanted("mlp-wide"))) {
    const std::string fashion = Upload(*stub, o.fashion);  // once, for all
    // (model, file): each trained one epoch.
    const std::pair<const char*, const char*> models[] = {
        {"mlp784", "fashion-mlp.wnm"},
        {"cnn", "fashion-cnn.wnm"},
        {"mlp-wide", "fashion-mlp-wide.wnm"}};
    for (const auto& [name, file] : models) {
      if (!wanted(name)) continue;
      std::string job = Train(*stub, o.models + "/" + file, fashion, 1);
      if (!job.empty()) {
        served.push_back({name, job, std::vector<float>(784, 0.25f)});
      }
    }
  }
  if (served.empty()) {
    std::cerr << "webnnm-bench: no model trained\n";
    return 1;
  }
  // The floor: a call that does nothing (gRPC's own round trip).
  auto live = [&] {
    grpc::ClientContext c;
    inference::ServerLiveResponse r;
    return kstub->ServerLive(&c, inference::ServerLiveRequest(), &r).ok();
  };
  Measure(1, o.calls / 10, live);
  Report("ServerLive", "", 1, Measure(1, o.calls, live));
  {
    // The same call on the callback API (a server of its own), alternating
    // with the synchronous one at each client count.
    CallbackLive callback_live;
    grpc::ServerBuilder callback_builder;
    int callback_port = 0;
    callback_builder.AddListeningPort(
        "127.0.0.1:0", grpc::InsecureServerCredentials(), &callback_port);
    callback_builder.RegisterService(&callback_live);
    std::unique_ptr<grpc::Server> callback_server =
        callback_builder.BuildAndStart();
    if (callback_server) {
      auto callback_stub = inference::GRPCInferenceService::NewStub(
          grpc::CreateChannel("127.0.0.1:" + std::to_string(callback_port),
                              grpc::InsecureChannelCredentials()));
      auto callback_call = [&] {
        grpc::ClientContext c;
        inference::ServerLiveResponse r;
        return callback_stub->ServerLive(&c, inference::ServerLiveRequest(), &r)
            .ok();
      };
      Measure(1, o.calls / 10, callback_call);
      for (int clients : o.clients) {
        const int calls = std::max(1, o.calls / clients);
        nlohmann::ordered_json sync =
            Report("ServerLive", "", clients, Measure(clients, calls, live));
        nlohmann::ordered_json callback =
            Report("ServerLive(callback)", "", clients,
                   Measure(clients, calls, callback_call));
        nlohmann::ordered_json ratio;
        ratio["bench"] = "serve";
        ratio["call"] = "ServerLive";
        ratio["clients"] = clients;
        ratio["compare"] = "callback/sync";
        ratio["p50Ratio"] =
            sync["p50Us"].get<double>() > 0
                ? callback["p50Us"].get<double>() / sync["p50Us"].get<double>()
                : 0.0;
        ratio["callsPerSecondRatio"] =
            sync["callsPerSecond"].get<double>() > 0
                ? callback["callsPerSecond"].get<double>() /
                      sync["callsPerSecond"].get<double>()
                : 0.0;
        std::cout << ratio.dump() << std::endl;
      }
      callback_server->Shutdown();
    }
  }
  for (const Served& m : served) {
    v1::InferRequest infer;
    infer.set_job_id(m.job);
    v1::Tensor* t = infer.add_inputs();
    t->add_shape(1);
    t->add_shape(static_cast<int64_t>(m.sample.size()));
    for (float v : m.sample) t->add_values(v);
    auto call_infer = [&] {
      grpc::ClientContext c;
      v1::InferResponse r;
      return stub->Infer(&c, infer, &r).ok();
    };
    inference::ModelInferRequest typed;
    typed.set_model_name(m.job);
    auto* input = typed.add_inputs();
    input->set_name("model");
    input->set_datatype("FP32");
    input->add_shape(1);
    input->add_shape(static_cast<int64_t>(m.sample.size()));
    inference::ModelInferRequest raw = typed;
    for (float v : m.sample) input->mutable_contents()->add_fp32_contents(v);
    raw.add_raw_input_contents(
        std::string(reinterpret_cast<const char*>(m.sample.data()),
                    m.sample.size() * sizeof(float)));
    auto call_model_infer = [&](const inference::ModelInferRequest& request) {
      return [&, request] {
        grpc::ClientContext c;
        inference::ModelInferResponse r;
        return kstub->ModelInfer(&c, request, &r).ok();
      };
    };
    struct Case {
      std::string name;
      std::function<bool()> call;
    };
    std::vector<Case> cases = {{"Infer", call_infer},
                               {"ModelInfer", call_model_infer(typed)},
                               {"ModelInfer(raw)", call_model_infer(raw)}};
    for (const Case& c : cases) {
      Measure(1, o.calls / 10, c.call);  // warm up
      for (int clients : o.clients) {
        // Without dynamic batching, with it as the daemon runs it by
        // default (window 0: the calls that queue while the model runs
        // form the next batch), and with a window of 500 µs, in the same
        // run.
        double per_second[3] = {0, 0, 0};
        const int64_t windows[3] = {-1, 0, 500};
        for (int mode = 0; mode < 3; ++mode) {
          inference.SetBatchWindow(absl::Microseconds(windows[mode]));
          Measure(clients, std::max(1, o.calls / 10 / clients), c.call);
          nlohmann::ordered_json line =
              Report(c.name, m.name, clients,
                     Measure(clients, std::max(1, o.calls / clients), c.call),
                     mode > 0, mode > 0 ? windows[mode] : -1);
          per_second[mode] = line["callsPerSecond"].get<double>();
        }
        nlohmann::ordered_json ratio;
        ratio["bench"] = "serve";
        ratio["call"] = c.name;
        ratio["model"] = m.name;
        ratio["clients"] = clients;
        ratio["compare"] = "batching/none";
        ratio["ratio"] = per_second[0] > 0 ? per_second[1] / per_second[0] : 0;
        ratio["ratioWindow500Us"] =
            per_second[0] > 0 ? per_second[2] / per_second[0] : 0;
        std::cout << ratio.dump() << std::endl;
      }
    }
  }
  server->Shutdown();
  jobs.Stop();
  fs::remove_all(folder);
  return 0;
}

}  // namespace webnnm::bench
