#include "engine/expert/label_advice.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/base/strings.h"
#include "engine/train/loss.h"

namespace webnnm::train {
std::vector<int64_t> ClassCounts(const Targets& targets,
                                 const std::vector<int64_t>& samples,
                                 const std::vector<int64_t>& lengths) {
  const size_t classes = targets.classes.size();
  std::vector<int64_t> counts(classes, 0);
  const int64_t width = targets.width;
  for (int64_t sample : samples) {
    const int64_t steps = targets.sequenced && !lengths.empty()
                              ? std::min(targets.steps, lengths[sample])
                              : targets.steps;
    for (int64_t step = 0; step < steps; ++step) {
      const float* row = targets.values.data() +
                         sample * targets.sample_values() + step * width;
      size_t c = 0;
      if (width > 1) {  // one-hot (or probabilities): the largest
        c = static_cast<size_t>(std::max_element(row, row + width) - row);
      } else if (classes == 2) {  // one unit: 0 or 1
        c = row[0] > 0.5f ? 1 : 0;
      } else {  // a class index
        c = static_cast<size_t>(std::max(0.0f, row[0]));
      }
      if (c < classes) ++counts[c];
    }
  }
  return counts;
}

std::vector<std::string> ClassBalanceWarnings(
    const Dataset& data, const std::vector<OutputSpec>& specs,
    const std::vector<size_t>& targets_of) {
  std::vector<std::string> warnings;
  const std::vector<int64_t>& training = data.subset(Subset::kTraining);
  for (size_t k = 0; k < specs.size() && k < targets_of.size(); ++k) {
    const OutputSpec& spec = specs[k];
    if (!IsClassification(spec.loss) || spec.loss == LossKind::kFocal) {
      continue;
    }
    const Targets& t = data.targets()[targets_of[k]];
    if (!t.classification || t.classes.size() < 2) continue;
    const std::vector<int64_t> counts =
        ClassCounts(t, training, data.lengths());
    const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
    if (*hi == 0 || static_cast<double>(*hi) < kSkewedRatio * *lo) continue;
    std::string listed;
    for (size_t c = 0; c < counts.size(); ++c) {
      if (c == 10) {
        StrAppend(&listed, ", … (", counts.size(), " classes)");
        break;
      }
      StrAppend(&listed, c ? ", " : "", t.classes[c], " ", counts[c]);
    }
    warnings.push_back(
        StrCat("the classes of '", spec.name,
               "' are skewed in the training subset (", listed, ": ",
               *lo == 0 ? std::string("a class has no sample")
                        : StrCat("the largest has ",
                                 FormatNumber(static_cast<double>(*hi) / *lo),
                                 "x the smallest's"),
               "): focal loss (", spec.name,
               ":loss FOL;) puts the weight on the "
               "rare, hard examples instead of the many easy ones"));
  }
  return warnings;
}

std::vector<std::string> LabelSampleWarnings(
    const dag::Dag& dag, const Dataset& data,
    const std::vector<OutputSpec>& specs,
    const std::vector<size_t>& targets_of) {
  std::vector<std::string> warnings;
  const std::vector<int64_t>& training = data.subset(Subset::kTraining);
  const size_t n = std::min(training.size(), kLabelSample);
  for (size_t k = 0; k < specs.size() && k < targets_of.size(); ++k) {
    const OutputSpec& spec = specs[k];
    const Targets& t = data.targets()[targets_of[k]];
    if (IsClassification(spec.loss) || t.classification || n == 0) continue;
    double lo = INFINITY, hi = -INFINITY;
    bool whole = true;
    std::set<double> distinct;
    for (size_t i = 0; i < n; ++i) {
      // A sequenced output's real steps, one after the other.
      const int64_t real = t.sequenced
                               ? data.RealSteps(training[i], t.steps) * t.width
                               : t.width;
      for (int64_t j = 0; j < real; ++j) {
        double v = t.values[training[i] * t.sample_values() + j];
        if (!t.standardization.empty()) {  // back to the targets' units
          const size_t c =
              static_cast<size_t>(j) % t.standardization.mean.size();
          v = v * t.standardization.stddev[c] + t.standardization.mean[c];
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        const double rounded = std::round(v);
        whole &= std::abs(v - rounded) < 1e-4;
        if (distinct.size() <= kMostClassIds) distinct.insert(rounded);
      }
    }
    const OutputActivation activation = ActivationOf(dag, spec.name);
    const bool bounded = activation == OutputActivation::kSigmoid ||
                         activation == OutputActivation::kSoftmax;
    const std::string range =
        StrCat("[", FormatNumber(lo), ", ", FormatNumber(hi), "]");
    if (bounded && (lo < 0 || hi > 1)) {
      warnings.push_back(StrCat(
          "the targets of '", spec.name, "' range over ", range,
          " (a sample of ", n, ") but the output ends with ",
          activation == OutputActivation::kSigmoid ? "sigmoid" : "softmax",
          ", whose values lie in (0, 1): it cannot reach them; end the output "
          "without an activation, or scale the targets into (0, 1)"));
    }
    if (t.width == 1 && whole && std::round(lo) >= 0 && distinct.size() >= 2 &&
        distinct.size() <= kMostClassIds) {
      warnings.push_back(StrCat(
          "the targets of '", spec.name, "' look like class ids (",
          distinct.size(), " whole numbers in [", FormatNumber(std::round(lo)),
          ", ", FormatNumber(std::round(hi)), "], a sample of ", n,
          ") but the loss ", LossAbbreviation(spec.loss),
          " treats them as values: if they are classes, give the output one "
          "unit per class and end it with softmax (a classification loss "
          "follows); as amounts, the regression loss is right"));
    }
  }
  return warnings;
}

std::string DescribeTargets(const Dataset& data, size_t k) {
  const Targets& t = data.targets()[k];
  const size_t classes = t.classes.size();
  if (t.classification) {
    switch (t.form) {
      case LabelForm::kOneHot:
        return StrCat("one-hot rows of ", classes,
                      " classes, read as class "
                      "ids");
      case LabelForm::kProbabilities:
        return t.width == 1
                   ? std::string("probabilities of the second class")
                   : StrCat("probability rows over ", classes, " classes");
      case LabelForm::kIds:
        return StrCat("class ids of ", classes, " classes",
                      t.sequenced ? ", one a step" : "");
    }
  }
  std::vector<int64_t> sample = data.subset(Subset::kTraining);
  if (sample.empty()) {
    for (int64_t i = 0; i < data.count(); ++i) sample.push_back(i);
  }
  sample.resize(std::min(sample.size(), kLabelSample));
  double lo = INFINITY, hi = -INFINITY;
  for (int64_t s : sample) {
    const int64_t real =
        t.sequenced ? data.RealSteps(s, t.steps) * t.width : t.width;
    for (int64_t j = 0; j < real; ++j) {
      double v = t.values[s * t.sample_values() + j];
      if (!t.standardization.empty()) {
        const size_t u = static_cast<size_t>(j) % t.standardization.mean.size();
        v = v * t.standardization.stddev[u] + t.standardization.mean[u];
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (lo > hi) return "values";
  return StrCat("values in [", FormatNumber(lo), ", ", FormatNumber(hi),
                "] (a sample of ", sample.size(), ")");
}

std::optional<LossKind> LossForLabels(const Targets& t, LossKind chosen) {
  if (t.probabilities() && t.width > 1 &&
      chosen == LossKind::kCategoricalCrossEntropy) {
    return LossKind::kKlDivergence;
  }
  return std::nullopt;
}

}  // namespace webnnm::train
