#include "server/convert/answers.h"

#include "engine/base/strings.h"
#include "server/convert/convert.h"

namespace webnnm::server {
namespace {

// Every diagnostic, up to kBodyDiagnostics; then one saying how many more
// there were.
constexpr size_t kBodyDiagnostics = 1000;

void FillDiagnostics(const CheckResult& check,
                     v1::CheckModelResponse& response) {
  for (size_t i = 0; i < check.diagnostics.size(); ++i) {
    const LocatedDiagnostic& d = check.diagnostics[i];
    v1::Diagnostic* out = response.add_diagnostics();
    if (i == kBodyDiagnostics) {
      out->set_severity("error");
      out->set_message(StrCat("… and ", check.diagnostics.size() - i, " more"));
      break;
    }
    out->set_severity(SeverityName(d.severity));
    out->set_message(d.message);
    out->set_line(d.line);
    out->set_column(d.column);
  }
  response.set_rendered(
      check.diagnostics.size() > kBodyDiagnostics
          ? RenderedFirst(check, kBodyDiagnostics, size_t{64} << 20)
          : check.rendered);
}

}  // namespace

void FillCheck(const CheckResult& check, v1::CheckModelResponse& response) {
  response.set_ok(check.ok);
  response.set_model_name(check.name);
  FillDiagnostics(check, response);
  for (const std::string& w : check.warnings) response.add_warnings(w);
  if (!check.ok || !check.summary || !check.dag) return;
  const ModelSummary& s = *check.summary;
  for (const auto* list : {&s.inputs, &s.outputs}) {
    for (const TensorSummary& t : *list) {
      v1::TensorInfo* info = list == &s.inputs ? response.add_inputs()
                                               : response.add_outputs();
      info->set_name(t.name);
      info->set_data_type(ir::DTypeName(t.dtype));
      info->add_shape(-1);
      for (int64_t e : t.shape) info->add_shape(e);
    }
  }
  for (const ParameterSummary& p : s.parameters) {
    v1::TensorInfo* info = response.add_parameter_tensors();
    info->set_name(p.name);
    info->set_data_type(ir::DTypeName(p.dtype));
    for (int64_t e : p.shape) info->add_shape(e);
  }
  response.set_parameters(s.parameter_count);
  response.set_operations(s.node_count);
}

void FillPreview(const train::Preview& preview,
                 v1::CheckModelResponse& response) {
  for (const train::Decision& d : preview.decisions) {
    *response.add_decisions() = ToProto(d);
  }
  for (const std::string& w : preview.warnings) response.add_warnings(w);
  *response.mutable_resolved() = ShownHyperparameters(preview.resolved);
}

v1::Node ToProto(const NodeRecord& n) {
  v1::Node out;
  out.set_name(n.name);
  out.set_address(n.address);
  out.set_version(n.version);
  if (n.started) *out.mutable_started() = ToProto(*n.started);
  if (n.seen) *out.mutable_last_seen() = ToProto(*n.seen);
  out.set_workers(n.workers);
  out.set_busy(n.busy);
  out.set_threads(n.threads);
  for (const std::string& id : n.running) out.add_running_job_ids(id);
  return out;
}

v1::PredictChunk PredictHeader(const Predictions& p, const std::string& job_id,
                               bool npz, int64_t bytes) {
  v1::PredictChunk first;
  first.set_samples(p.samples);
  for (const OutputPredictions& o : p.outputs) {
    v1::PredictedOutput* out = first.add_outputs();
    out->set_name(o.name);
    out->set_classification(o.classification);
    for (const std::string& c : o.classes) out->add_classes(c);
    out->set_units(o.units);
    out->set_sequenced(o.sequenced);
  }
  first.set_file_name(
      StrCat(job_id, "-predictions", npz ? ".npz" : ".csv"));
  first.set_content_type(npz ? "application/zip" : "text/csv");
  first.set_total_bytes(bytes);
  return first;
}

v1::JobEvent ProgressEvent(const std::string& job,
                           const train::StepReport& r) {
  v1::JobEvent e;
  e.set_seq(0);
  e.set_job_id(job);
  e.set_type(v1::EVENT_TYPE_PROGRESS);
  *e.mutable_time() = ToProto(Now());
  v1::ProgressEvent* p = e.mutable_progress();
  p->set_epoch(r.epoch);
  p->set_epochs(r.epochs);
  p->set_step(r.step);
  p->set_steps(r.steps);
  p->set_rows(r.rows);
  p->set_seconds(r.seconds);
  return e;
}

}  // namespace webnnm::server
