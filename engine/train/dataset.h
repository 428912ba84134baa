// Datasets: samples held in memory, split into training, validation and
// test subsets, and fed to graphs batch by batch.
//
// A Dataset holds one input and one output (CSV and IDX feed single-input,
// single-output models; several come through the API): each sample's
// features as float32 and its target — a class index for classification
// (classes ordered by sorted label value), or float32 values for
// regression. Standardization (per-feature mean and standard deviation of
// the training subset; a zero-variance feature is left unscaled) is kept
// with the model so testing and inference apply it.
#ifndef WEBNNM_ENGINE_TRAIN_DATASET_H_
#define WEBNNM_ENGINE_TRAIN_DATASET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace webnnm::train {

enum class Subset { kTraining, kValidation, kTest };
const char* SubsetName(Subset subset);

struct Standardization {
  std::vector<float> mean, stddev;  // empty: none
  bool empty() const { return mean.empty(); }
};

class Dataset {
 public:
  // Features: `count` samples of `width` values, row-major.
  int64_t count() const { return count_; }
  int64_t width() const { return width_; }
  bool classification() const { return classification_; }
  // Class names in class order (classification only).
  const std::vector<std::string>& classes() const { return classes_; }
  // Targets per sample: 1 (a class index, or one regression value) or more.
  int64_t target_width() const { return target_width_; }
  const float* features(int64_t sample) const {
    return features_.data() + sample * width_;
  }
  const float* target(int64_t sample) const {
    return targets_.data() + sample * target_width_;
  }
  int64_t label(int64_t sample) const {
    return static_cast<int64_t>(targets_[sample]);
  }
  const std::vector<int64_t>& subset(Subset s) const {
    return subsets_[static_cast<int>(s)];
  }
  const Standardization& standardization() const { return standardization_; }
  const std::string& source() const { return source_; }

  // Splits the samples: validation and test counts are
  // floor(n * pct / 100 + 0.5) (per class when stratified), training gets
  // the rest; a seeded shuffle first. `fixed_test` keeps the test subset
  // already set (IDX: the t10k files) and splits the rest into training and
  // validation by their relative shares.
  absl::Status Split(double train_pct, double validation_pct, double test_pct,
                     uint64_t seed, bool fixed_test = false);
  // Standardizes every sample with the training subset's statistics.
  void Standardize();
  // Applies given statistics (a snapshot's) to every sample.
  absl::Status ApplyStandardization(const Standardization& s);

  // Builders (loaders use these).
  static Dataset Make(std::string source, int64_t width,
                      std::vector<float> features, int64_t target_width,
                      std::vector<float> targets, bool classification,
                      std::vector<std::string> classes);
  void SetSubset(Subset s, std::vector<int64_t> samples) {
    subsets_[static_cast<int>(s)] = std::move(samples);
  }

 private:
  std::string source_;
  int64_t count_ = 0, width_ = 0, target_width_ = 1;
  std::vector<float> features_, targets_;
  bool classification_ = false;
  std::vector<std::string> classes_;
  std::vector<int64_t> subsets_[3];
  Standardization standardization_;
};

struct CsvOptions {
  std::string label;   // the label column's name; empty: the last column
  bool header = true;  // false: columns are c0, c1, ...
};

// Reads a CSV file. `classification` says how labels are read (classes or
// regression targets).
absl::StatusOr<Dataset> LoadCsv(const std::string& path,
                                const CsvOptions& options, bool classification);

// Reads an MNIST-style IDX directory (train-/t10k- images and labels,
// gzipped or not): uint8 pixels scaled to [0, 1], classes 0..9 by label
// value; the t10k samples form the test subset.
absl::StatusOr<Dataset> LoadIdx(const std::string& directory);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_DATASET_H_
