#include "engine/data/dataset.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>

#include "engine/base/huge_pages.h"
#include "engine/base/philox.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/data/csv.h"

namespace webnnm::train {

const char* SubsetName(Subset subset) {
  switch (subset) {
    case Subset::kTraining:
      return "training";
    case Subset::kValidation:
      return "validation";
    case Subset::kTest:
      return "test";
  }
  return "training";
}

Dataset Dataset::Make(std::string source, int64_t width,
                      std::vector<float> features, int64_t target_width,
                      std::vector<float> targets, bool classification,
                      std::vector<std::string> classes) {
  Dataset d;
  d.source_ = std::move(source);
  d.width_ = width;
  d.count_ = width > 0 ? static_cast<int64_t>(features.size()) / width : 0;
  d.features_ = std::move(features);
  // Batches gather rows from all over the features: huge pages
  // (huge_pages.h; a no-op where a loader advised them before writing).
  CollapseToHugePages(d.features_.data(), d.features_.size() * sizeof(float));
  d.targets_[0].width = target_width;
  d.targets_[0].values = std::move(targets);
  d.targets_[0].classification = classification;
  d.targets_[0].classes = std::move(classes);
  return d;
}

absl::Status Dataset::SetFirstTargetsSteps(int64_t steps) {
  Targets& t = targets_[0];
  if (steps < 1 ||
      static_cast<int64_t>(t.values.size()) != count_ * steps * t.width) {
    return absl::InvalidArgumentError(
        StrCat("the targets have ", t.values.size(), " values; ", count_,
               " samples of ", steps, " steps of ", t.width, " need ",
               count_ * steps * t.width));
  }
  t.sequenced = true;
  t.steps = steps;
  return absl::OkStatus();
}

absl::Status Dataset::SetFirstTargetsForm(LabelForm form) {
  Targets t = targets_[0];
  t.form = form;
  if (t.probabilities()) RETURN_IF_ERROR(CheckProbabilities(t));
  targets_[0].form = form;
  return absl::OkStatus();
}

absl::Status Dataset::CheckProbabilities(const Targets& t) {
  const auto classes = static_cast<int64_t>(t.classes.size());
  if (t.sequenced || !(t.width == classes || (t.width == 1 && classes == 2))) {
    return absl::InvalidArgumentError(StrCat(
        "the probability labels of '", t.output, "' are rows of ", t.width,
        " for ", classes, " classes", t.sequenced ? " a step" : ""));
  }
  for (float v : t.values) {
    if (!(v >= 0 && v <= 1)) {
      return absl::InvalidArgumentError(
          StrCat("the probability labels of '", t.output, "' hold ", v));
    }
  }
  return absl::OkStatus();
}

int64_t Dataset::MostProbable(const Targets& t, int64_t sample) {
  const float* row = t.values.data() + sample * t.width;
  if (t.width == 1) return row[0] >= 0.5f ? 1 : 0;
  return std::max_element(row, row + t.width) - row;
}

absl::Status Dataset::AddFeatures(Features f) {
  if (f.input.empty() || first_input_.empty()) {
    return absl::InvalidArgumentError(
        "a dataset with several inputs' features names each input");
  }
  if (f.input == first_input_) {
    return absl::InvalidArgumentError(
        StrCat("the dataset already has features for '", f.input, "'"));
  }
  for (const Features& other : more_inputs_) {
    if (other.input == f.input) {
      return absl::InvalidArgumentError(
          StrCat("the dataset already has features for '", f.input, "'"));
    }
  }
  if (f.width < 1 ||
      static_cast<int64_t>(f.values.size()) != count_ * f.width) {
    return absl::InvalidArgumentError(StrCat(
        "the features of '", f.input, "' have ", f.values.size(), " values; ",
        count_, " samples of ", f.width, " need ", count_ * f.width));
  }
  CollapseToHugePages(f.values.data(), f.values.size() * sizeof(float));
  more_inputs_.push_back(std::move(f));
  return absl::OkStatus();
}

absl::Status Dataset::AddTargets(Targets t) {
  if (t.output.empty() || targets_[0].output.empty()) {
    return absl::InvalidArgumentError(
        "a dataset with several outputs' targets names each output");
  }
  for (const Targets& other : targets_) {
    if (other.output == t.output) {
      return absl::InvalidArgumentError(
          StrCat("the dataset already has targets for '", t.output, "'"));
    }
  }
  if (t.width < 1 || t.steps < 1 ||
      (t.classification && t.width != 1 && !t.probabilities()) ||
      static_cast<int64_t>(t.values.size()) != count_ * t.sample_values()) {
    return absl::InvalidArgumentError(
        StrCat("the targets of '", t.output, "' have ", t.values.size(),
               " values; ", count_, " samples of ", t.sample_values(), " need ",
               count_ * t.sample_values()));
  }
  if (t.probabilities()) {
    RETURN_IF_ERROR(CheckProbabilities(t));
  } else if (t.classification) {
    const auto classes = static_cast<float>(t.classes.size());
    for (float v : t.values) {
      if (!(v >= 0 && v < classes) || v != std::floor(v)) {
        return absl::InvalidArgumentError(
            StrCat("the targets of '", t.output, "' hold ", v,
                   ", not a class index below ", t.classes.size()));
      }
    }
  }
  targets_.push_back(std::move(t));
  return absl::OkStatus();
}

namespace {

// Fisher–Yates with Philox numbers keyed by the seed.
void Shuffle(std::vector<int64_t>& v, uint64_t seed, uint32_t stream) {
  for (int64_t i = static_cast<int64_t>(v.size()) - 1; i > 0; --i) {
    PhiloxBlock bits =
        Philox4x32({static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32),
                    stream, 0x5917},
                   seed);
    uint64_t r = (static_cast<uint64_t>(bits[0]) << 32) | bits[1];
    int64_t j = static_cast<int64_t>(r % static_cast<uint64_t>(i + 1));
    std::swap(v[i], v[j]);
  }
}

int64_t Share(int64_t n, double pct) {
  return static_cast<int64_t>(std::floor(n * pct / 100.0 + 0.5));
}

}  // namespace

absl::Status Dataset::Split(double train_pct, double validation_pct,
                            double test_pct, uint64_t seed, bool fixed_test) {
  for (double p : {train_pct, validation_pct, test_pct}) {
    if (!(p >= 0 && p <= 100)) {
      return absl::InvalidArgumentError(
          StrCat("split percentages must be within 0..100, not ", p));
    }
  }
  if (std::fabs(train_pct + validation_pct + test_pct - 100) > 1e-6) {
    return absl::InvalidArgumentError(StrCat("the split ", train_pct, ",",
                                             validation_pct, ",", test_pct,
                                             " does not add up to 100"));
  }
  std::vector<int64_t> pool;
  if (fixed_test) {
    std::vector<bool> in_test(count_, false);
    for (int64_t s : subsets_[2]) in_test[s] = true;
    for (int64_t s = 0; s < count_; ++s) {
      if (!in_test[s]) pool.push_back(s);
    }
    // The validation share of what is not test.
    double rest = train_pct + validation_pct;
    validation_pct = rest > 0 ? 100.0 * validation_pct / rest : 0;
    test_pct = 0;
  } else {
    pool.resize(count_);
    std::iota(pool.begin(), pool.end(), 0);
  }
  // Groups: one per class when stratified, else one.
  std::map<int64_t, std::vector<int64_t>> groups;
  for (int64_t s : pool) {
    const bool stratified = classification() && !targets_[0].sequenced;
    groups[stratified ? label(s) : 0].push_back(s);
  }
  std::vector<int64_t> train, validation, test;
  for (auto& [key, samples] : groups) {
    Shuffle(samples, seed, static_cast<uint32_t>(key));
    int64_t n = static_cast<int64_t>(samples.size());
    int64_t nv = Share(n, validation_pct);
    int64_t nt = fixed_test ? 0 : Share(n, test_pct);
    if (nv + nt > n) nt = n - nv;
    validation.insert(validation.end(), samples.begin(), samples.begin() + nv);
    test.insert(test.end(), samples.begin() + nv, samples.begin() + nv + nt);
    train.insert(train.end(), samples.begin() + nv + nt, samples.end());
  }
  // Interleave the classes again (training is reshuffled every epoch).
  Shuffle(train, seed, 0x7fff0001);
  Shuffle(validation, seed, 0x7fff0002);
  subsets_[0] = std::move(train);
  subsets_[1] = std::move(validation);
  if (!fixed_test) {
    Shuffle(test, seed, 0x7fff0003);
    subsets_[2] = std::move(test);
  }
  return absl::OkStatus();
}

const char* StandardizeModeName(StandardizeMode mode) {
  switch (mode) {
    case StandardizeMode::kAuto:
      return "auto";
    case StandardizeMode::kOn:
      return "on";
    case StandardizeMode::kOff:
      return "off";
  }
  return "auto";
}

Standardization FeatureStatistics(const std::vector<float>& values,
                                  int64_t width,
                                  const std::vector<int64_t>& samples) {
  Standardization s;
  s.mean.assign(width, 0.0f);
  s.stddev.assign(width, 1.0f);
  if (samples.empty()) return s;
  for (int64_t f = 0; f < width; ++f) {
    double sum = 0, squares = 0;
    for (int64_t sample : samples) {
      double v = values[sample * width + f];
      sum += v;
      squares += v * v;
    }
    double n = static_cast<double>(samples.size());
    double mean = sum / n;
    double variance = std::max(0.0, squares / n - mean * mean);
    s.mean[f] = static_cast<float>(mean);
    // A feature without variance is left unscaled (only centred).
    s.stddev[f] =
        variance > 1e-12 ? static_cast<float>(std::sqrt(variance)) : 1.0f;
  }
  return s;
}

namespace {

// `values` (count x width) standardized by `s`, checked first.
absl::Status ApplyTo(std::vector<float>& values, int64_t width,
                     const Standardization& s, const char* what) {
  if (static_cast<int64_t>(s.mean.size()) != width ||
      static_cast<int64_t>(s.stddev.size()) != width) {
    return absl::InvalidArgumentError(StrCat("the standardization has ",
                                             s.mean.size(), " ", what,
                                             "; the data has ", width));
  }
  for (size_t f = 0; f < s.stddev.size(); ++f) {
    if (!(s.stddev[f] > 0) || !std::isfinite(s.stddev[f]) ||
        !std::isfinite(s.mean[f])) {
      return absl::InvalidArgumentError(StrCat(
          "the standardization of ", what, " ", f, " is not usable (mean ",
          s.mean[f], ", standard deviation ", s.stddev[f], ")"));
    }
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t f = i % static_cast<size_t>(width);
    values[i] = (values[i] - s.mean[f]) / s.stddev[f];
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Dataset::SetLengths(std::vector<int64_t> lengths, int64_t steps,
                                 bool first_input_sequenced) {
  if (static_cast<int64_t>(lengths.size()) != count_) {
    return absl::InvalidArgumentError(
        StrCat("ragged sequences need one length per sample: ", count_,
               " samples, ", lengths.size(), " lengths"));
  }
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 1 || lengths[i] > steps) {
      return absl::InvalidArgumentError(
          StrCat("sample ", i, " has length ", lengths[i],
                 ": lengths must be within 1..", steps, " (the steps)"));
    }
  }
  if (first_input_sequenced && width_ % steps != 0) {
    return absl::InvalidArgumentError(StrCat(
        "the first input's ", width_, " values are no ", steps, " steps"));
  }
  lengths_ = std::move(lengths);
  steps_ = steps;
  first_sequenced_ = first_input_sequenced;
  return absl::OkStatus();
}

void Dataset::Standardize() {
  Standardization s = FeatureStatistics(features_, width_, subsets_[0]);
  if (ragged() && first_sequenced_) {
    // A step's feature over the samples that reach the step only: one pass
    // over each sample's real values.
    const int64_t step = width_ / steps_;
    std::vector<double> sum(width_, 0.0), squares(width_, 0.0);
    std::vector<int64_t> count(width_, 0);
    for (int64_t sample : subsets_[0]) {
      const float* row = features_.data() + sample * width_;
      for (int64_t f = 0; f < lengths_[sample] * step; ++f) {
        sum[f] += row[f];
        squares[f] += static_cast<double>(row[f]) * row[f];
        ++count[f];
      }
    }
    for (int64_t f = 0; f < width_; ++f) {
      if (count[f] == 0) {
        s.mean[f] = 0.0f;
        s.stddev[f] = 1.0f;
        continue;
      }
      const double mean = sum[f] / count[f];
      const double variance =
          std::max(0.0, squares[f] / count[f] - mean * mean);
      s.mean[f] = static_cast<float>(mean);
      s.stddev[f] =
          variance > 1e-12 ? static_cast<float>(std::sqrt(variance)) : 1.0f;
    }
  }
  (void)ApplyStandardization(s);
}

absl::Status Dataset::ApplyStandardization(const Standardization& s) {
  if (s.empty()) return absl::OkStatus();
  absl::Status applied = ApplyTo(features_, width_, s, "features");
  if (!applied.ok()) return applied;
  standardization_ = s;
  if (ragged() && first_sequenced_) {  // the padding stays zero
    const int64_t step = width_ / steps_;
    for (int64_t i = 0; i < count_; ++i) {
      std::fill(features_.begin() + i * width_ + lengths_[i] * step,
                features_.begin() + (i + 1) * width_, 0.0f);
    }
  }
  return absl::OkStatus();
}

const char* ImputeModeName(ImputeMode mode) {
  switch (mode) {
    case ImputeMode::kMean:
      return "mean";
    case ImputeMode::kMedian:
      return "median";
    case ImputeMode::kAuto:
      return "auto";
    case ImputeMode::kNone:
      break;
  }
  return "none";
}

std::optional<ImputeMode> ParseImputeMode(std::string_view text) {
  for (ImputeMode m : {ImputeMode::kNone, ImputeMode::kMean,
                      ImputeMode::kMedian, ImputeMode::kAuto}) {
    if (text == ImputeModeName(m)) return m;
  }
  return std::nullopt;
}

std::vector<int64_t> Dataset::MissingPerFeature() const {
  std::vector<int64_t> missing(width_, 0);
  for (size_t i = 0; i < features_.size(); ++i) {
    if (std::isnan(features_[i])) ++missing[i % width_];
  }
  return missing;
}

void Dataset::Impute(ImputeMode mode) {
  if (mode == ImputeMode::kNone) return;
  if (mode == ImputeMode::kAuto) mode = ImputeMode::kMedian;
  Imputation imputation{.mode = mode};
  imputation.values.assign(width_, 0.0f);
  std::vector<float> present;
  for (int64_t f = 0; f < width_; ++f) {
    present.clear();
    for (int64_t sample : subsets_[0]) {
      const float v = features_[sample * width_ + f];
      if (!std::isnan(v)) present.push_back(v);
    }
    if (present.empty()) continue;
    if (mode == ImputeMode::kMean) {
      double sum = 0;
      for (float v : present) sum += v;
      imputation.values[f] = static_cast<float>(sum / present.size());
    } else {  // the middle value, or the mean of the two middle ones
      const size_t half = present.size() / 2;
      std::nth_element(present.begin(), present.begin() + half, present.end());
      double median = present[half];
      if (present.size() % 2 == 0) {
        median = (median +
                  *std::max_element(present.begin(), present.begin() + half)) /
                 2;
      }
      imputation.values[f] = static_cast<float>(median);
    }
  }
  (void)ApplyImputation(imputation);
}

absl::Status Dataset::ApplyImputation(const Imputation& imputation) {
  if (imputation.empty()) return absl::OkStatus();
  if (static_cast<int64_t>(imputation.values.size()) != width_) {
    return absl::InvalidArgumentError(
        StrCat("the imputation has ", imputation.values.size(),
               " features; the data has ", width_));
  }
  for (size_t i = 0; i < features_.size(); ++i) {
    if (std::isnan(features_[i])) features_[i] = imputation.values[i % width_];
  }
  imputation_ = imputation;
  return absl::OkStatus();
}

void Dataset::StandardizeTargets(size_t output) {
  Targets& t = targets_[output];
  if (!t.sequenced) {
    (void)ApplyTargetStandardization(
        output, FeatureStatistics(t.values, t.width, subsets_[0]));
    return;
  }
  // Per unit over every real step of the training subset: the steps are
  // rows of `width` values.
  std::vector<int64_t> rows;
  for (int64_t s : subsets_[0]) {
    for (int64_t step = 0; step < RealSteps(s, t.steps); ++step) {
      rows.push_back(s * t.steps + step);
    }
  }
  (void)ApplyTargetStandardization(output,
                                   FeatureStatistics(t.values, t.width, rows));
}

absl::Status Dataset::StandardizeInput(size_t k) {
  Features& f = more_inputs_[k];
  return ApplyInputStandardization(
      k, FeatureStatistics(f.values, f.width, subsets_[0]));
}

absl::Status Dataset::ApplyInputStandardization(size_t k,
                                                const Standardization& s) {
  if (s.empty()) return absl::OkStatus();
  Features& f = more_inputs_[k];
  absl::Status applied = ApplyTo(f.values, f.width, s, "features");
  if (!applied.ok()) {
    return absl::InvalidArgumentError(
        StrCat("input '", f.input, "': ", applied.message()));
  }
  f.standardization = s;
  return absl::OkStatus();
}

absl::Status Dataset::ApplyInputStandardizations(
    const std::map<std::string, Standardization>& by_input) {
  for (const auto& [name, s] : by_input) {
    size_t k = 0;
    while (k < more_inputs_.size() && more_inputs_[k].input != name) ++k;
    if (k == more_inputs_.size()) {
      return absl::FailedPreconditionError(
          StrCat("the snapshot standardizes the input '", name,
                 "', which the data does not feed"));
    }
    RETURN_IF_ERROR(ApplyInputStandardization(k, s));
  }
  return absl::OkStatus();
}

std::map<std::string, Standardization> Dataset::InputStandardizations() const {
  std::map<std::string, Standardization> by_input;
  for (const Features& f : more_inputs_) {
    if (!f.standardization.empty()) by_input[f.input] = f.standardization;
  }
  return by_input;
}

absl::Status Dataset::ApplyTargetStandardization(size_t output,
                                                 const Standardization& s) {
  if (s.empty()) return absl::OkStatus();
  Targets& t = targets_[output];
  if (t.classification) {
    return absl::InvalidArgumentError("class targets are not standardized");
  }
  absl::Status applied = ApplyTo(t.values, t.width, s, "target units");
  if (!applied.ok()) return applied;
  t.standardization = s;
  return absl::OkStatus();
}

}  // namespace webnnm::train
