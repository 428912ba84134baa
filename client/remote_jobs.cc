// webnnmctl's job commands: watch and logs, get, cancel, resume, delete,
// list, metrics.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "client/format.h"
#include "client/job_json.h"
#include "client/remote_client.h"
#include "engine/base/strings.h"
#include "proto/wire/names.h"
#include "webnnm/v1/webnnm.grpc.pb.h"

namespace webnnm::client {

namespace fs = std::filesystem;

namespace {

// One event as a line of text.
std::string EventLine(const v1::JobEvent& e) {
  std::string head = StrCat(TimeText(e.time()), "  ");
  switch (e.detail_case()) {
    case v1::JobEvent::kState:
      return StrCat(head, wire::StateName(e.state()),
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
      return StrCat(
          head, "epoch ", p.epoch(), "/", p.epochs(), "  loss ",
          Fixed(p.train_loss(), 4),
          p.has_train_accuracy()
              ? StrCat("  acc ", Fixed(p.train_accuracy(), 4))
              : std::string(),
          p.has_validation_loss()
              ? StrCat("  val ", Fixed(p.validation_loss(), 4))
              : std::string(),
          p.has_validation_accuracy()
              ? StrCat("  val acc ", Fixed(p.validation_accuracy(), 4))
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
      return StrCat(head, wire::EventTypeName(e.type()));
  }
}

}  // namespace

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

namespace {

void PrintJobTable(const std::vector<v1::Job>& jobs) {
  std::vector<std::vector<std::string>> rows = {
      {"JOB", "STATE", "KIND", "MODEL", "EPOCH", "ACCURACY", "CREATED"}};
  for (const v1::Job& j : jobs) {
    Json k = JobJson(j);
    rows.push_back(
        {j.job_id(), wire::StateName(j.state()), k["kind"].get<std::string>(),
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

}  // namespace

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

}  // namespace webnnm::client
