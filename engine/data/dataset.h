// Datasets: samples held in memory, split into training, validation and
// test subsets, and fed to graphs batch by batch.
//
// A Dataset holds the features of one or more inputs and the targets of
// one or more outputs (CSV and IDX feed single-input, single-output models;
// more come through AddFeatures and AddTargets): each sample's features as
// float32 and, per output, its target — a class index for classification
// (classes ordered by sorted label value), or float32 values for regression.
// Standardization (per-feature mean and standard deviation of the training
// subset; a zero-variance feature is left unscaled) is kept with the model so
// testing and inference apply it.
#ifndef WEBNNM_ENGINE_DATA_DATASET_H_
#define WEBNNM_ENGINE_DATA_DATASET_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/data/label_column.h"
#include "engine/data/text_columns.h"

namespace webnnm::train {

enum class Subset { kTraining, kValidation, kTest };
const char* SubsetName(Subset subset);

struct Standardization {
  std::vector<float> mean, stddev;  // empty: none
  bool empty() const { return mean.empty(); }
};

// The features of one more model input (the first input's are the
// dataset's own features()).
struct Features {
  std::string input;          // the input block
  int64_t width = 0;          // values per sample
  std::vector<float> values;  // count x width
  // The statistics the values were standardized with (empty: none).
  Standardization standardization;
};

// How a classification output's labels were given: class ids (or a CSV's
// class names), one-hot rows read as class ids, or probability rows kept
// as they are (soft labels: `width` is the number of classes, or 1 for a
// one-unit output, the second class's probability).
enum class LabelForm { kIds, kOneHot, kProbabilities };

// The targets of one model output.
struct Targets {
  std::string output;  // the output block; "" for a model's only output
  int64_t width = 1;   // values per sample, or per step (1: a class index)
  bool classification = false;
  std::vector<std::string> classes;  // class order (classification)
  std::vector<float> values;         // count x steps x width
  // A sequenced output ({sequence, ...}: a label or values per step) has
  // `steps` targets a sample, step after step; a ragged sample's steps past
  // its length are padding (zeros, never scored). Otherwise steps is 1.
  bool sequenced = false;
  int64_t steps = 1;
  LabelForm form = LabelForm::kIds;  // classification
  int64_t sample_values() const { return steps * width; }
  bool probabilities() const {
    return classification && form == LabelForm::kProbabilities;
  }
  // Regression targets trained on standardized values: the statistics to
  // map predictions back to the original units (empty: none).
  Standardization standardization;
};

// Whether a run standardizes its data: as the expert system decides, or as
// asked (the data request's tri-state; the command line's --standardize
// and --no-standardize).
enum class StandardizeMode { kAuto, kOn, kOff };
const char* StandardizeModeName(StandardizeMode mode);  // auto, on, off

// Missing values (a CSV file's empty, NA, N/A, NaN or ? fields): imputed
// (`--impute mean|median`) with the training subset's mean or median of the
// feature's present values, kept with the model so testing and prediction
// fill their own missing values the same way; kAuto (the default) imputes
// the median when the training data has missing values; kNone refuses them.
enum class ImputeMode { kNone, kMean, kMedian, kAuto };
const char* ImputeModeName(ImputeMode mode);  // none, mean, median, auto
// "none", "mean", "median", "auto"; nullopt otherwise.
std::optional<ImputeMode> ParseImputeMode(std::string_view text);

struct Imputation {
  ImputeMode mode = ImputeMode::kNone;
  std::vector<float> values;  // per feature of the first input; empty: none
  bool empty() const { return values.empty(); }
};

// Per-feature mean and standard deviation of the training subset (a
// feature without variance gets standard deviation 1: left unscaled).
Standardization FeatureStatistics(const std::vector<float>& values,
                                  int64_t width,
                                  const std::vector<int64_t>& samples);

class Dataset {
 public:
  // Features: `count` samples of `width` values, row-major.
  int64_t count() const { return count_; }
  int64_t width() const { return width_; }
  // The first output's targets: whether they are classes, the class names
  // in class order, values per sample (1: a class index, or one regression
  // value), a sample's values and class.
  bool classification() const { return targets_[0].classification; }
  const std::vector<std::string>& classes() const {
    return targets_[0].classes;
  }
  int64_t target_width() const { return targets_[0].width; }
  const float* features(int64_t sample) const {
    return features_.data() + sample * width_;
  }
  const float* target(int64_t sample, size_t output = 0) const {
    return targets_[output].values.data() +
           sample * targets_[output].sample_values();
  }
  // The class of a sample (of its step `step` for a sequenced output): its
  // class id, or the most probable class of probability labels.
  int64_t label(int64_t sample, size_t output = 0, int64_t step = 0) const {
    const Targets& t = targets_[output];
    if (t.probabilities()) return MostProbable(t, sample);
    return static_cast<int64_t>(t.values[sample * t.steps + step]);
  }
  // The steps of a sample that hold data (its length when ragged, else
  // `steps`).
  int64_t RealSteps(int64_t sample, int64_t steps) const {
    return lengths_.empty() ? steps : std::min(steps, lengths_[sample]);
  }
  // Names the input features() feed (needed before AddFeatures).
  void SetFirstInput(std::string input) { first_input_ = std::move(input); }
  const std::string& first_input() const { return first_input_; }
  // Adds another input's features (several-input models): named, covering
  // every sample. Standardize() is the first input's; StandardizeInput()
  // another's.
  absl::Status AddFeatures(Features features);
  const std::vector<Features>& more_inputs() const { return more_inputs_; }

  // Names the output the first targets are for (needed before AddTargets).
  void SetFirstOutput(std::string output) {
    targets_[0].output = std::move(output);
  }
  // Every output's targets (at least one).
  const std::vector<Targets>& targets() const { return targets_; }
  // Adds another output's targets: every output then needs its name, the
  // values must cover every sample, and class indices their classes.
  absl::Status AddTargets(Targets targets);
  // Makes the first output's targets sequenced: `steps` a sample
  // (InvalidArgument unless its values are count x steps x width).
  absl::Status SetFirstTargetsSteps(int64_t steps);
  // Says how the first output's labels were given (InvalidArgument for
  // probabilities that are not rows of its classes, or of one unit).
  absl::Status SetFirstTargetsForm(LabelForm form);
  const std::vector<int64_t>& subset(Subset s) const {
    return subsets_[static_cast<int>(s)];
  }
  const Standardization& standardization() const { return standardization_; }
  const std::string& source() const { return source_; }
  // The CSV column the first output's targets came from ("" otherwise).
  const std::string& label_column() const { return label_column_; }
  void SetLabelColumn(std::string name) { label_column_ = std::move(name); }
  // How the label column was chosen, in words ("given", or
  // ChooseLabelColumn's why), and the warnings of the choice.
  const std::string& label_why() const { return label_why_; }
  const std::vector<std::string>& label_warnings() const {
    return label_warnings_;
  }
  void SetLabelWhy(std::string why, std::vector<std::string> warnings = {}) {
    label_why_ = std::move(why);
    label_warnings_ = std::move(warnings);
  }
  // A CSV file's text columns as one-hot features (text_columns.h).
  const TextEncoding& text_encoding() const { return text_encoding_; }
  void SetTextEncoding(TextEncoding encoding) {
    text_encoding_ = std::move(encoding);
  }

  // Splits the samples: validation and test counts are
  // floor(n * pct / 100 + 0.5) (per class of the first output when it
  // has one class a sample: stratified), training gets
  // the rest; a seeded shuffle first. `fixed_test` keeps the test subset
  // already set (IDX: the t10k files) and splits the rest into training and
  // validation by their relative shares.
  absl::Status Split(double train_pct, double validation_pct, double test_pct,
                     uint64_t seed, bool fixed_test = false);
  // Standardizes every sample with the training subset's statistics.
  void Standardize();
  // Applies given statistics (a snapshot's) to every sample.
  absl::Status ApplyStandardization(const Standardization& s);
  // The same for another input's features (by more_inputs() index): the
  // statistics are kept in more_inputs()[k].standardization. Their steps
  // past a ragged sample's length count as values (the first input's
  // alone has the lengths' statistics).
  absl::Status StandardizeInput(size_t k);
  absl::Status ApplyInputStandardization(size_t k, const Standardization& s);
  // Applies a snapshot's statistics of the other inputs, by input name;
  // FailedPrecondition naming an input the data lacks.
  absl::Status ApplyInputStandardizations(
      const std::map<std::string, Standardization>& by_input);
  // The other inputs' statistics by name (those standardized).
  std::map<std::string, Standardization> InputStandardizations() const;
  // The same for a regression output's targets (by targets index): the
  // statistics are kept in targets()[output].standardization (per unit;
  // a sequenced output's over every real step).
  void StandardizeTargets(size_t output);
  absl::Status ApplyTargetStandardization(size_t output,
                                          const Standardization& s);

  // Missing values, kept as NaN by a loader asked to (CsvOptions): how many
  // the features hold, per feature.
  std::vector<int64_t> MissingPerFeature() const;
  // Fills them with the training subset's statistics of each feature's
  // present values (0 for a feature with none there) and keeps them.
  void Impute(ImputeMode mode);
  // Fills them with given values (a snapshot's); InvalidArgument when the
  // widths differ.
  absl::Status ApplyImputation(const Imputation& imputation);
  const Imputation& imputation() const { return imputation_; }

  // Ragged sequences: each sample's number of real steps out of `steps`
  // (empty: every sample has them all). The sequenced inputs' steps past a
  // sample's length are padding: fed as zeros and masked (lower.h). When
  // the first input is sequenced, its standardization's statistics of a
  // step's feature count only the samples that reach that step.
  const std::vector<int64_t>& lengths() const { return lengths_; }
  bool ragged() const { return !lengths_.empty(); }
  int64_t steps() const { return steps_; }
  // InvalidArgument unless there is one length per sample, each in
  // [1, steps].
  absl::Status SetLengths(std::vector<int64_t> lengths, int64_t steps,
                          bool first_input_sequenced);

  // Builders (loaders use these).
  static Dataset Make(std::string source, int64_t width,
                      std::vector<float> features, int64_t target_width,
                      std::vector<float> targets, bool classification,
                      std::vector<std::string> classes);
  void SetSubset(Subset s, std::vector<int64_t> samples) {
    subsets_[static_cast<int>(s)] = std::move(samples);
  }

 private:
  static int64_t MostProbable(const Targets& t, int64_t sample);
  // Probability labels must be rows of the classes (or one unit of two).
  static absl::Status CheckProbabilities(const Targets& t);

  std::string source_;
  std::string label_column_, label_why_;
  std::vector<std::string> label_warnings_;
  TextEncoding text_encoding_;
  int64_t count_ = 0, width_ = 0;
  std::vector<float> features_;
  std::string first_input_;
  std::vector<Features> more_inputs_;
  std::vector<Targets> targets_ = std::vector<Targets>(1);
  std::vector<int64_t> subsets_[3];
  Standardization standardization_;
  Imputation imputation_;
  std::vector<int64_t> lengths_;
  int64_t steps_ = 1;
  bool first_sequenced_ = false;
};

struct CsvOptions {
  // The label column's name; empty: `choose_label` chooses it
  // (label_column.h), or without one the last column.
  std::string label;
  std::optional<LabelNeed> choose_label;
  // How text columns become features (a model's, kept from training);
  // nullopt: chosen from this file (text_columns.h).
  std::optional<TextEncoding> text;
  bool header = true;  // false: columns are c0, c1, ...
  // Missing feature values become NaN (to impute) instead of an error
  // naming the file, line and column; a missing label is always an error.
  bool keep_missing = false;
};

// Whether a CSV field is a missing value: empty (or blanks), NA, N/A, NaN
// (any case), or ? (as many public data sets mark them).
bool IsMissingField(std::string_view field);

// Reads a CSV file. `classification` says how labels are read (classes or
// regression targets).
absl::StatusOr<Dataset> LoadCsv(const std::string& path,
                                const CsvOptions& options, bool classification);

// Reads a CSV file's features only, every row in file order (prediction):
// every column but the one named `options.label` when the file has it
// (empty or absent: every column is a feature). The targets are zeros.
absl::StatusOr<Dataset> LoadCsvFeatures(const std::string& path,
                                        const CsvOptions& options);

// Reads an MNIST-style IDX directory (train-/t10k- images and labels,
// gzipped or not): uint8 pixels scaled to [0, 1], classes 0..9 by label
// value; the t10k samples form the test subset. The four files may hold at
// most `max_bytes` decompressed (0: 4 GiB): each header's claim is checked
// against what is left before its data is read, so a gzip bomb costs
// nothing. A file given both plain and gzipped is refused.
absl::StatusOr<Dataset> LoadIdx(const std::string& directory,
                                int64_t max_bytes = 0);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_DATA_DATASET_H_
