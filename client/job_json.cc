#include "client/job_json.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <string>

#include "client/evaluation_text.h"
#include "client/metrics_json.h"
#include "engine/train/hyperparameters.h"
#include "engine/train/hyperparameters_proto.h"
#include "proto/convert/metrics.h"
#include "proto/wire/names.h"

namespace webnnm::client {
namespace {

Json Optional(bool has, double v) {
  if (!has || !std::isfinite(v)) return nullptr;
  return v;
}

Json Number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

Json Outputs(const google::protobuf::RepeatedPtrField<v1::OutputResult>& list) {
  Json out = Json::object();
  for (const v1::OutputResult& o : list) {
    out[o.name()] = Json{
        {"testLoss", Optional(o.has_test_loss(), o.test_loss())},
        {"testAccuracy", Optional(o.has_test_accuracy(), o.test_accuracy())}};
  }
  return out;
}

Json TimeOrNull(bool has, const google::protobuf::Timestamp& t) {
  if (!has) return nullptr;
  return TimeText(t);
}

std::vector<std::pair<std::string, train::OutputMetrics>> Metrics(
    const google::protobuf::RepeatedPtrField<v1::OutputMetrics>& list) {
  std::vector<std::pair<std::string, train::OutputMetrics>> out;
  for (const v1::OutputMetrics& m : list) out.push_back(wire::FromProto(m));
  return out;
}

double Seconds(const google::protobuf::Timestamp& t) {
  return static_cast<double>(t.seconds()) + t.nanos() / 1e9;
}

// From its start to its end, or to now while it runs; null before.
Json DurationSeconds(const v1::Job& job) {
  if (!job.has_started()) return nullptr;
  double end = 0;
  if (job.has_finished()) {
    end = Seconds(job.finished());
  } else {
    end = std::chrono::duration<double>(
              std::chrono::system_clock::now().time_since_epoch())
              .count();
  }
  return std::max(0.0, end - Seconds(job.started()));
}

Json ValueJson(const train::HyperValue& value) {
  return std::visit([](const auto& v) { return Json(v); }, value);
}

// Every hyperparameter under the specification's names, in its order (an
// optional one the run left to its optimizer: null); null until resolved.
Json ResolvedJson(const v1::Job& job) {
  if (!job.has_resolved_hyperparameters()) return nullptr;
  absl::StatusOr<train::Hyperparameters> h =
      train::HyperparametersFromProto(job.resolved_hyperparameters());
  if (!h.ok()) return nullptr;
  Json out = Json::object();
  for (const train::HyperparameterInfo& info : train::HyperparameterTable()) {
    std::optional<train::HyperValue> v = train::GetHyperparameter(*h, info);
    out[std::string(info.name)] = v ? ValueJson(*v) : Json(nullptr);
  }
  return out;
}

Json GivenJson(const v1::Hyperparameters& given) {
  Json out = Json::object();
  const train::HyperparameterValues values = train::ValuesFromProto(given);
  for (const train::HyperparameterInfo& info : train::HyperparameterTable()) {
    auto it = values.find(std::string(info.name));
    if (it != values.end()) out[std::string(info.name)] = ValueJson(it->second);
  }
  return out;
}

Json DataJson(const v1::DataSpec& d) {
  Json out;
  out["datasetId"] =
      d.dataset_id().empty() ? Json(nullptr) : Json(d.dataset_id());
  // The column read: given, or chosen for the model at submission.
  const std::string& label = d.label().empty() ? d.chosen_label() : d.label();
  out["label"] = label.empty() ? Json(nullptr) : Json(label);
  out["labelChosen"] = d.label().empty() && !d.chosen_label().empty();
  out["header"] = !d.no_header();
  out["split"] = d.split().empty() ? Json("70,15,15") : Json(d.split());
  std::string standardization = "auto";
  if (d.standardization() == v1::STANDARDIZATION_ON || d.standardize()) {
    standardization = "on";
  } else if (d.standardization() == v1::STANDARDIZATION_OFF) {
    standardization = "off";
  }
  out["standardization"] = standardization;
  out["impute"] = d.impute().empty() ? Json("auto") : Json(d.impute());
  out["resize"] = d.resize();
  return out;
}

}  // namespace

std::string TimeText(const google::protobuf::Timestamp& t) {
  std::time_t seconds = static_cast<std::time_t>(t.seconds());
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &tm);
  char millis[16];
  std::snprintf(millis, sizeof millis, ".%03dZ", t.nanos() / 1000000);
  return std::string(buffer) + millis;
}

Json JobJson(const v1::Job& job) {
  Json out;
  out["jobId"] = job.job_id();
  // Jobs from before names go by their model's name.
  out["name"] = job.name().empty() ? job.model_name() : job.name();
  Json tags = Json::object();
  for (const auto& [key, value] : std::map<std::string, std::string>(
           job.tags().begin(), job.tags().end())) {
    tags[key] = value;
  }
  out["tags"] = tags;
  // The alias that names it (`webnnmctl alias`), kept as the tag alias.
  out["alias"] = tags.contains("alias") ? tags["alias"] : Json(nullptr);
  out["note"] = job.note().empty() ? Json(nullptr) : Json(job.note());
  out["state"] = wire::StateName(job.state());
  out["kind"] = wire::KindName(job.kind());
  out["principal"] = job.principal();
  out["modelName"] = job.model_name();
  out["datasetId"] =
      job.dataset_id().empty() ? Json(nullptr) : Json(job.dataset_id());
  out["epoch"] = job.epoch();
  out["epochs"] = job.epochs();
  out["bestEpoch"] = job.best_epoch() > 0 ? Json(job.best_epoch()) : nullptr;
  out["testAccuracy"] = Optional(job.has_test_accuracy(), job.test_accuracy());
  out["testLoss"] = Optional(job.has_test_loss(), job.test_loss());
  out["error"] = job.error().empty() ? Json(nullptr) : Json(job.error());
  out["attempt"] = job.attempt();
  out["crashRestarts"] = job.crash_restarts();
  out["node"] = job.node();
  out["waiting"] = job.waiting();
  out["backend"] = job.backend();
  out["created"] = TimeOrNull(job.has_created(), job.created());
  out["started"] = TimeOrNull(job.has_started(), job.started());
  out["finished"] = TimeOrNull(job.has_finished(), job.finished());
  out["durationSeconds"] = DurationSeconds(job);
  out["lastSeq"] = job.last_seq();
  out["hyperparameters"] = ResolvedJson(job);
  out["userHyperparameters"] = GivenJson(job.hyperparameters());
  out["data"] = DataJson(job.data());
  if (job.has_dataset()) out["dataset"] = DatasetJson(job.dataset());
  if (!job.model_text().empty()) out["modelText"] = job.model_text();
  if (job.has_summary()) {
    const v1::JobSummary& s = job.summary();
    if (job.kind() == v1::JOB_KIND_TRAIN) {
      out["epochs"] = s.epochs();
      out["bestEpoch"] = s.best_epoch();
      out["trainSamplesPerSecond"] = Number(s.train_samples_per_second());
      out["trainedSamples"] = s.trained_samples();
      // The rate over the run's wall time, beside the steps' own rate.
      out["wallSamplesPerSecond"] = WallSamplesPerSecond(out);
      out["finalTrainLoss"] =
          Optional(s.has_final_train_loss(), s.final_train_loss());
      out["validationLoss"] =
          Optional(s.has_validation_loss(), s.validation_loss());
    }
    out["testSamples"] = s.test_samples();
    out["outputs"] = Outputs(s.outputs());
    out["testMetrics"] = TestMetricsJson(Metrics(s.metrics()));
    Json decisions = Json::array();
    for (const v1::Decision& d : s.decisions()) {
      decisions.push_back(Json{{"what", d.what()}, {"why", d.why()}});
    }
    out["decisions"] = decisions;
    out["warnings"] = Json(
        std::vector<std::string>(s.warnings().begin(), s.warnings().end()));
  }
  return out;
}

Json EventJson(const v1::JobEvent& e) {
  Json out;
  out["seq"] = e.seq();
  out["time"] = TimeText(e.time());
  out["type"] = wire::EventTypeName(e.type());
  switch (e.detail_case()) {
    case v1::JobEvent::kState:
      out["state"] = wire::StateName(e.state());
      if (!e.message().empty()) out["message"] = e.message();
      break;
    case v1::JobEvent::kDecision:
      out["what"] = e.decision().what();
      out["why"] = e.decision().why();
      break;
    case v1::JobEvent::kWarning:
      out["message"] = e.warning();
      break;
    case v1::JobEvent::kScout:
      out["seeds"] = e.scout().seeds();
      out["chosen"] = e.scout().chosen();
      out["detail"] = e.scout().detail();
      break;
    case v1::JobEvent::kEpoch: {
      const v1::EpochEvent& p = e.epoch();
      out["epoch"] = p.epoch();
      out["epochs"] = p.epochs();
      out["trainLoss"] = Number(p.train_loss());
      out["validationLoss"] =
          Optional(p.has_validation_loss(), p.validation_loss());
      out["trainAccuracy"] =
          Optional(p.has_train_accuracy(), p.train_accuracy());
      out["validationAccuracy"] =
          Optional(p.has_validation_accuracy(), p.validation_accuracy());
      out["lr"] = Number(p.lr());
      out["samplesPerSecond"] = Number(p.samples_per_second());
      break;
    }
    case v1::JobEvent::kSnapshot:
      out["epoch"] = e.snapshot().epoch();
      out["bytes"] = e.snapshot().bytes();
      out["kind"] = e.snapshot().kind();
      break;
    case v1::JobEvent::kTest: {
      const v1::TestEvent& t = e.test();
      out["samples"] = t.samples();
      out["testLoss"] = Optional(t.has_test_loss(), t.test_loss());
      out["testAccuracy"] = Optional(t.has_test_accuracy(), t.test_accuracy());
      out["outputs"] = Outputs(t.outputs());
      out["testMetrics"] = TestMetricsJson(Metrics(t.metrics()));
      break;
    }
    case v1::JobEvent::kError:
      out["message"] = e.error();
      break;
    case v1::JobEvent::kProgress:
      out["epoch"] = e.progress().epoch();
      out["epochs"] = e.progress().epochs();
      out["step"] = e.progress().step();
      out["steps"] = e.progress().steps();
      out["rows"] = e.progress().rows();
      out["seconds"] = e.progress().seconds();
      break;
    default:
      break;
  }
  return out;
}

Json DatasetJson(const v1::Dataset& d) {
  return Json{
      {"datasetId", d.dataset_id()},
      {"name", d.name()},
      {"format", wire::FormatName(d.format())},
      {"sha256", d.sha256()},
      {"bytes", d.bytes()},
      {"created", TimeText(d.created())},
      {"files", std::vector<std::string>(d.files().begin(), d.files().end())},
      {"rows", d.has_rows() ? Json(d.rows()) : Json(nullptr)},
      {"columns", d.has_columns() ? Json(d.columns()) : Json(nullptr)},
      {"header", d.header().empty()
                     ? Json(nullptr)
                     : Json(std::vector<std::string>(d.header().begin(),
                                                     d.header().end()))}};
}

}  // namespace webnnm::client
