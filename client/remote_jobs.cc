// webnnmctl's job commands: watch and logs, get, cancel, resume, delete,
// list, metrics.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "client/evaluation_text.h"
#include "client/format.h"
#include "client/job_json.h"
#include "client/progress.h"
#include "client/remote_client.h"
#include "client/terminal.h"
#include "client/yaml_output.h"
#include "engine/base/strings.h"
#include "proto/wire/names.h"
#include "webnnm/v1/webnnm.grpc.pb.h"

namespace webnnm::client {

namespace fs = std::filesystem;

namespace {

// One event as a line of text.
std::string EventLine(const v1::JobEvent& e, bool colour) {
  std::string head = StrCat(TimeText(e.time()), "  ");
  switch (e.detail_case()) {
    case v1::JobEvent::kState:
      return StrCat(head, PaintedState(wire::StateName(e.state()), colour),
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
  Progress progress(std::cout, STDOUT_FILENO);
  const bool colour = !json && progress.colour();
  const bool terminal = !json && follow && progress.terminal();
  // On a terminal the bar moves within long epochs too.
  request.set_progress(terminal);
  auto reader = client.stub().WatchJob(context.get(), request);
  v1::JobEvent e;
  while (reader->Read(&e)) {
    if (e.has_progress()) {
      const v1::ProgressEvent& p = e.progress();
      progress.Step({.epoch = p.epoch(),
                     .epochs = p.epochs(),
                     .step = p.step(),
                     .steps = p.steps(),
                     .rows = p.rows(),
                     .seconds = p.seconds()});
      continue;
    }
    if (json) {
      std::cout << EventJson(e).dump() << std::endl;
    } else if (terminal && e.has_epoch()) {
      progress.Epoch(FiguresOf(e.epoch()));
    } else {
      // Following: every event but checkpoints, and (not on a terminal)
      // the first, every 50th and the last epoch; `logs` shows them all.
      const bool quiet =
          follow &&
          ((e.has_snapshot() && e.snapshot().kind() == "checkpoint") ||
           (!terminal && e.has_epoch() && e.epoch().epoch() != 1 &&
            e.epoch().epoch() % 50 != 0 &&
            e.epoch().epoch() != e.epoch().epochs()));
      if (!quiet) progress.Line(EventLine(e, colour));
    }
    if (!follow && e.seq() >= last_seq) {
      context->TryCancel();
      break;
    }
  }
  progress.End();
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

// "12s", "3m04s", "1h02m"; "-" before the job starts.
std::string RunDuration(const Json& seconds) {
  if (!seconds.is_number()) return "-";
  const auto s = static_cast<int64_t>(seconds.get<double>());
  char text[32];
  if (s < 60) {
    std::snprintf(text, sizeof text, "%llds", static_cast<long long>(s));
  } else if (s < 3600) {
    std::snprintf(text, sizeof text, "%lldm%02llds",
                  static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(text, sizeof text, "%lldh%02lldm",
                  static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  }
  return text;
}

// The main test figure: accuracy, else the first regression output's R².
std::string TestFigure(const Json& job) {
  if (job["testAccuracy"].is_number()) {
    return "acc " + Fixed(job["testAccuracy"].get<double>(), 4);
  }
  if (job.contains("testMetrics")) {
    for (const auto& [output, m] : job["testMetrics"].items()) {
      if (m.contains("r2") && m["r2"].is_number()) {
        return "R² " + Fixed(m["r2"].get<double>(), 4);
      }
    }
  }
  return "-";
}

void PrintJobTable(const std::vector<v1::Job>& jobs) {
  std::vector<std::vector<std::string>> rows = {
      {"JOB", "NAME", "STATE", "NODE", "KIND", "EPOCH", "DURATION",
       "BEST VAL LOSS", "TEST", "TAGS"}};
  for (const v1::Job& j : jobs) {
    Json k = JobJson(j);
    std::string tags;
    for (const auto& [key, value] : k["tags"].items()) {
      tags += (tags.empty() ? "" : ",") + key + "=" + value.get<std::string>();
    }
    rows.push_back(
        {j.job_id(),
         k["name"].get<std::string>().empty() ? "-"
                                              : k["name"].get<std::string>(),
         wire::StateName(j.state()), j.node().empty() ? "-" : j.node(),
         k["kind"].get<std::string>(), StrCat(j.epoch(), "/", j.epochs()),
         RunDuration(k["durationSeconds"]),
         k.contains("validationLoss") && k["validationLoss"].is_number()
             ? Fixed(k["validationLoss"].get<double>(), 4)
             : "-",
         TestFigure(k), tags.empty() ? "-" : tags});
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(r[i]));
    }
  }
  const bool colour = UseColour(STDOUT_FILENO);
  for (size_t row = 0; row < rows.size(); ++row) {
    const auto& r = rows[row];
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      // The STATE column painted (its width counted unpainted).
      line += row > 0 && i == 2 ? PaintedState(r[i], colour) : r[i];
      if (i + 1 < r.size()) {
        line += std::string(widths[i] - DisplayWidth(r[i]) + 2, ' ');
      }
    }
    std::cout << line << "\n";
  }
}

// `get` without -o json: the job as YAML (it reads back with any YAML
// loader) arranged for reading — the hyperparameters as the run resolved
// them with the names the user set listed apart, the decisions and
// warnings as lists, the model as a literal block.
void PrintJob(const v1::Job& job, bool json) {
  if (json) {
    std::cout << JobJson(job).dump() << "\n";
    return;
  }
  const Json j = JobJson(job);
  Json shown = Json::object();
  for (const auto& [key, value] : j.items()) {
    if (value.is_null() || key == "userHyperparameters") continue;
    if ((key == "tags" || key == "decisions" || key == "warnings") &&
        value.empty()) {
      continue;
    }
    if (key == "hyperparameters") {
      Json resolved = Json::object();
      for (const auto& [name, v] : value.items()) {
        if (!v.is_null()) resolved[name] = v;
      }
      shown["hyperparameters"] = resolved;
      Json set = Json::array();
      for (const auto& [name, v] : j["userHyperparameters"].items()) {
        set.push_back(name);
      }
      if (!set.empty()) shown["set by the user"] = set;
    } else if (key == "decisions") {
      Json list = Json::array();
      for (const Json& d : value) {
        list.push_back(d["what"].get<std::string>() + " (" +
                       d["why"].get<std::string>() + ")");
      }
      shown["decisions"] = list;
    } else if (key == "dataset") {
      shown["dataset"] = value["name"].get<std::string>() + " (" +
                         value["format"].get<std::string>() + ", " +
                         std::to_string(value["bytes"].get<int64_t>()) +
                         " bytes)";
    } else if (key == "modelText") {
      shown["model"] = value;
    } else if (key == "testMetrics") {
      // Read as tables with names (the JSON keeps the numbers).
      const std::string evaluation = EvaluationText(j);
      if (!evaluation.empty()) shown["evaluation"] = evaluation;
    } else {
      shown[key] = value;
    }
  }
  if (j["hyperparameters"].is_null() && !j["userHyperparameters"].empty()) {
    shown["hyperparameters set"] = j["userHyperparameters"];
  }
  std::string text = ToYaml(shown);
  // On a terminal the state is painted (a pipe gets plain YAML).
  const std::string state = j["state"].get<std::string>();
  const std::string plain = "\nstate: " + state + "\n";
  if (const size_t at = text.find(plain); at != std::string::npos) {
    text.replace(
        at, plain.size(),
        "\nstate: " + PaintedState(state, UseColour(STDOUT_FILENO)) + "\n");
  }
  std::cout << text;
}

bool Ended(v1::JobState state) {
  return state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
         state == v1::JOB_STATE_CANCELLED;
}

// A running job stops at the end of its epoch: says so, waits for the state
// it reaches (at most ten minutes), then shows it.
int AfterCancel(Client& client, v1::Job job, bool json) {
  if (!json && !Ended(job.state())) {
    std::cout << "cancelling job " << job.job_id()
              << ": it stops at the end of its current epoch (" << job.epoch()
              << "/" << job.epochs() << " done)\n"
              << std::flush;
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (!Ended(job.state()) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    v1::GetJobRequest get;
    get.set_job_id(job.job_id());
    grpc::Status s = client.stub().GetJob(client.Context().get(), get, &job);
    if (!s.ok()) return client.Error(s);
  }
  if (!Ended(job.state())) {
    std::cerr << "webnnmctl: stopped waiting after 10 minutes: job "
              << job.job_id() << " is still " << wire::StateName(job.state())
              << " (its epoch has not ended; watch it, or cancel again)\n";
    return 1;
  }
  if (json) {
    std::cout << JobJson(job).dump() << "\n";
  } else {
    std::cout << "job " << job.job_id() << " "
              << PaintedState(wire::StateName(job.state()),
                              UseColour(STDOUT_FILENO))
              << " after epoch " << job.epoch() << "/" << job.epochs()
              << (job.has_snapshot() ? " (resume continues it from there)" : "")
              << "\n";
  }
  return 0;
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
  if (*o.cancel && !o.no_wait) return AfterCancel(client, job, json);
  PrintJob(job, json);
  return 0;
}

bool SplitTag(const std::string& tag, std::string* key, std::string* value) {
  const size_t eq = tag.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  *key = tag.substr(0, eq);
  *value = tag.substr(eq + 1);
  return true;
}

int ResolveJobId(Client& client, std::string& id) {
  v1::GetJobRequest get;
  get.set_job_id(id);
  v1::Job job;
  grpc::Status s = client.stub().GetJob(client.Context().get(), get, &job);
  if (s.ok() || s.error_code() != grpc::StatusCode::NOT_FOUND || id.empty()) {
    return s.ok() ? 0 : client.Error(s);
  }
  // As the daemon names models (ResolveJobRef): an alias, a name, an id's
  // unique prefix.
  std::vector<v1::Job> aliased, named, prefixed;
  v1::ListJobsRequest list;
  list.set_page_size(1000);
  for (;;) {
    v1::ListJobsResponse page;
    grpc::Status l =
        client.stub().ListJobs(client.Context().get(), list, &page);
    if (!l.ok()) return client.Error(l);
    for (const v1::Job& j : page.jobs()) {
      auto alias = j.tags().find("alias");
      if (alias != j.tags().end() && alias->second == id) aliased.push_back(j);
      if (j.name() == id) named.push_back(j);
      if (j.job_id().starts_with(id)) prefixed.push_back(j);
    }
    if (page.next_page_token().empty()) break;
    list.set_page_token(page.next_page_token());
  }
  const std::vector<v1::Job>& matches = !aliased.empty() ? aliased
                                        : !named.empty() ? named
                                                         : prefixed;
  if (matches.empty()) {
    std::cerr << "webnnmctl: no job " << id
              << " (not an id, an alias, a job's name or an id's start)\n";
    return 1;
  }
  if (matches.size() > 1 && aliased.empty()) {
    std::cerr << "webnnmctl: '" << id << "' is "
              << (named.empty() ? "the start of the ids" : "the name") << " of "
              << matches.size() << " jobs; give one's id:\n";
    for (const v1::Job& m : matches) {
      std::cerr << "  " << m.job_id() << "  " << wire::StateName(m.state())
                << "  " << (m.name().empty() ? m.model_name() : m.name())
                << "\n";
    }
    return 2;
  }
  id = matches.front().job_id();
  return 0;
}

int Tag(Client& client, RemoteOptions& o, bool json) {
  v1::TagJobRequest r;
  r.set_job_id(o.job);
  for (const std::string& tag : o.tags) {
    std::string key, value;
    if (tag.size() > 1 && tag.back() == '-' &&
        tag.find('=') == std::string::npos) {
      r.add_remove(tag.substr(0, tag.size() - 1));
    } else if (SplitTag(tag, &key, &value)) {
      (*r.mutable_set())[key] = value;
    } else {
      std::cerr << "webnnmctl: a tag is KEY=VALUE to set or KEY- to remove, "
                   "not '"
                << tag << "'\n";
      return 2;
    }
  }
  if (o.tag->count("--name")) r.set_name(o.run_name);
  if (o.tag->count("--note")) r.set_note(o.note);
  v1::Job job;
  grpc::Status s = client.stub().TagJob(client.Context().get(), r, &job);
  if (!s.ok()) return client.Error(s);
  if (json) {
    std::cout << JobJson(job).dump() << "\n";
    return 0;
  }
  std::cout << "job " << job.job_id() << " (" << job.name() << ")";
  for (const auto& [key, value] : std::map<std::string, std::string>(
           job.tags().begin(), job.tags().end())) {
    std::cout << " " << key << "=" << value;
  }
  std::cout << "\n";
  return 0;
}

int Alias(Client& client, RemoteOptions& o, bool json) {
  v1::TagJobRequest r;
  r.set_job_id(o.job);
  (*r.mutable_set())["alias"] = o.alias;
  v1::Job job;
  grpc::Status s = client.stub().TagJob(client.Context().get(), r, &job);
  if (!s.ok()) return client.Error(s);
  if (json) {
    std::cout << JobJson(job).dump() << "\n";
  } else {
    std::cout << "alias " << o.alias << " -> job " << job.job_id() << " ("
              << job.name() << ")\n";
  }
  return 0;
}

int List(Client& client, RemoteOptions& o, bool json) {
  v1::ListJobsRequest r;
  for (const std::string& tag : o.list_tags) {
    std::string key, value;
    if (!SplitTag(tag, &key, &value)) {
      std::cerr << "webnnmctl: --tag takes KEY=VALUE, not '" << tag << "'\n";
      return 2;
    }
    (*r.mutable_tags())[key] = value;
  }
  r.set_name(o.name_glob);
  if (!o.state.empty()) {
    v1::JobState state;
    std::string upper = o.state;  // any case: succeeded, Succeeded, ...
    for (char& c : upper) {
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    if (upper == "UNSPECIFIED" ||
        !v1::JobState_Parse("JOB_STATE_" + upper, &state)) {
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
  std::vector<std::vector<std::string>> rows(1, {"epoch"});
  rows[0].insert(rows[0].end(), names.begin(), names.end());
  for (const auto& [epoch, values] : by_epoch) {
    std::vector<std::string> row = {std::to_string(epoch)};
    for (const std::string& n : names) {
      auto it = values.find(n);
      row.push_back(it == values.end() ? "-" : Fixed(it->second, 6));
    }
    rows.push_back(std::move(row));
  }
  std::cout << Table(rows);
  return 0;
}

}  // namespace webnnm::client
