// Predictions over a whole dataset: every sample in file order (no split),
// through a snapshot's best parameters, with its standardization, class
// names for classification outputs and regression values in the targets'
// original units. What `webnnmctl predict --local` writes (docs/cli.md).
//
// The data is a CSV file (its label column left out when the file has it:
// the one `source.label` names, else the snapshot's; missing values filled
// with the snapshot's imputation), an IDX directory (its train files, then
// its t10k files), an image folder, or a NumPy .npz archive (an array per
// model input; the outputs' arrays may be absent) for a model of any
// number of inputs. A sample is fed as in training (sequenced inputs take
// the samples' length; ragged sequences their lengths, masked); batches of
// `batch` rows.
//
// Errors: NotFound for a missing path; FailedPrecondition for bad data
// (file and line), a feature count the model does not take, or a snapshot
// of other parameters (as Run::Prepare says them).
#ifndef WEBNNM_ENGINE_API_PREDICT_H_
#define WEBNNM_ENGINE_API_PREDICT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/train/checkpoint.h"
#include "engine/train/data_source.h"

namespace webnnm {

struct PredictRequest {
  const dag::Dag* dag = nullptr;  // checked (borrowed)
  std::string model_source;       // its text
  const train::ModelSnapshot* snapshot = nullptr;  // borrowed
  train::DataSource source;
  std::string backend = "cpu";
  int threads = 1;
  int64_t batch = 256;
};

// One output's predictions.
struct OutputPredictions {
  std::string name;
  bool classification = false;
  // Classification: the class names in class order, and per sample the
  // predicted class's index.
  std::vector<std::string> classes;
  std::vector<int64_t> predicted;
  // Per sample: the output's `units` values (a classification output's
  // probabilities as the model gives them; for one unit, the probability
  // of the second class), or regression values in the targets' units.
  int64_t units = 1;
  std::vector<double> values;
  // A sequenced output predicts every step: per sample `steps` steps of
  // `units` values (and of predicted classes), of which the sample's
  // first lengths[i] are real (ragged data; the rest are padding).
  bool sequenced = false;
  int64_t steps = 1;
  std::vector<int64_t> lengths;
  // Index of sample i's step t (of its values: times units).
  int64_t at(int64_t i, int64_t t = 0) const { return i * steps + t; }
};

struct Predictions {
  int64_t samples = 0;
  std::vector<OutputPredictions> outputs;  // in the model's order
};

absl::StatusOr<Predictions> Predict(const PredictRequest& request);

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_API_PREDICT_H_
