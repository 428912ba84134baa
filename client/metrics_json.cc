#include "client/metrics_json.h"

#include <cmath>

namespace webnnm::client {
namespace {

using Json = nlohmann::ordered_json;

Json Number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json List(const std::vector<double>& values) {
  Json out = Json::array();
  for (double v : values) out.push_back(Number(v));
  return out;
}

// A number for one unit, a list for several.
Json PerUnit(const std::vector<double>& values) {
  return values.size() == 1 ? Number(values[0]) : List(values);
}

}  // namespace

Json TestMetricsJson(
    const std::vector<std::pair<std::string, train::OutputMetrics>>& metrics) {
  Json out = Json::object();
  for (const auto& [name, m] : metrics) {
    Json o;
    if (m.classification) {
      const train::ClassificationMetrics& c = m.classes;
      o["accuracy"] = Number(c.accuracy);
      o["classes"] = c.classes;
      o["precision"] = List(c.precision);
      o["recall"] = List(c.recall);
      o["f1"] = List(c.f1);
      o["confusionMatrix"] = c.confusion;
    } else {
      o["mae"] = PerUnit(m.regression.mae);
      o["rmse"] = PerUnit(m.regression.rmse);
      o["r2"] = PerUnit(m.regression.r2);
    }
    out[name] = o;
  }
  return out;
}

std::vector<std::pair<std::string, train::OutputMetrics>> MetricsOf(
    const train::Evaluation& test, const dag::Dag& dag) {
  std::vector<std::pair<std::string, train::OutputMetrics>> out;
  for (const dag::Endpoint& e : dag.outputs) {
    auto it = test.metrics.find(e.name);
    if (it != test.metrics.end()) out.emplace_back(e.name, it->second);
  }
  return out;
}

}  // namespace webnnm::client
