#include "engine/api/predict_output.h"

#include <cstdio>

#include "engine/train/npz_write.h"

namespace webnnm {
namespace {

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string Field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return quoted + "\"";
}

std::string Number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

std::string Header(const Predictions& p) {
  std::string header;
  auto column = [&](const std::string& name) {
    header += (header.empty() ? "" : ",") + Field(name);
  };
  for (const OutputPredictions& o : p.outputs) {
    if (o.classification) {
      column(o.name + ":class");
      for (const std::string& c : o.classes) column(o.name + ":" + c);
    } else if (o.units == 1) {
      column(o.name);
    } else {
      for (int64_t u = 0; u < o.units; ++u) {
        column(o.name + ":" + std::to_string(u));
      }
    }
  }
  return header;
}

}  // namespace

std::vector<double> ClassProbabilities(const OutputPredictions& o, int64_t i) {
  if (o.units == 1) {
    const double p = o.values[i];
    return {1 - p, p};
  }
  return {o.values.begin() + i * o.units,
          o.values.begin() + (i + 1) * o.units};
}

std::string PredictionsCsv(const Predictions& p) {
  std::string out = Header(p) + "\n";
  for (int64_t i = 0; i < p.samples; ++i) {
    std::string row;
    auto cell = [&](const std::string& text) {
      row += (row.empty() ? "" : ",") + text;
    };
    for (const OutputPredictions& o : p.outputs) {
      if (o.classification) {
        cell(Field(o.classes[o.predicted[i]]));
        for (double v : ClassProbabilities(o, i)) cell(Number(v));
      } else {
        for (int64_t u = 0; u < o.units; ++u) {
          cell(Number(o.values[i * o.units + u]));
        }
      }
    }
    out += row + "\n";
  }
  return out;
}

absl::StatusOr<std::string> PredictionsNpz(const Predictions& p) {
  std::vector<train::NpyOut> arrays;
  for (const OutputPredictions& o : p.outputs) {
    if (o.classification) {
      std::vector<double> probabilities;
      for (int64_t i = 0; i < p.samples; ++i) {
        for (double v : ClassProbabilities(o, i)) probabilities.push_back(v);
      }
      const auto classes = static_cast<int64_t>(o.classes.size());
      arrays.push_back(
          train::Float32Array(o.name, {p.samples, classes}, probabilities));
      arrays.push_back(
          train::Int64Array(o.name + "_class", {p.samples}, o.predicted));
      arrays.push_back(train::UnicodeArray(o.name + "_classes", o.classes));
    } else {
      arrays.push_back(
          train::Float32Array(o.name, {p.samples, o.units}, o.values));
    }
  }
  return train::EncodeNpz(arrays);
}

}  // namespace webnnm
