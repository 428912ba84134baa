#include "client/remote.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <future>

#include "client/format.h"
#include "client/job_json.h"
#include "engine/base/strings.h"
#include "server/names.h"
#include "server/sha256.h"
#include "webnnm/v1/webnnm.grpc.pb.h"

namespace webnnm::client {
namespace {

namespace fs = std::filesystem;

// Upload chunks: well under the daemon's smallest message limit (2 MiB).
constexpr size_t kChunk = 1 << 20;

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

bool ReadWhole(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  *out = s.str();
  return !in.bad();
}

class Client {
 public:
  std::shared_ptr<grpc::Channel> channel;

  explicit Client(const RemoteOptions& o) {
    server_ =
        o.server.empty() ? EnvOr("WEBNNM_SERVER", "127.0.0.1:50051") : o.server;
    token_ = o.token.empty() ? EnvOr("WEBNNM_TOKEN", "") : o.token;
    std::shared_ptr<grpc::ChannelCredentials> credentials;
    if (!o.ca.empty()) {
      grpc::SslCredentialsOptions ssl;
      ReadWhole(o.ca, &ssl.pem_root_certs);
      credentials = grpc::SslCredentials(ssl);
    } else {
      credentials = grpc::InsecureChannelCredentials();
    }
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    channel = grpc::CreateCustomChannel(server_, credentials, args);
    stub_ = v1::Webnnm::NewStub(channel);
  }

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
  int Error(const grpc::Status& s) const {
    if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
      std::cerr << "webnnmctl: cannot reach webnnmd at " << server_ << ": "
                << s.error_message() << "\n";
    } else {
      std::cerr << "webnnmctl: " << s.error_message() << "\n";
    }
    return 1;
  }

  v1::Webnnm::Stub& stub() { return *stub_; }

 private:
  std::string server_, token_;
  std::unique_ptr<v1::Webnnm::Stub> stub_;
};

// Uploads a CSV file or an IDX folder unless the daemon has its content.
int UploadDataset(Client& client, const std::string& path,
                  const std::string& name, bool quiet, v1::Dataset* out) {
  std::vector<std::string> files;
  v1::DatasetFormat format;
  if (fs::is_directory(path)) {
    format = v1::DATASET_FORMAT_IDX;
    for (const char* n : server::kIdxFileNames) {
      if (fs::exists(fs::path(path) / n)) {
        files.push_back((fs::path(path) / n).string());
      }
    }
    if (files.empty()) {
      std::cerr << "webnnmctl: '" << path
                << "' holds no IDX files (train-images-idx3-ubyte[.gz], ...)\n";
      return 2;
    }
  } else if (fs::is_regular_file(path)) {
    format = v1::DATASET_FORMAT_CSV;
    files.push_back(path);
  } else {
    std::cerr << "webnnmctl: cannot read '" << path << "'\n";
    return 2;
  }
  absl::StatusOr<std::string> hash = server::DatasetHash(files);
  if (!hash.ok()) {
    std::cerr << "webnnmctl: " << hash.status().message() << "\n";
    return 2;
  }
  int64_t total = 0;
  for (const std::string& f : files) {
    total += static_cast<int64_t>(fs::file_size(f));
  }
  v1::UploadDatasetRequest start;
  start.set_name(name.empty() ? fs::path(path).filename().string() : name);
  if (start.name().empty()) start.set_name("dataset");
  start.set_format(format);
  start.set_sha256(*hash);
  start.set_total_bytes(total);
  v1::UploadDatasetResponse answer;
  grpc::Status s =
      client.stub().UploadDataset(client.Context().get(), start, &answer);
  if (!s.ok()) return client.Error(s);
  if (answer.has_dataset()) {
    *out = answer.dataset();
    return 0;
  }
  const std::string upload = answer.upload_id();
  int64_t sent = 0;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string buffer(kChunk, '\0');
    int64_t offset = 0;
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      std::streamsize n = in.gcount();
      if (n <= 0) break;
      v1::UploadDatasetRequest chunk;
      chunk.set_upload_id(upload);
      chunk.set_file_name(fs::path(f).filename().string());
      chunk.set_offset(offset);
      chunk.set_data(buffer.data(), static_cast<size_t>(n));
      s = client.stub().UploadDataset(client.Context().get(), chunk, &answer);
      if (!s.ok()) return client.Error(s);
      offset += n;
      sent += n;
      if (!quiet && isatty(STDERR_FILENO)) {
        std::cerr << "\r\033[Kuploading " << start.name() << ": "
                  << (100 * sent / std::max<int64_t>(1, total)) << "%"
                  << std::flush;
      }
    }
  }
  if (!quiet && isatty(STDERR_FILENO)) std::cerr << "\r\033[K";
  v1::UploadDatasetRequest finish;
  finish.set_upload_id(upload);
  finish.set_finish(true);
  s = client.stub().UploadDataset(client.Context().get(), finish, &answer);
  if (!s.ok()) return client.Error(s);
  *out = answer.dataset();
  return 0;
}

v1::Hyperparameters HyperparametersFrom(const CLI::App& cmd,
                                        const TrainOptions& o) {
  v1::Hyperparameters h;
  auto given = [&](const char* flag) { return cmd.count(flag) > 0; };
  const train::Hyperparameters& t = o.hyper;
  if (given("--epochs")) h.set_epochs(t.epochs);
  if (o.lr) h.set_lr(*o.lr);
  if (given("--warmup-epochs")) h.set_warmup_epochs(t.warmup_epochs);
  if (given("--seeds")) h.set_seeds(t.seeds);
  if (given("--patience")) h.set_patience(t.patience);
  if (given("--loss-weights")) h.set_loss_weights(t.loss_weights);
  if (given("--optimizer")) h.set_optimizer(t.optimizer);
  if (o.weight_decay) h.set_weight_decay(*o.weight_decay);
  if (o.momentum_factor) h.set_momentum_factor(*o.momentum_factor);
  if (o.beta1) h.set_beta1(*o.beta1);
  if (o.beta2) h.set_beta2(*o.beta2);
  if (given("--freeze")) h.set_freeze(t.freeze);
  if (given("--regularization")) h.set_regularization(t.regularization);
  if (given("--lambda1")) h.set_lambda1(t.lambda1);
  if (given("--lambda2")) h.set_lambda2(t.lambda2);
  if (given("--optimize-for")) h.set_optimize_for(t.optimize_for);
  if (given("--gradient-scaling")) h.set_gradient_scaling(t.gradient_scaling);
  if (given("--gradient-clipping")) {
    h.set_gradient_clipping(t.gradient_clipping);
  }
  if (given("--scale")) h.set_scale(t.scale);
  if (given("--growth-interval")) h.set_growth_interval(t.growth_interval);
  if (given("--seed")) h.set_seed(t.seed);
  if (given("--threads")) h.set_threads(t.threads);
  if (given("--batch-size")) h.set_batch_size(t.batch_size);
  if (given("--clip-alpha")) h.set_clip_alpha(t.clip_alpha);
  if (given("--agc-lambda")) h.set_agc_lambda(t.agc_lambda);
  return h;
}

int Submit(Client& client, RemoteOptions& o, bool json) {
  std::string text;
  if (!ReadWhole(o.train.file, &text)) {
    std::cerr << "webnnmctl: cannot read '" << o.train.file << "'\n";
    return 2;
  }
  v1::Dataset dataset;
  if (int code =
          UploadDataset(client, o.train.data.dataset, "", json, &dataset);
      code != 0) {
    return code;
  }
  v1::SubmitJobRequest request;
  request.set_kind(v1::JOB_KIND_TRAIN);
  request.set_model_text(text);
  request.set_file_name(fs::path(o.train.file).filename().string());
  v1::DataSpec* data = request.mutable_data();
  data->set_dataset_id(dataset.dataset_id());
  data->set_label(o.train.data.label);
  data->set_no_header(o.train.data.no_header);
  data->set_split(o.train.data.split);
  data->set_standardize(o.train.data.standardize);
  *request.mutable_hyperparameters() = HyperparametersFrom(*o.submit, o.train);
  if (o.submit->count("--backend")) request.set_backend(o.train.backend);
  request.set_idempotency_key(o.idempotency_key);
  v1::SubmitJobResponse response;
  grpc::Status s =
      client.stub().SubmitJob(client.Context().get(), request, &response);
  if (!s.ok()) return client.Error(s);
  if (json) {
    std::cout << Json{{"jobId", response.job().job_id()}}.dump() << "\n";
  } else {
    std::cout << (response.existing() ? "existing job " : "submitted job ")
              << response.job().job_id() << "\n";
  }
  return 0;
}

// One event as a line of text.
std::string EventLine(const v1::JobEvent& e) {
  std::string head = StrCat(TimeText(e.time()), "  ");
  switch (e.detail_case()) {
    case v1::JobEvent::kState:
      return StrCat(head, server::StateName(e.state()),
                    e.message().empty() ? "" : StrCat(" (", e.message(), ")"));
    case v1::JobEvent::kDecision:
      return StrCat(head, "decision: ", e.decision().what(), " (",
                    e.decision().why(), ")");
    case v1::JobEvent::kWarning:
      return StrCat(head, "warning: ", e.warning());
    case v1::JobEvent::kScout:
      return StrCat(head, "scouting: kept ", e.scout().chosen(), " of ",
                    e.scout().seeds(), " (", e.scout().detail(), ")");
    case v1::JobEvent::kEpoch: {
      const v1::EpochEvent& p = e.epoch();
      return StrCat(head, "epoch ", p.epoch(), "/", p.epochs(), "  loss ",
                    Fixed(p.train_loss(), 4),
                    p.has_validation_loss()
                        ? StrCat("  val ", Fixed(p.validation_loss(), 4))
                        : std::string(),
                    "  lr ", Fixed(p.lr(), 6), "  ",
                    static_cast<int64_t>(p.samples_per_second()), " samples/s");
    }
    case v1::JobEvent::kSnapshot:
      return StrCat(head, "snapshot (", e.snapshot().kind(), ") after epoch ",
                    e.snapshot().epoch(), ", ", e.snapshot().bytes(), " bytes");
    case v1::JobEvent::kTest: {
      const v1::TestEvent& t = e.test();
      return StrCat(head, "test: ", t.samples(), " samples",
                    t.has_test_loss()
                        ? StrCat(", loss ", Fixed(t.test_loss(), 4))
                        : std::string(),
                    t.has_test_accuracy()
                        ? StrCat(", accuracy ", Fixed(t.test_accuracy(), 4))
                        : std::string());
    }
    case v1::JobEvent::kError:
      return StrCat(head, "error: ", e.error());
    default:
      return StrCat(head, server::EventTypeName(e.type()));
  }
}

// Streams a job's events: JSON lines, a progress bar on a terminal, or
// plain lines. `follow`: until the job ends (else what is stored now).
int Watch(Client& client, const std::string& job, int64_t from_seq, bool json,
          bool follow) {
  std::unique_ptr<grpc::ClientContext> context = client.Context(!follow);
  v1::WatchJobRequest request;
  request.set_job_id(job);
  request.set_from_seq(from_seq);
  int64_t last_seq = 0;
  if (!follow) {
    v1::Job now;
    v1::GetJobRequest get;
    get.set_job_id(job);
    grpc::Status s = client.stub().GetJob(client.Context().get(), get, &now);
    if (!s.ok()) return client.Error(s);
    last_seq = now.last_seq();
    if (std::max<int64_t>(1, from_seq) > last_seq) return 0;
  }
  bool terminal = !json && follow && isatty(STDOUT_FILENO);
  bool bar_shown = false;
  auto reader = client.stub().WatchJob(context.get(), request);
  v1::JobEvent e;
  while (reader->Read(&e)) {
    if (json) {
      std::cout << EventJson(e).dump() << std::endl;
    } else if (terminal && e.has_epoch()) {
      const v1::EpochEvent& p = e.epoch();
      double fraction =
          p.epochs() > 0 ? static_cast<double>(p.epoch()) / p.epochs() : 1;
      int filled = static_cast<int>(fraction * 20);
      std::string bar(filled, '#');
      bar.resize(20, '.');
      std::string eta;
      if (p.samples_per_second() > 0) {
        // Seconds per epoch from the last one, times the epochs left.
        static auto previous = std::chrono::steady_clock::now();
        static int previous_epoch = 0;
        auto now = std::chrono::steady_clock::now();
        double per_epoch =
            previous_epoch > 0 && p.epoch() > previous_epoch
                ? std::chrono::duration<double>(now - previous).count() /
                      (p.epoch() - previous_epoch)
                : 0;
        previous = now;
        previous_epoch = p.epoch();
        if (per_epoch > 0) {
          eta = "  ETA " + Duration(per_epoch * (p.epochs() - p.epoch()));
        }
      }
      std::cout << "\r\033[K[" << bar << "] "
                << EventLine(e).substr(TimeText(e.time()).size() + 2) << eta
                << std::flush;
      bar_shown = true;
    } else {
      // Plain lines while following: every event but checkpoints, and
      // the first, every 50th and the last epoch (`logs` shows them all).
      bool quiet = follow && !terminal &&
                   ((e.has_snapshot() && e.snapshot().kind() == "checkpoint") ||
                    (e.has_epoch() && e.epoch().epoch() != 1 &&
                     e.epoch().epoch() % 50 != 0 &&
                     e.epoch().epoch() != e.epoch().epochs()));
      if (terminal && e.has_snapshot() && e.snapshot().kind() == "checkpoint") {
        quiet = true;
      }
      if (!quiet) {
        if (bar_shown) {
          std::cout << "\r\033[K";
        }
        std::cout << EventLine(e) << "\n";
      }
    }
    if (!follow && e.seq() >= last_seq) {
      context->TryCancel();
      break;
    }
  }
  if (bar_shown) std::cout << "\n";
  grpc::Status s = reader->Finish();
  if (!follow) {
    return s.ok() || s.error_code() == grpc::StatusCode::CANCELLED
               ? 0
               : client.Error(s);
  }
  if (!s.ok()) return client.Error(s);
  v1::GetJobRequest get;
  get.set_job_id(job);
  v1::Job final_job;
  s = client.stub().GetJob(client.Context().get(), get, &final_job);
  if (!s.ok()) return client.Error(s);
  return final_job.state() == v1::JOB_STATE_SUCCEEDED ? 0 : 1;
}

void PrintJobTable(const std::vector<v1::Job>& jobs) {
  std::vector<std::vector<std::string>> rows = {
      {"JOB", "STATE", "KIND", "MODEL", "EPOCH", "ACCURACY", "CREATED"}};
  for (const v1::Job& j : jobs) {
    Json k = JobJson(j);
    rows.push_back(
        {j.job_id(), server::StateName(j.state()), k["kind"].get<std::string>(),
         j.model_name().empty() ? "-" : j.model_name(),
         StrCat(j.epoch(), "/", j.epochs()),
         j.has_test_accuracy() ? Fixed(j.test_accuracy(), 4) : "-",
         j.has_created() ? TimeText(j.created()).substr(0, 19) : "-"});
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) {
      widths[i] = std::max(widths[i], r[i].size());
    }
  }
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size())
        line += std::string(widths[i] - r[i].size() + 2, ' ');
    }
    std::cout << line << "\n";
  }
}

void PrintJob(const v1::Job& job, bool json) {
  if (json) {
    std::cout << JobJson(job).dump() << "\n";
    return;
  }
  Json j = JobJson(job);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.value().is_null()) continue;
    if (it.key() == "decisions") {
      for (const Json& d : it.value()) {
        std::cout << "decision: " << d["what"].get<std::string>() << " ("
                  << d["why"].get<std::string>() << ")\n";
      }
      continue;
    }
    if (it.key() == "warnings") {
      for (const Json& w : it.value()) {
        std::cout << "warning: " << w.get<std::string>() << "\n";
      }
      continue;
    }
    std::cout << it.key() << ": "
              << (it.value().is_string() ? it.value().get<std::string>()
                                         : it.value().dump())
              << "\n";
  }
}

int JobCall(Client& client, RemoteOptions& o, bool json) {
  v1::Job job;
  grpc::Status s;
  if (*o.get) {
    v1::GetJobRequest r;
    r.set_job_id(o.job);
    s = client.stub().GetJob(client.Context().get(), r, &job);
  } else if (*o.cancel) {
    v1::CancelJobRequest r;
    r.set_job_id(o.job);
    s = client.stub().CancelJob(client.Context().get(), r, &job);
  } else if (*o.resume) {
    v1::ResumeJobRequest r;
    r.set_job_id(o.job);
    s = client.stub().ResumeJob(client.Context().get(), r, &job);
  } else {
    v1::DeleteJobRequest r;
    r.set_job_id(o.job);
    v1::DeleteJobResponse response;
    s = client.stub().DeleteJob(client.Context().get(), r, &response);
    if (!s.ok()) return client.Error(s);
    if (json) {
      std::cout << Json{{"jobId", o.job}, {"deleted", true}}.dump() << "\n";
    } else {
      std::cout << "deleted job " << o.job << "\n";
    }
    return 0;
  }
  if (!s.ok()) return client.Error(s);
  PrintJob(job, json);
  return 0;
}

int List(Client& client, RemoteOptions& o, bool json) {
  v1::ListJobsRequest r;
  if (!o.state.empty()) {
    v1::JobState state;
    if (!v1::JobState_Parse("JOB_STATE_" + o.state, &state)) {
      std::cerr << "webnnmctl: --state is one of QUEUED, RUNNING, SUCCEEDED, "
                   "FAILED, CANCELLED\n";
      return 2;
    }
    r.set_state(state);
  }
  std::vector<v1::Job> jobs;
  while (static_cast<int>(jobs.size()) < o.limit) {
    r.set_page_size(std::min(1000, o.limit - static_cast<int>(jobs.size())));
    v1::ListJobsResponse response;
    grpc::Status s =
        client.stub().ListJobs(client.Context().get(), r, &response);
    if (!s.ok()) return client.Error(s);
    for (const v1::Job& j : response.jobs()) jobs.push_back(j);
    if (response.next_page_token().empty()) break;
    r.set_page_token(response.next_page_token());
  }
  if (json) {
    Json list = Json::array();
    for (const v1::Job& j : jobs) list.push_back(JobJson(j));
    std::cout << Json{{"jobs", list}}.dump() << "\n";
  } else {
    PrintJobTable(jobs);
  }
  return 0;
}

int Metrics(Client& client, RemoteOptions& o, bool json) {
  v1::GetMetricsRequest r;
  r.set_job_id(o.job);
  for (const std::string& n : o.metric_names) r.add_names(n);
  v1::GetMetricsResponse response;
  grpc::Status s =
      client.stub().GetMetrics(client.Context().get(), r, &response);
  if (!s.ok()) return client.Error(s);
  if (json) {
    Json out = Json::object();
    for (const v1::MetricSeries& series : response.series()) {
      Json points = Json::array();
      for (const v1::MetricPoint& p : series.points()) {
        points.push_back(
            Json{{"epoch", p.epoch()},
                 {"value",
                  std::isfinite(p.value()) ? Json(p.value()) : Json(nullptr)}});
      }
      out[series.name()] = points;
    }
    std::cout << Json{{"jobId", o.job}, {"metrics", out}}.dump() << "\n";
    return 0;
  }
  std::map<int, std::map<std::string, double>> by_epoch;
  std::vector<std::string> names;
  for (const v1::MetricSeries& series : response.series()) {
    names.push_back(series.name());
    for (const v1::MetricPoint& p : series.points()) {
      by_epoch[p.epoch()][series.name()] = p.value();
    }
  }
  std::cout << "epoch";
  for (const std::string& n : names) std::cout << "  " << n;
  std::cout << "\n";
  for (const auto& [epoch, values] : by_epoch) {
    std::cout << epoch;
    for (const std::string& n : names) {
      auto it = values.find(n);
      std::cout << "  " << (it == values.end() ? "-" : Fixed(it->second, 6));
    }
    std::cout << "\n";
  }
  return 0;
}

int Infer(Client& client, RemoteOptions& o, bool json) {
  v1::InferRequest r;
  r.set_job_id(o.job);
  v1::Tensor* input = r.add_inputs();
  input->set_name(o.input_name);
  int64_t width = -1;
  for (const std::string& sample : o.values) {
    std::stringstream in(sample);
    std::string item;
    int64_t n = 0;
    while (std::getline(in, item, ',')) {
      char* end = nullptr;
      double v = std::strtod(item.c_str(), &end);
      if (item.empty() || *end != '\0') {
        std::cerr << "webnnmctl: --values takes comma-separated numbers, not '"
                  << item << "'\n";
        return 2;
      }
      input->add_values(v);
      ++n;
    }
    if (width >= 0 && n != width) {
      std::cerr << "webnnmctl: every --values needs as many numbers\n";
      return 2;
    }
    width = n;
  }
  input->add_shape(static_cast<int64_t>(o.values.size()));
  input->add_shape(width);
  v1::InferResponse response;
  grpc::Status s = client.stub().Infer(client.Context().get(), r, &response);
  if (!s.ok()) return client.Error(s);
  std::vector<std::string> classes(response.classes().begin(),
                                   response.classes().end());
  Json outputs = Json::object();
  for (const v1::Tensor& t : response.outputs()) {
    Json out{
        {"shape", std::vector<int64_t>(t.shape().begin(), t.shape().end())},
        {"values", std::vector<double>(t.values().begin(), t.values().end())}};
    int64_t batch = t.shape_size() > 0 ? t.shape(0) : 1;
    int64_t per = batch > 0 ? t.values_size() / batch : 0;
    if (!classes.empty() && per == static_cast<int64_t>(classes.size())) {
      Json predictions = Json::array();
      for (int64_t b = 0; b < batch; ++b) {
        int64_t best = 0;
        for (int64_t k = 1; k < per; ++k) {
          if (t.values(b * per + k) > t.values(b * per + best)) best = k;
        }
        predictions.push_back(classes[best]);
      }
      out["predictions"] = predictions;
    }
    outputs[t.name()] = out;
  }
  if (json) {
    std::cout << Json{{"jobId", o.job},
                      {"outputs", outputs},
                      {"classes", classes}}
                     .dump()
              << "\n";
    return 0;
  }
  for (auto it = outputs.begin(); it != outputs.end(); ++it) {
    std::cout << it.key() << ": " << it.value()["values"].dump();
    if (it.value().contains("predictions")) {
      std::cout << "  -> " << it.value()["predictions"].dump();
    }
    std::cout << "\n";
  }
  return 0;
}

int ExportSnapshot(Client& client, RemoteOptions& o, bool json) {
  v1::ExportSnapshotRequest r;
  r.set_job_id(o.job);
  auto context = client.Context();
  auto reader = client.stub().ExportSnapshot(context.get(), r);
  std::string bytes;
  v1::SnapshotChunk chunk;
  while (reader->Read(&chunk)) bytes += chunk.data();
  grpc::Status s = reader->Finish();
  if (!s.ok()) return client.Error(s);
  std::string file = o.file.empty() ? o.job + ".wnms" : o.file;
  std::string temp = file + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::cerr << "webnnmctl: cannot write '" << file << "'\n";
      return 1;
    }
  }
  std::error_code ec;
  fs::rename(temp, file, ec);
  if (ec) {
    std::cerr << "webnnmctl: cannot write '" << file << "': " << ec.message()
              << "\n";
    return 1;
  }
  if (json) {
    std::cout << Json{{"jobId", o.job}, {"file", file}, {"bytes", bytes.size()}}
                     .dump()
              << "\n";
  } else {
    std::cout << "wrote " << file << " (" << bytes.size() << " bytes)\n";
  }
  return 0;
}

int ImportSnapshot(Client& client, RemoteOptions& o, bool json) {
  std::string bytes;
  if (!ReadWhole(o.file, &bytes)) {
    std::cerr << "webnnmctl: cannot read '" << o.file << "'\n";
    return 2;
  }
  v1::ImportSnapshotRequest start;
  start.set_total_bytes(static_cast<int64_t>(bytes.size()));
  start.set_sha256(server::Sha256Hex(bytes));
  v1::ImportSnapshotResponse answer;
  grpc::Status s =
      client.stub().ImportSnapshot(client.Context().get(), start, &answer);
  if (!s.ok()) return client.Error(s);
  std::string upload = answer.upload_id();
  for (size_t at = 0; at < bytes.size(); at += kChunk) {
    v1::ImportSnapshotRequest chunk;
    chunk.set_upload_id(upload);
    chunk.set_offset(static_cast<int64_t>(at));
    chunk.set_data(bytes.substr(at, kChunk));
    s = client.stub().ImportSnapshot(client.Context().get(), chunk, &answer);
    if (!s.ok()) return client.Error(s);
  }
  v1::ImportSnapshotRequest finish;
  finish.set_upload_id(upload);
  finish.set_finish(true);
  s = client.stub().ImportSnapshot(client.Context().get(), finish, &answer);
  if (!s.ok()) return client.Error(s);
  if (json) {
    std::cout << Json{{"jobId", answer.job().job_id()}}.dump() << "\n";
  } else {
    std::cout << "imported as job " << answer.job().job_id() << "\n";
  }
  return 0;
}

// grpc.health.v1.Health/Check, its two messages encoded by hand (a string
// field 1; an enum field 1): exit 0 when SERVING, 1 otherwise (for
// container health checks).
int Health(Client& client, RemoteOptions& o, bool json) {
  std::string request;
  if (!o.service.empty()) {
    if (o.service.size() > 127) {
      std::cerr << "webnnmctl: the service name is too long\n";
      return 2;
    }
    request = std::string("\x0a", 1) + static_cast<char>(o.service.size()) +
              o.service;
  }
  grpc::GenericStub stub(client.channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(5));
  grpc::Slice slice(request);
  grpc::ByteBuffer in(&slice, 1), out;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", {}, &in, &out,
                 [&](grpc::Status s) { done.set_value(s); });
  grpc::Status s = done.get_future().get();
  std::string status = "UNKNOWN";
  if (s.ok()) {
    std::vector<grpc::Slice> slices;
    (void)out.Dump(&slices);
    std::string bytes;
    for (const grpc::Slice& piece : slices) {
      bytes.append(reinterpret_cast<const char*>(piece.begin()), piece.size());
    }
    int value = bytes.size() == 2 && bytes[0] == 0x08 ? bytes[1] : 0;
    status = value == 1   ? "SERVING"
             : value == 2 ? "NOT_SERVING"
             : value == 3 ? "SERVICE_UNKNOWN"
                          : "UNKNOWN";
  } else if (s.error_code() == grpc::StatusCode::NOT_FOUND) {
    status = "SERVICE_UNKNOWN";
  } else {
    return client.Error(s);
  }
  if (json) {
    std::cout << Json{{"service", o.service}, {"status", status}}.dump()
              << "\n";
  } else {
    std::cout << status << "\n";
  }
  return status == "SERVING" ? 0 : 1;
}

}  // namespace

void AddRemoteCommands(CLI::App& app, RemoteOptions& o) {
  app.add_option("--server", o.server,
                 "webnnmd's address (env WEBNNM_SERVER; default "
                 "127.0.0.1:50051)");
  app.add_option("--token", o.token, "Bearer token (env WEBNNM_TOKEN)");
  app.add_option("--ca", o.ca, "Use TLS, trusting this root certificate");

  o.submit = app.add_subcommand("submit", "Submit a training job to webnnmd");
  o.submit->add_option("FILE", o.train.file, "The model file (.wnm)")
      ->required();
  AddTrainFlags(*o.submit, o.train);
  o.submit->add_option("--idempotency-key", o.idempotency_key,
                       "Submitting again with this key returns the first job");

  auto job_command = [&](const char* name, const char* help) {
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->add_option("JOB", o.job, "The job id")->required();
    cmd->fallthrough();
    return cmd;
  };
  o.watch = job_command("watch", "Follow a job's events until it ends");
  o.watch->add_option("--from-seq", o.from_seq,
                      "The first event to show (default: the first)");
  o.logs = job_command("logs", "Print a job's events so far");
  o.logs->add_option("--from-seq", o.from_seq, "The first event to show");
  o.get = job_command("get", "Show a job");
  o.cancel = job_command("cancel", "Cancel a job");
  o.resume = job_command("resume",
                         "Queue a cancelled or failed job again, from its "
                         "last checkpoint");
  o.remove = job_command("delete", "Delete a finished job and its data");
  o.metrics = job_command("metrics", "Print a job's metrics by epoch");
  o.metrics->add_option("--name", o.metric_names,
                        "Only these metrics (trainLoss, validationLoss, lr, "
                        "samplesPerSecond)");
  o.infer = job_command("infer", "Run a trained job's model on samples");
  o.infer
      ->add_option("--values", o.values,
                   "One sample's features, comma-separated (repeat for a "
                   "batch)")
      ->required();
  o.infer->add_option("--input", o.input_name,
                      "The input block (default: the first)");

  o.list = app.add_subcommand("list", "List jobs, newest first");
  o.list->add_option("--state", o.state,
                     "Only jobs in this state (QUEUED, RUNNING, ...)");
  o.list->add_option("--limit", o.limit, "At most this many jobs")
      ->check(CLI::Range(1, 100000));
  o.list->fallthrough();

  o.snapshot = app.add_subcommand("snapshot", "Export or import snapshots");
  o.snapshot->require_subcommand(1);
  o.snapshot->fallthrough();
  o.snapshot_export =
      o.snapshot->add_subcommand("export", "Save a job's snapshot (.wnms)");
  o.snapshot_export->add_option("JOB", o.job, "The job id")->required();
  o.snapshot_export->add_option("-f,--file", o.file,
                                "Where to write it (default JOB.wnms)");
  o.snapshot_export->fallthrough();
  o.snapshot_import = o.snapshot->add_subcommand(
      "import", "Upload a .wnms snapshot as a finished job");
  o.snapshot_import->add_option("FILE", o.file, "The snapshot")->required();
  o.snapshot_import->fallthrough();

  o.health = app.add_subcommand(
      "health", "Ask webnnmd's grpc.health.v1 service (exit 0: serving)");
  o.health->add_option("--service", o.service,
                       "A service (default: the whole server)");
  o.health->fallthrough();

  o.dataset = app.add_subcommand("dataset", "Upload or list datasets");
  o.dataset->require_subcommand(1);
  o.dataset->fallthrough();
  o.dataset_upload = o.dataset->add_subcommand(
      "upload", "Upload a CSV file or an IDX folder (once per content)");
  o.dataset_upload->add_option("PATH", o.path, "The CSV file or IDX folder")
      ->required();
  o.dataset_upload->add_option("--name", o.name,
                               "Its name (default: the file's)");
  o.dataset_upload->fallthrough();
  o.dataset_list = o.dataset->add_subcommand("list", "List your datasets");
  o.dataset_list->fallthrough();
}

int RunRemote(RemoteOptions& o, bool json) {
  Client client(o);
  if (*o.submit) return Submit(client, o, json);
  if (*o.watch) return Watch(client, o.job, o.from_seq, json, true);
  if (*o.logs) return Watch(client, o.job, o.from_seq, json, false);
  if (*o.get || *o.cancel || *o.resume || *o.remove) {
    return JobCall(client, o, json);
  }
  if (*o.list) return List(client, o, json);
  if (*o.health) return Health(client, o, json);
  if (*o.metrics) return Metrics(client, o, json);
  if (*o.infer) return Infer(client, o, json);
  if (*o.snapshot_export) return ExportSnapshot(client, o, json);
  if (*o.snapshot_import) return ImportSnapshot(client, o, json);
  if (*o.dataset_upload) {
    v1::Dataset d;
    int code = UploadDataset(client, o.path, o.name, json, &d);
    if (code != 0) return code;
    if (json) {
      std::cout << DatasetJson(d).dump() << "\n";
    } else {
      std::cout << "dataset " << d.dataset_id() << " (" << d.name() << ", "
                << d.bytes() << " bytes)\n";
    }
    return 0;
  }
  if (*o.dataset_list) {
    v1::ListDatasetsResponse response;
    grpc::Status s = client.stub().ListDatasets(
        client.Context().get(), v1::ListDatasetsRequest(), &response);
    if (!s.ok()) return client.Error(s);
    if (json) {
      Json list = Json::array();
      for (const v1::Dataset& d : response.datasets()) {
        list.push_back(DatasetJson(d));
      }
      std::cout << Json{{"datasets", list}}.dump() << "\n";
    } else {
      for (const v1::Dataset& d : response.datasets()) {
        std::cout << d.dataset_id() << "  " << d.name() << "  " << d.bytes()
                  << " bytes  " << TimeText(d.created()).substr(0, 19) << "\n";
      }
    }
    return 0;
  }
  return -1;
}

}  // namespace webnnm::client
