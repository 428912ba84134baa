// The figures a test reports beyond the loss: for a classification output
// its accuracy, each class's precision, recall and F1 and the confusion
// matrix; for a regression output each unit's mean absolute error, root
// mean squared error and R². Accumulated batch by batch from the output's
// values and the samples' targets, on the host.
//
// Conventions (scikit-learn's): a class never predicted has precision 0,
// one never present recall 0, F1 is 0 when precision and recall are; R² is
// 1 − SS_res / SS_tot around the subset's mean of the true values, and when
// SS_tot is 0 (constant targets) 1 for a perfect prediction, else 0.
#ifndef WEBNNM_ENGINE_TRAIN_METRICS_H_
#define WEBNNM_ENGINE_TRAIN_METRICS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace webnnm::train {

struct ClassificationMetrics {
  std::vector<std::string> classes;  // class order
  double accuracy = 0;
  std::vector<double> precision, recall, f1;  // per class
  // confusion[true class][predicted class], counts.
  std::vector<std::vector<int64_t>> confusion;
};

struct RegressionMetrics {
  std::vector<double> mae, rmse, r2;  // per output unit
};

struct OutputMetrics {
  bool classification = false;
  ClassificationMetrics classes;
  RegressionMetrics regression;
};

// How an output's values become a predicted class: the largest unit, or
// for one unit, the value against a threshold (0.5 for probabilities, 0
// for logits and hinge outputs).
struct ClassRule {
  int64_t units = 1;
  double threshold = 0.5;
};

// The class `rule` predicts from an output's values: one unit against
// the threshold (class 1 at or above it), else the largest unit (the first
// of ties).
int64_t PredictedClass(const float* values, const ClassRule& rule);

class ClassificationAccumulator {
 public:
  ClassificationAccumulator(std::vector<std::string> classes, ClassRule rule);
  // One sample: its output's `rule.units` values and its true class.
  void Add(const float* values, int64_t label);
  ClassificationMetrics Finish() const;
  // What Add() counted, as numbers to sum across replicas, and those sums
  // back (Unpack replaces the counts).
  std::vector<double> Pack() const;
  void Unpack(const double* packed);

 private:
  std::vector<std::string> classes_;
  ClassRule rule_;
  std::vector<std::vector<int64_t>> confusion_;
};

class RegressionAccumulator {
 public:
  explicit RegressionAccumulator(int64_t units);
  // One sample: its predicted and true values (`units` each).
  void Add(const float* predicted, const float* actual);
  RegressionMetrics Finish() const;
  // The values sums are kept around (else the first `actual` added): the
  // same on every replica, so that their sums add up (Pack, Unpack).
  void SetShift(const float* actual);
  std::vector<double> Pack() const;
  void Unpack(const double* packed);

 private:
  int64_t units_;
  int64_t count_ = 0;
  // Per unit: Σ|e|, Σe², Σ(y - shift), Σ(y - shift)², shift the first y.
  std::vector<double> abs_, square_, sum_, sum_square_, shift_;
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_METRICS_H_
