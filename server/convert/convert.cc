#include "server/convert/convert.h"

#include <algorithm>

#include "engine/train/hyperparameters_proto.h"
#include "engine/train/optimizer.h"
#include "proto/convert/metrics.h"

namespace webnnm::server {
namespace {

template <typename T>
void SetOptional(const std::optional<double>& v, T* message,
                 void (T::*set)(double)) {
  if (v) (message->*set)(*v);
}

v1::OutputResult ToProto(const OutputResult& o) {
  v1::OutputResult out;
  out.set_name(o.name);
  SetOptional(o.test_loss, &out, &v1::OutputResult::set_test_loss);
  SetOptional(o.test_accuracy, &out, &v1::OutputResult::set_test_accuracy);
  return out;
}

OutputResult FromProto(const v1::OutputResult& o) {
  OutputResult out;
  out.name = o.name();
  if (o.has_test_loss()) out.test_loss = o.test_loss();
  if (o.has_test_accuracy()) out.test_accuracy = o.test_accuracy();
  return out;
}

std::vector<OutputResult> FromProto(
    const google::protobuf::RepeatedPtrField<v1::OutputResult>& list) {
  std::vector<OutputResult> out;
  for (const v1::OutputResult& o : list) out.push_back(FromProto(o));
  return out;
}

v1::TestEvent ToProto(const TestReport& t) {
  v1::TestEvent e;
  e.set_samples(t.samples);
  SetOptional(t.test_loss, &e, &v1::TestEvent::set_test_loss);
  SetOptional(t.test_accuracy, &e, &v1::TestEvent::set_test_accuracy);
  for (const OutputResult& o : t.outputs) *e.add_outputs() = ToProto(o);
  for (const auto& [name, m] : t.metrics)
    *e.add_metrics() = wire::ToProto(name, m);
  return e;
}

TestReport FromProto(const v1::TestEvent& e) {
  TestReport t;
  t.samples = e.samples();
  if (e.has_test_loss()) t.test_loss = e.test_loss();
  if (e.has_test_accuracy()) t.test_accuracy = e.test_accuracy();
  t.outputs = FromProto(e.outputs());
  for (const v1::OutputMetrics& m : e.metrics()) {
    t.metrics.push_back(wire::FromProto(m));
  }
  return t;
}

v1::JobSummary ToProto(const JobSummary& s) {
  v1::JobSummary out;
  out.set_epochs(s.epochs);
  out.set_best_epoch(s.best_epoch);
  out.set_train_samples_per_second(s.train_samples_per_second);
  out.set_trained_samples(s.trained_samples);
  SetOptional(s.final_train_loss, &out, &v1::JobSummary::set_final_train_loss);
  SetOptional(s.validation_loss, &out, &v1::JobSummary::set_validation_loss);
  out.set_test_samples(s.test.samples);
  SetOptional(s.test.test_loss, &out, &v1::JobSummary::set_test_loss);
  SetOptional(s.test.test_accuracy, &out, &v1::JobSummary::set_test_accuracy);
  for (const OutputResult& o : s.test.outputs) *out.add_outputs() = ToProto(o);
  for (const auto& [name, m] : s.test.metrics) {
    *out.add_metrics() = wire::ToProto(name, m);
  }
  for (const train::Decision& d : s.decisions) {
    *out.add_decisions() = server::ToProto(d);
  }
  for (const std::string& w : s.warnings) out.add_warnings(w);
  return out;
}

JobSummary FromProto(const v1::JobSummary& s) {
  JobSummary out;
  out.epochs = s.epochs();
  out.best_epoch = s.best_epoch();
  out.train_samples_per_second = s.train_samples_per_second();
  out.trained_samples = s.trained_samples();
  if (s.has_final_train_loss()) out.final_train_loss = s.final_train_loss();
  if (s.has_validation_loss()) out.validation_loss = s.validation_loss();
  out.test.samples = s.test_samples();
  if (s.has_test_loss()) out.test.test_loss = s.test_loss();
  if (s.has_test_accuracy()) out.test.test_accuracy = s.test_accuracy();
  out.test.outputs = FromProto(s.outputs());
  for (const v1::OutputMetrics& m : s.metrics()) {
    out.test.metrics.push_back(wire::FromProto(m));
  }
  for (const v1::Decision& d : s.decisions()) {
    out.decisions.push_back({d.what(), d.why()});
  }
  out.warnings.assign(s.warnings().begin(), s.warnings().end());
  return out;
}

v1::EpochEvent ToProto(const train::EpochReport& r) {
  v1::EpochEvent e;
  e.set_epoch(r.epoch);
  e.set_epochs(r.epochs);
  e.set_train_loss(r.train_loss);
  SetOptional(r.validation_loss, &e, &v1::EpochEvent::set_validation_loss);
  SetOptional(r.train_accuracy, &e, &v1::EpochEvent::set_train_accuracy);
  SetOptional(r.validation_accuracy, &e,
              &v1::EpochEvent::set_validation_accuracy);
  e.set_lr(r.lr);
  e.set_samples_per_second(r.samples_per_second);
  return e;
}

train::EpochReport FromProto(const v1::EpochEvent& e) {
  train::EpochReport r;
  r.epoch = e.epoch();
  r.epochs = e.epochs();
  r.train_loss = e.train_loss();
  if (e.has_validation_loss()) r.validation_loss = e.validation_loss();
  if (e.has_train_accuracy()) r.train_accuracy = e.train_accuracy();
  if (e.has_validation_accuracy()) {
    r.validation_accuracy = e.validation_accuracy();
  }
  r.lr = e.lr();
  r.samples_per_second = e.samples_per_second();
  return r;
}

}  // namespace

google::protobuf::Timestamp ToProto(Time t) {
  const int64_t ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch())
          .count();
  google::protobuf::Timestamp out;
  out.set_seconds(ns / 1000000000);
  out.set_nanos(static_cast<int32_t>(ns % 1000000000));
  return out;
}

Time FromProto(const google::protobuf::Timestamp& t) {
  return Time(std::chrono::duration_cast<Time::duration>(
      std::chrono::seconds(t.seconds()) + std::chrono::nanoseconds(t.nanos())));
}

v1::Decision ToProto(const train::Decision& d) {
  v1::Decision out;
  out.set_what(d.what);
  out.set_why(d.why);
  return out;
}

v1::DataSpec ToProto(const DataSpec& d) {
  v1::DataSpec out;
  out.set_dataset_id(d.dataset_id);
  out.set_label(d.label);
  out.set_no_header(d.no_header);
  out.set_split(d.split);
  out.set_standardization(static_cast<v1::Standardization>(d.standardize));
  out.set_standardize(d.standardize == train::StandardizeMode::kOn);
  // Absent: auto (the default).
  if (d.impute != train::ImputeMode::kAuto) {
    out.set_impute(train::ImputeModeName(d.impute));
  }
  out.set_resize(d.resize);
  out.set_chosen_label(d.chosen_label);
  return out;
}

DataSpec FromProto(const v1::DataSpec& d) {
  return {
      .dataset_id = d.dataset_id(),
      .label = d.label(),
      .chosen_label = d.chosen_label(),
      .no_header = d.no_header(),
      .split = d.split(),
      .standardize =
          d.standardization() != v1::STANDARDIZATION_AUTO
              ? static_cast<train::StandardizeMode>(d.standardization())
          : d.standardize() ? train::StandardizeMode::kOn
                            : train::StandardizeMode::kAuto,
      // Checked on submission (CheckImpute); absent (or unknown) reads as
      // auto.
      .impute =
          train::ParseImputeMode(d.impute()).value_or(train::ImputeMode::kAuto),
      .resize = d.resize()};
}

v1::Job ToProto(const Job& j) {
  v1::Job out;
  out.set_job_id(j.id);
  out.set_principal(j.principal);
  out.set_kind(ToProto(j.kind));
  out.set_state(ToProto(j.state));
  out.set_model_name(j.model_name);
  out.set_dataset_id(j.dataset_id);
  out.set_epoch(j.epoch);
  out.set_epochs(j.epochs);
  out.set_best_epoch(j.best_epoch);
  SetOptional(j.test_accuracy, &out, &v1::Job::set_test_accuracy);
  SetOptional(j.test_loss, &out, &v1::Job::set_test_loss);
  out.set_error(j.error);
  if (j.created) *out.mutable_created() = ToProto(*j.created);
  if (j.started) *out.mutable_started() = ToProto(*j.started);
  if (j.finished) *out.mutable_finished() = ToProto(*j.finished);
  out.set_attempt(j.attempt);
  if (j.summary) *out.mutable_summary() = ToProto(*j.summary);
  out.set_backend(j.backend);
  out.set_last_seq(j.last_seq);
  out.set_snapshot_job_id(j.snapshot_job_id);
  if (!j.hyperparameters.empty()) {
    *out.mutable_hyperparameters() = train::ValuesToProto(j.hyperparameters);
  }
  *out.mutable_data() = ToProto(j.data);
  out.set_has_snapshot(j.has_snapshot);
  out.set_stopped_with_daemon(j.stopped_with_daemon);
  out.set_crash_restarts(j.crash_restarts);
  out.set_node(j.node);
  out.set_waiting(j.waiting);
  out.set_name(j.name);
  out.mutable_tags()->insert(j.tags.begin(), j.tags.end());
  out.set_note(j.note);
  if (j.resolved_hyperparameters) {
    *out.mutable_resolved_hyperparameters() =
        train::HyperparametersToProto(*j.resolved_hyperparameters);
  }
  return out;
}

Job FromProto(const v1::Job& j) {
  Job out;
  out.id = j.job_id();
  out.principal = j.principal();
  out.kind = FromProto(j.kind());
  out.state = FromProto(j.state());
  out.model_name = j.model_name();
  out.dataset_id = j.dataset_id();
  out.epoch = j.epoch();
  out.epochs = j.epochs();
  out.best_epoch = j.best_epoch();
  if (j.has_test_accuracy()) out.test_accuracy = j.test_accuracy();
  if (j.has_test_loss()) out.test_loss = j.test_loss();
  out.error = j.error();
  if (j.has_created()) out.created = FromProto(j.created());
  if (j.has_started()) out.started = FromProto(j.started());
  if (j.has_finished()) out.finished = FromProto(j.finished());
  out.attempt = j.attempt();
  if (j.has_summary()) out.summary = FromProto(j.summary());
  out.backend = j.backend();
  out.last_seq = j.last_seq();
  out.snapshot_job_id = j.snapshot_job_id();
  out.hyperparameters = train::ValuesFromProto(j.hyperparameters());
  out.data = FromProto(j.data());
  out.has_snapshot = j.has_snapshot();
  out.stopped_with_daemon = j.stopped_with_daemon();
  out.crash_restarts = j.crash_restarts();
  out.node = j.node();
  out.waiting = j.waiting();
  out.name = j.name();
  out.tags.insert(j.tags().begin(), j.tags().end());
  out.note = j.note();
  if (j.has_resolved_hyperparameters()) {
    // Written by HyperparametersToProto: every member present.
    absl::StatusOr<train::Hyperparameters> resolved =
        train::HyperparametersFromProto(j.resolved_hyperparameters());
    if (resolved.ok()) out.resolved_hyperparameters = *resolved;
  }
  return out;
}

v1::SubmitJobRequest ToProto(const JobRequest& r) {
  v1::SubmitJobRequest out;
  out.set_kind(ToProto(r.kind));
  out.set_model_text(r.model_text);
  out.set_file_name(r.file_name);
  *out.mutable_data() = ToProto(r.data);
  *out.mutable_hyperparameters() = train::ValuesToProto(r.hyperparameters);
  out.set_backend(r.backend);
  out.set_idempotency_key(r.idempotency_key);
  out.set_snapshot_job_id(r.snapshot_job_id);
  out.set_name(r.name);
  out.mutable_tags()->insert(r.tags.begin(), r.tags.end());
  out.set_note(r.note);
  return out;
}

JobRequest FromProto(const v1::SubmitJobRequest& r) {
  return {.kind = FromProto(r.kind()),
          .model_text = r.model_text(),
          .file_name = r.file_name(),
          .data = FromProto(r.data()),
          .hyperparameters = train::ValuesFromProto(r.hyperparameters()),
          .backend = r.backend(),
          .idempotency_key = r.idempotency_key(),
          .snapshot_job_id = r.snapshot_job_id(),
          .name = r.name(),
          .tags = {r.tags().begin(), r.tags().end()},
          .note = r.note()};
}

v1::JobEvent ToProto(const JobEvent& e) {
  v1::JobEvent out;
  out.set_seq(e.seq);
  if (e.time) *out.mutable_time() = ToProto(*e.time);
  out.set_type(static_cast<v1::EventType>(e.type));
  out.set_job_id(e.job_id);
  switch (e.type) {
    case EventType::kState:
      out.set_state(ToProto(e.state));
      break;
    case EventType::kDecision:
      *out.mutable_decision() = ToProto(e.decision);
      break;
    case EventType::kWarning:
      out.set_warning(e.warning);
      break;
    case EventType::kScout:
      out.mutable_scout()->set_seeds(e.scout.seeds);
      out.mutable_scout()->set_chosen(e.scout.chosen);
      out.mutable_scout()->set_detail(e.scout.detail);
      break;
    case EventType::kEpoch:
      *out.mutable_epoch() = ToProto(e.epoch);
      break;
    case EventType::kSnapshot:
      out.mutable_snapshot()->set_epoch(e.snapshot.epoch);
      out.mutable_snapshot()->set_bytes(e.snapshot.bytes);
      out.mutable_snapshot()->set_kind(e.snapshot.kind);
      break;
    case EventType::kTest:
      *out.mutable_test() = ToProto(e.test);
      break;
    case EventType::kError:
      out.set_error(e.error);
      break;
    case EventType::kUnspecified:
      break;
  }
  out.set_message(e.message);
  return out;
}

JobEvent FromProto(const v1::JobEvent& e) {
  JobEvent out;
  out.seq = e.seq();
  if (e.has_time()) out.time = FromProto(e.time());
  out.type = static_cast<EventType>(e.type());
  out.job_id = e.job_id();
  out.state = FromProto(e.state());
  out.decision = {e.decision().what(), e.decision().why()};
  out.warning = e.warning();
  out.scout = {e.scout().seeds(), e.scout().chosen(), e.scout().detail()};
  out.epoch = FromProto(e.epoch());
  out.snapshot = {e.snapshot().epoch(), e.snapshot().bytes(),
                  e.snapshot().kind()};
  out.test = FromProto(e.test());
  out.error = e.error();
  out.message = e.message();
  return out;
}

v1::Dataset ToProto(const Dataset& d) {
  v1::Dataset out;
  out.set_dataset_id(d.id);
  out.set_name(d.name);
  out.set_format(static_cast<v1::DatasetFormat>(d.format));
  out.set_sha256(d.sha256);
  out.set_bytes(d.bytes);
  if (d.created) *out.mutable_created() = ToProto(*d.created);
  for (const std::string& f : d.files) out.add_files(f);
  if (d.rows) out.set_rows(*d.rows);
  if (d.columns) out.set_columns(*d.columns);
  for (const std::string& h : d.header) out.add_header(h);
  return out;
}

Dataset FromProto(const v1::Dataset& d) {
  Dataset out;
  out.id = d.dataset_id();
  out.name = d.name();
  out.format = static_cast<DatasetFormat>(d.format());
  out.sha256 = d.sha256();
  out.bytes = d.bytes();
  if (d.has_created()) out.created = FromProto(d.created());
  out.files.assign(d.files().begin(), d.files().end());
  if (d.has_rows()) out.rows = d.rows();
  if (d.has_columns()) out.columns = d.columns();
  out.header.assign(d.header().begin(), d.header().end());
  return out;
}

v1::MetricSeries ToProto(const MetricSeries& series) {
  v1::MetricSeries out;
  out.set_name(series.name);
  for (const MetricPoint& p : series.points) {
    v1::MetricPoint* point = out.add_points();
    point->set_epoch(p.epoch);
    point->set_value(p.value);
  }
  return out;
}

v1::Hyperparameters ShownHyperparameters(const train::Hyperparameters& h) {
  train::Hyperparameters shown = h;
  train::OptimizerParams defaults = train::DefaultOptimizerParams(h.optimizer);
  if (!shown.weight_decay) shown.weight_decay = defaults.weight_decay;
  if (!shown.momentum_factor) shown.momentum_factor = defaults.momentum;
  if (!shown.beta1) shown.beta1 = defaults.beta1;
  if (!shown.beta2) shown.beta2 = defaults.beta2;
  if (!shown.epsilon && train::IsAdam(h.optimizer)) {
    shown.epsilon = defaults.epsilon;
  }
  if (shown.warmup_epochs == 0) {
    shown.warmup_epochs = std::max(1, static_cast<int>(h.epochs * 0.05));
  }
  return train::HyperparametersToProto(shown);
}

}  // namespace webnnm::server
