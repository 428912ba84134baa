// `webnnmctl export-metrics JOB --tensorboard DIR`: the job's metrics as a
// TensorBoard event file (tensorboard.h): one scalar per metric per epoch,
// at the time the epoch's event was written.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include "client/remote_client.h"
#include "client/tensorboard.h"

namespace webnnm::client {
namespace {

namespace fs = std::filesystem;

// {epoch: seconds since 1970 when its EPOCH event was written}, from the
// job's stored events (its latest epoch's time when an epoch ran twice).
grpc::Status EpochTimes(Client& client, const v1::Job& job,
                        std::map<int, double>* times) {
  if (job.last_seq() < 1) return grpc::Status::OK;
  v1::WatchJobRequest r;
  r.set_job_id(job.job_id());
  r.set_from_seq(1);
  auto context = client.Context();
  auto reader = client.stub().WatchJob(context.get(), r);
  v1::JobEvent e;
  while (reader->Read(&e)) {
    if (e.has_epoch()) {
      (*times)[e.epoch().epoch()] =
          static_cast<double>(e.time().seconds()) + e.time().nanos() * 1e-9;
    }
    if (e.seq() >= job.last_seq()) {
      context->TryCancel();  // a running job's stream would go on
      break;
    }
  }
  grpc::Status s = reader->Finish();
  return s.error_code() == grpc::StatusCode::CANCELLED ? grpc::Status::OK : s;
}

}  // namespace

int ExportMetrics(Client& client, RemoteOptions& o, bool json) {
  v1::GetJobRequest get;
  get.set_job_id(o.job);
  v1::Job job;
  grpc::Status s = client.stub().GetJob(client.Context().get(), get, &job);
  if (!s.ok()) return client.Error(s);
  v1::GetMetricsRequest r;
  r.set_job_id(o.job);
  v1::GetMetricsResponse metrics;
  s = client.stub().GetMetrics(client.Context().get(), r, &metrics);
  if (!s.ok()) return client.Error(s);
  std::map<int, double> times;
  s = EpochTimes(client, job, &times);
  if (!s.ok()) return client.Error(s);

  const double started = static_cast<double>(job.created().seconds());
  std::string file = EventRecord(
      FileVersionEvent(times.empty() ? started : times.begin()->second));
  int64_t scalars = 0;
  for (const v1::MetricSeries& series : metrics.series()) {
    for (const v1::MetricPoint& p : series.points()) {
      auto at = times.find(p.epoch());
      const double when = at != times.end() ? at->second : started;
      file += EventRecord(ScalarEvent(when, p.epoch(), series.name(),
                                      static_cast<float>(p.value())));
      ++scalars;
    }
  }
  std::error_code ec;
  fs::create_directories(o.file, ec);
  const fs::path path = fs::path(o.file) / EventFileName("." + o.job);
  const std::string temp = path.string() + ".part";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
    if (!out) {
      std::cerr << "webnnmctl: cannot write " << path.string() << "\n";
      fs::remove(temp, ec);
      return 1;
    }
  }
  fs::rename(temp, path, ec);
  if (ec) {
    std::cerr << "webnnmctl: cannot write " << path.string() << ": "
              << ec.message() << "\n";
    return 1;
  }
  if (json) {
    std::cout << nlohmann::json{{"jobId", o.job},
                                {"file", path.string()},
                                {"scalars", scalars},
                                {"epochs", times.size()}}
                     .dump()
              << "\n";
  } else {
    std::cout << "wrote " << path.string() << " (" << scalars
              << " scalars over " << times.size()
              << " epochs; tensorboard --logdir " << o.file << ")\n";
  }
  return 0;
}

}  // namespace webnnm::client
