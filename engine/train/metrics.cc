#include "engine/train/metrics.h"

#include <cmath>

namespace webnnm::train {

ClassificationAccumulator::ClassificationAccumulator(
    std::vector<std::string> classes, ClassRule rule)
    : classes_(std::move(classes)), rule_(rule) {
  if (classes_.empty()) {
    const int64_t n = rule_.units == 1 ? 2 : rule_.units;
    for (int64_t c = 0; c < n; ++c) classes_.push_back(std::to_string(c));
  }
  confusion_.assign(classes_.size(), std::vector<int64_t>(classes_.size(), 0));
}

int64_t PredictedClass(const float* values, const ClassRule& rule) {
  if (rule.units == 1) return values[0] >= rule.threshold ? 1 : 0;
  int64_t predicted = 0;
  for (int64_t u = 1; u < rule.units; ++u) {
    if (values[u] > values[predicted]) predicted = u;  // first of ties
  }
  return predicted;
}

void ClassificationAccumulator::Add(const float* values, int64_t label) {
  const int64_t predicted = PredictedClass(values, rule_);
  const int64_t n = static_cast<int64_t>(classes_.size());
  if (label < 0 || label >= n || predicted >= n) return;
  ++confusion_[label][predicted];
}

ClassificationMetrics ClassificationAccumulator::Finish() const {
  ClassificationMetrics m;
  m.classes = classes_;
  m.confusion = confusion_;
  const size_t n = classes_.size();
  int64_t total = 0, right = 0;
  std::vector<int64_t> predicted(n, 0), actual(n, 0);
  for (size_t t = 0; t < n; ++t) {
    for (size_t p = 0; p < n; ++p) {
      total += confusion_[t][p];
      actual[t] += confusion_[t][p];
      predicted[p] += confusion_[t][p];
    }
    right += confusion_[t][t];
  }
  m.accuracy = total > 0 ? static_cast<double>(right) / total : 0;
  for (size_t c = 0; c < n; ++c) {
    const double tp = static_cast<double>(confusion_[c][c]);
    const double p = predicted[c] > 0 ? tp / predicted[c] : 0;
    const double r = actual[c] > 0 ? tp / actual[c] : 0;
    m.precision.push_back(p);
    m.recall.push_back(r);
    m.f1.push_back(p + r > 0 ? 2 * p * r / (p + r) : 0);
  }
  return m;
}

RegressionAccumulator::RegressionAccumulator(int64_t units)
    : units_(units),
      abs_(units, 0),
      square_(units, 0),
      sum_(units, 0),
      sum_square_(units, 0) {}

std::vector<double> ClassificationAccumulator::Pack() const {
  std::vector<double> packed;
  for (const std::vector<int64_t>& row : confusion_) {
    for (int64_t n : row) packed.push_back(static_cast<double>(n));
  }
  return packed;
}

void ClassificationAccumulator::Unpack(const double* packed) {
  for (std::vector<int64_t>& row : confusion_) {
    for (int64_t& n : row) n = static_cast<int64_t>(std::llround(*packed++));
  }
}

void RegressionAccumulator::SetShift(const float* actual) {
  if (count_ == 0) shift_.assign(actual, actual + units_);
}

std::vector<double> RegressionAccumulator::Pack() const {
  std::vector<double> packed = {static_cast<double>(count_)};
  for (const std::vector<double>* v : {&abs_, &square_, &sum_, &sum_square_}) {
    packed.insert(packed.end(), v->begin(), v->end());
  }
  return packed;
}

void RegressionAccumulator::Unpack(const double* packed) {
  count_ = static_cast<int64_t>(std::llround(*packed++));
  for (std::vector<double>* v : {&abs_, &square_, &sum_, &sum_square_}) {
    for (double& x : *v) x = *packed++;
  }
}

void RegressionAccumulator::Add(const float* predicted, const float* actual) {
  if (count_ == 0 && shift_.empty()) shift_.assign(actual, actual + units_);
  for (int64_t u = 0; u < units_; ++u) {
    const double y = actual[u];
    const double e = static_cast<double>(predicted[u]) - y;
    abs_[u] += std::fabs(e);
    square_[u] += e * e;
    // Around the first value, so that large targets keep their precision.
    sum_[u] += y - shift_[u];
    sum_square_[u] += (y - shift_[u]) * (y - shift_[u]);
  }
  ++count_;
}

RegressionMetrics RegressionAccumulator::Finish() const {
  RegressionMetrics m;
  const double n = static_cast<double>(count_);
  for (int64_t u = 0; u < units_; ++u) {
    if (count_ == 0) {
      m.mae.push_back(0);
      m.rmse.push_back(0);
      m.r2.push_back(0);
      continue;
    }
    m.mae.push_back(abs_[u] / n);
    m.rmse.push_back(std::sqrt(square_[u] / n));
    const double mean = sum_[u] / n;  // of y - shift
    const double total = std::max(0.0, sum_square_[u] - n * mean * mean);
    m.r2.push_back(total > 0 ? 1 - square_[u] / total
                             : (square_[u] == 0 ? 1.0 : 0.0));
  }
  return m;
}

}  // namespace webnnm::train
