#include "client/evaluation_text.h"

#include <cstdio>
#include <string>
#include <vector>

#include "client/terminal.h"

namespace webnnm::client {
namespace {

std::string Number(double v, const char* format = "%.4g") {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

std::string Rate(double v) { return Number(v, "%.0f"); }

// Each line of `text` indented by `pad`.
std::string Indent(const std::string& text, const std::string& pad) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    out += pad + text.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return out;
}

bool Has(const Json& o, const char* key) {
  return o.is_object() && o.contains(key) && !o[key].is_null();
}

std::string Classification(const std::string& name, const Json& m) {
  const std::vector<std::string> classes = m["classes"];
  std::string out =
      name + ": classification" +
      (Has(m, "accuracy") ? ", accuracy " + Number(m["accuracy"].get<double>())
                          : std::string()) +
      "\n";
  std::vector<std::vector<std::string>> rows = {
      {"class", "precision", "recall", "f1", "support"}};
  const Json& confusion =
      m.contains("confusionMatrix") ? m["confusionMatrix"] : Json::array();
  for (size_t c = 0; c < classes.size(); ++c) {
    int64_t support = 0;
    if (c < confusion.size()) {
      for (const Json& n : confusion[c]) support += n.get<int64_t>();
    }
    auto at = [&](const char* key) {
      return Has(m, key) && c < m[key].size() && m[key][c].is_number()
                 ? Number(m[key][c].get<double>(), "%.3f")
                 : std::string("-");
    };
    rows.push_back({classes[c], at("precision"), at("recall"), at("f1"),
                    std::to_string(support)});
  }
  out += Indent(Table(rows), "  ");
  if (confusion.size() == classes.size()) {
    out +=
        "  confusion matrix (a row per true class, a column per "
        "predicted class):\n";
    std::vector<std::vector<std::string>> matrix = {{"true \\ predicted"}};
    for (const std::string& c : classes) matrix[0].push_back(c);
    for (size_t r = 0; r < classes.size(); ++r) {
      std::vector<std::string> line = {classes[r]};
      for (const Json& n : confusion[r]) {
        line.push_back(std::to_string(n.get<int64_t>()));
      }
      matrix.push_back(std::move(line));
    }
    out += Indent(Table(matrix), "  ");
  }
  return out;
}

std::string Regression(const std::string& name, const Json& m,
                       bool standardized_targets, const Json& loss) {
  std::string out = name + ": regression";
  if (!loss.is_null()) {
    out += ", test loss " + Number(loss.get<double>()) +
           (standardized_targets
                ? " (on the standardized targets the model trained on)"
                : " (in the target's units)");
  }
  out += "\n";
  // One unit: a number each; several: a list each.
  auto list = [&m](const char* key) {
    const Json v = m.is_object() && m.contains(key) ? m[key] : Json();
    return v.is_array() ? v : Json::array({v});
  };
  const Json mae = list("mae"), rmse = list("rmse"), r2 = list("r2");
  auto at = [](const Json& v, size_t u) {
    return u < v.size() && v[u].is_number() ? Number(v[u].get<double>())
                                            : std::string("-");
  };
  for (size_t u = 0; u < mae.size(); ++u) {
    out += "  " +
           (mae.size() > 1 ? "unit " + std::to_string(u + 1) + ": " : "") +
           "MAE " + at(mae, u) + ", RMSE " + at(rmse, u) +
           " (in the target's own units), R² " + at(r2, u) + "\n";
  }
  return out;
}

}  // namespace

Json WallSamplesPerSecond(const Json& job) {
  if (!Has(job, "trainedSamples") || !Has(job, "durationSeconds")) {
    return nullptr;
  }
  const double seconds = job["durationSeconds"].get<double>();
  const double samples = job["trainedSamples"].get<double>();
  if (seconds <= 0 || samples <= 0) return nullptr;
  return samples / seconds;
}

std::string EvaluationText(const Json& job) {
  std::string out;
  if (Has(job, "trainSamplesPerSecond")) {
    out += "speed: " + Rate(job["trainSamplesPerSecond"].get<double>()) +
           " samples/s in the training steps (trainSamplesPerSecond)";
    const Json wall = WallSamplesPerSecond(job);
    if (!wall.is_null()) {
      out += "; " + Rate(wall.get<double>()) + " samples/s over the run's " +
             Number(job["durationSeconds"].get<double>(), "%.3g") +
             " s of wall time, scouting, the range test, validation and "
             "testing included (wallSamplesPerSecond)";
    }
    out += "\n";
  }
  if (!Has(job, "testMetrics") || job["testMetrics"].empty()) return out;
  if (Has(job, "testSamples")) {
    out += "test: " + std::to_string(job["testSamples"].get<int64_t>()) +
           " samples\n";
  }
  bool standardized_targets = false;
  if (Has(job, "decisions")) {
    for (const Json& d : job["decisions"]) {
      const std::string what = d.value("what", "");
      standardized_targets |= what.rfind("standardize the targets", 0) == 0;
    }
  }
  for (const auto& [name, m] : job["testMetrics"].items()) {
    const Json loss = Has(job, "outputs") && Has(job["outputs"], name.c_str())
                          ? job["outputs"][name].value("testLoss", Json())
                          : Json();
    out += Has(m, "classes") ? Classification(name, m)
                             : Regression(name, m, standardized_targets, loss);
  }
  if (Has(job, "testLoss") && job["testLoss"].get<double>() < 0 &&
      job["testMetrics"].size() > 1) {
    out += "the total test loss " + Number(job["testLoss"].get<double>()) +
           " is below zero: with several outputs and lossWeights auto, each "
           "output's loss is weighed by a learned uncertainty (loss / 2σ² + "
           "log σ), whose log term is negative for an output learned well; "
           "compare the outputs by their own losses and metrics above\n";
  }
  return out;
}

}  // namespace webnnm::client
