#include "engine/check.h"

#include <algorithm>

#include "engine/base/strings.h"

#include "engine/lang/parser.h"
#include "engine/model/build.h"
#include "engine/model/prelude.h"

namespace webnnm {
namespace {

std::string Stem(const std::string& file_name) {
  size_t slash = file_name.find_last_of('/');
  std::string base =
      slash == std::string::npos ? file_name : file_name.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

TensorSummary Endpoint(const dag::Dag& dag, const dag::Endpoint& endpoint) {
  const ir::TensorType& type =
      dag.graph.value(dag.graph.output(endpoint.node)).type;
  TensorSummary summary;
  summary.name = endpoint.name;
  summary.dtype = type.dtype;
  for (int i = 0; i < type.rank(); ++i) {
    if (ir::IsSymbolic(type.shape[i])) {
      summary.sequenced |= type.shape[i] == ir::kSequenceDim;
      continue;
    }
    summary.shape.push_back(type.shape[i]);
    summary.dims.push_back(type.has_names() ? type.names[i] : "");
  }
  return summary;
}

}  // namespace

ModelSummary Summarize(const dag::Dag& dag) {
  ModelSummary summary;
  summary.name = dag.name;
  for (const dag::Endpoint& e : dag.inputs) {
    summary.inputs.push_back(Endpoint(dag, e));
  }
  for (const dag::Endpoint& e : dag.outputs) {
    summary.outputs.push_back(Endpoint(dag, e));
  }
  for (const dag::LayerInfo& layer : dag.layers) {
    summary.layers.push_back(
        {layer.section, layer.op, layer.names, layer.result.ToString(), 0});
  }
  for (ir::NodeId id : dag.parameters) {
    const ir::Node& node = dag.graph.node(id);
    const ir::TensorType& type = dag.graph.value(dag.graph.output(id)).type;
    ParameterSummary p{node.name, type.dtype, type.shape, node.parameter.init,
                       node.parameter.trainable};
    if (p.trainable) {
      summary.parameter_count += type.MinElementCount().value_or(0);
      summary.parameters.push_back(std::move(p));
    } else {
      summary.state.push_back(std::move(p));
    }
  }
  summary.node_count = dag.graph.CountLiveNodes();
  return summary;
}

CheckResult CheckModel(const std::string& file_name, std::string text,
                       const ir::Limits& limits) {
  // The model's text, then the prelude (model/prelude.h): each parsed on
  // its own, the prelude's offsets placed after the model's, so that every
  // range locates in the one file the diagnostics render.
  const std::string_view prelude_text = model::PreludeText();
  auto file = std::make_shared<SourceFile>(file_name, text,
                                           model::kPreludeName, prelude_text);
  Diagnostics diagnostics(file);
  CheckResult result;
  result.name = Stem(file_name);
  lang::Module module =
      lang::Parse(SourceFile(file_name, std::move(text)), diagnostics);
  if (!diagnostics.has_errors()) {
    const SourceFile padded(
        model::kPreludeName,
        std::string(file->appended_at(), ' ') + std::string(prelude_text));
    Diagnostics prelude_diagnostics(file);
    model::AddPrelude(module, lang::Parse(padded, prelude_diagnostics));
  }
  if (!diagnostics.has_errors()) {
    model::Model model = model::Build(module, diagnostics);
    if (model.name.empty()) model.name = result.name;
    result.name = model.name;
    if (!diagnostics.has_errors()) {
      result.dag = dag::Build(model, diagnostics, limits);
    }
  }
  result.ok = !diagnostics.has_errors() && result.dag.has_value();
  if (result.ok) {
    result.summary = Summarize(*result.dag);
  } else {
    result.dag.reset();
  }
  result.diagnostics = diagnostics.LocateAll();
  result.rendered = diagnostics.RenderAll();
  for (const Diagnostic& d : diagnostics.all()) {
    result.rendered_each.push_back(diagnostics.Render(d));
  }
  for (const Diagnostic& d : diagnostics.all()) {
    if (d.severity == Severity::kWarning) result.warnings.push_back(d.message);
  }
  if (result.summary && result.dag) {
    for (size_t i = 0; i < result.dag->layers.size(); ++i) {
      result.summary->layers[i].line =
          file->Locate(result.dag->layers[i].range.begin).line;
    }
  }
  return result;
}

std::vector<std::string> ModelWarnings(const CheckResult& check) {
  std::vector<std::string> out;
  for (const LocatedDiagnostic& d : check.diagnostics) {
    if (d.severity != Severity::kWarning) continue;
    out.push_back(StrCat(d.file, ":", d.line, ":", d.column, ": ", d.message));
  }
  return out;
}

std::string RenderedFirst(const CheckResult& check, size_t count,
                          size_t bytes, std::string_view more) {
  // Errors first (a refusal says why), then the warnings; each list in
  // the order found.
  std::vector<size_t> order;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < check.rendered_each.size(); ++i) {
      const bool error = i < check.diagnostics.size() &&
                         check.diagnostics[i].severity == Severity::kError;
      if (error == (pass == 0)) order.push_back(i);
    }
  }
  std::string out;
  size_t shown = 0;
  for (size_t i : order) {
    const std::string& one = check.rendered_each[i];
    if (shown == count) break;
    if (out.size() + one.size() > bytes) {
      if (shown == 0) {  // the first alone, cut on a character boundary
        size_t cut = std::min(bytes, one.size());
        while (cut > 0 && (static_cast<unsigned char>(one[cut]) & 0xC0) == 0x80) {
          --cut;
        }
        out = one.substr(0, cut);
        shown = 1;
      }
      break;
    }
    out += one;
    ++shown;
  }
  if (shown < order.size()) {
    if (!out.empty() && out.back() != '\n') out += '\n';
    StrAppend(&out, "… and ", order.size() - shown, " more", more, "\n");
  }
  return out;
}

std::string RenderedForStatus(const CheckResult& check) {
  return RenderedFirst(check, kStatusDiagnostics, kStatusDiagnosticBytes,
                       " (CheckModel lists them all)");
}

}  // namespace webnnm
