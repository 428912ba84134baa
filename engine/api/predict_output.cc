#include "engine/api/predict_output.h"

#include <algorithm>
#include <cstdio>

#include "engine/data/npz_write.h"

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

// The steps of sample i that are predicted (1 unless sequenced).
int64_t RealSteps(const OutputPredictions& o, int64_t i) {
  if (!o.sequenced) return 1;
  return o.lengths.empty() ? o.steps : o.lengths[i];
}

}  // namespace

std::vector<double> ClassProbabilities(const OutputPredictions& o, int64_t i) {
  // i: a sample's (or a step's, OutputPredictions::at) index.
  if (o.units == 1) {
    const double p = o.values[i];
    return {1 - p, p};
  }
  return {o.values.begin() + i * o.units, o.values.begin() + (i + 1) * o.units};
}

std::string PredictionsCsv(const Predictions& p) {
  std::string out = Header(p) + "\n";
  for (int64_t i = 0; i < p.samples; ++i) {
    std::string row;
    for (const OutputPredictions& o : p.outputs) {
      // A column per class or unit; a sequenced output's cells list their
      // real steps' values, separated by spaces.
      const int64_t steps = RealSteps(o, i);
      const int64_t columns = o.classification
                                  ? 1 + static_cast<int64_t>(o.classes.size())
                                  : o.units;
      std::vector<std::string> cells(columns);
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t at = o.at(i, t);
        std::vector<std::string> values;
        if (o.classification) {
          values.push_back(o.classes[o.predicted[at]]);
          for (double v : ClassProbabilities(o, at)) {
            values.push_back(Number(v));
          }
        } else {
          for (int64_t u = 0; u < o.units; ++u) {
            values.push_back(Number(o.values[at * o.units + u]));
          }
        }
        for (int64_t c = 0; c < columns; ++c) {
          cells[c] += (t ? " " : "") + values[c];
        }
      }
      for (const std::string& cell : cells) {
        row += (row.empty() ? "" : ",") + Field(cell);
      }
    }
    out += row + "\n";
  }
  return out;
}

absl::StatusOr<std::string> PredictionsNpz(const Predictions& p) {
  std::vector<train::NpyOut> arrays;
  for (const OutputPredictions& o : p.outputs) {
    // [N] or, sequenced, [N, T]; the values' shape adds the last axis.
    std::vector<int64_t> shape = {p.samples};
    if (o.sequenced) shape.push_back(o.steps);
    const int64_t n = p.samples * o.steps;
    // A ragged sample's padded steps: probabilities and values 0, class -1.
    auto padding = [&](int64_t at) {
      return o.sequenced && !o.lengths.empty() &&
             at % o.steps >= o.lengths[at / o.steps];
    };
    if (o.classification) {
      const auto classes = static_cast<int64_t>(o.classes.size());
      std::vector<double> probabilities;
      std::vector<int64_t> predicted = o.predicted;
      for (int64_t at = 0; at < n; ++at) {
        for (double v : ClassProbabilities(o, at)) {
          probabilities.push_back(padding(at) ? 0.0 : v);
        }
        if (padding(at)) predicted[at] = -1;
      }
      std::vector<int64_t> value_shape = shape;
      value_shape.push_back(classes);
      arrays.push_back(train::Float32Array(o.name, value_shape, probabilities));
      arrays.push_back(train::Int64Array(o.name + "_class", shape, predicted));
      arrays.push_back(train::UnicodeArray(o.name + "_classes", o.classes));
    } else {
      std::vector<double> values = o.values;
      for (int64_t at = 0; at < n; ++at) {
        if (!padding(at)) continue;
        std::fill(values.begin() + at * o.units,
                  values.begin() + (at + 1) * o.units, 0.0);
      }
      std::vector<int64_t> value_shape = shape;
      value_shape.push_back(o.units);
      arrays.push_back(train::Float32Array(o.name, value_shape, values));
    }
    if (o.sequenced && !o.lengths.empty()) {
      arrays.push_back(
          train::Int64Array(o.name + "_lengths", {p.samples}, o.lengths));
    }
  }
  return train::EncodeNpz(arrays);
}

}  // namespace webnnm
