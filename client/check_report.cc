#include "client/check_report.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_join.h"
#include "engine/base/strings.h"

namespace webnnm::client {
namespace {

using json = nlohmann::ordered_json;

std::string Shape(const std::vector<int64_t>& shape) {
  return StrCat("[", absl::StrJoin(shape, ", "), "]");
}

std::string Dims(const TensorSummary& t) {
  std::vector<std::string> dims = t.dims;
  if (t.sequenced) dims.insert(dims.begin(), "sequence");
  return StrCat("{", absl::StrJoin(dims, ", "), "}");
}

// Left-aligned columns.
std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = "  ";
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size())
        line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

json Tensor(const TensorSummary& t) {
  return json{{"name", t.name},
              {"dataType", ir::DTypeName(t.dtype)},
              {"shape", t.shape},
              {"dims", t.dims},
              {"sequenced", t.sequenced}};
}

}  // namespace

std::string CheckText(const CheckResult& result) {
  if (!result.ok || !result.summary) return "";
  const ModelSummary& s = *result.summary;
  std::string out = StrCat("model ", s.name, "\n");
  std::vector<std::vector<std::string>> rows;
  for (const TensorSummary& t : s.inputs) {
    rows.push_back({t.name, ir::DTypeName(t.dtype), Shape(t.shape), Dims(t)});
  }
  StrAppend(&out, "inputs:\n", Table(rows));
  rows.clear();
  for (const TensorSummary& t : s.outputs) {
    rows.push_back({t.name, ir::DTypeName(t.dtype), Shape(t.shape), Dims(t)});
  }
  StrAppend(&out, "outputs:\n", Table(rows));
  rows.clear();
  for (const LayerSummary& l : s.layers) {
    rows.push_back({StrCat("line ", l.line), l.section, l.op, l.result,
                    absl::StrJoin(l.names, ", ")});
  }
  StrAppend(&out, "layers:\n", Table(rows));
  rows.clear();
  for (const ParameterSummary& p : s.parameters) {
    rows.push_back(
        {p.name, ir::DTypeName(p.dtype), Shape(p.shape), ir::InitName(p.init)});
  }
  StrAppend(&out, "parameters:", rows.empty() ? " none" : "", "\n",
            Table(rows));
  if (!s.state.empty()) {
    rows.clear();
    for (const ParameterSummary& p : s.state) {
      rows.push_back({p.name, ir::DTypeName(p.dtype), Shape(p.shape),
                      ir::InitName(p.init)});
    }
    StrAppend(&out, "state (not trained):\n", Table(rows));
  }
  StrAppend(&out, s.parameter_count, " parameters, ", s.node_count, " nodes\n");
  return out;
}

std::string CheckJson(const CheckResult& result) {
  json out;
  out["ok"] = result.ok;
  out["name"] = result.name;
  out["inputs"] = json::array();
  out["outputs"] = json::array();
  out["parameters"] = json::array();
  out["parameterCount"] = 0;
  out["nodeCount"] = 0;
  if (result.ok && result.summary) {
    const ModelSummary& s = *result.summary;
    for (const TensorSummary& t : s.inputs) out["inputs"].push_back(Tensor(t));
    for (const TensorSummary& t : s.outputs) {
      out["outputs"].push_back(Tensor(t));
    }
    for (const ParameterSummary& p : s.parameters) {
      out["parameters"].push_back(json{{"name", p.name},
                                       {"dataType", ir::DTypeName(p.dtype)},
                                       {"shape", p.shape},
                                       {"init", ir::InitName(p.init)}});
    }
    out["parameterCount"] = s.parameter_count;
    out["nodeCount"] = s.node_count;
  }
  out["diagnostics"] = json::array();
  for (const LocatedDiagnostic& d : result.diagnostics) {
    out["diagnostics"].push_back(json{{"file", d.file},
                                      {"line", d.line},
                                      {"column", d.column},
                                      {"severity", SeverityName(d.severity)},
                                      {"message", d.message}});
  }
  out["warnings"] = result.warnings;
  return out.dump();
}

}  // namespace webnnm::client
