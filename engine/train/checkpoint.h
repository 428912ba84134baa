// Model snapshots: a training run's state with its model and dataset
// facts, in the snapshot container (snapshot.h, docs/snapshot-format.md).
//
// A snapshot taken after any epoch holds everything to test or serve the
// model (the best parameters, the standardization, the classes) and to
// resume the run exactly where it stopped (the current parameters and
// momenta, the step counter and random state, the schedule, the loss
// scale, the clipping statistics and the early-stopping state).
#ifndef WEBNNM_ENGINE_TRAIN_CHECKPOINT_H_
#define WEBNNM_ENGINE_TRAIN_CHECKPOINT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/train/state.h"

namespace webnnm::train {

struct ModelSnapshot {
  std::string model_name, model_file, model_source;
  std::string dataset;               // where the data came from
  std::vector<std::string> classes;  // class order (classification)
  std::string split;                 // "70,15,15" (seeded by hyper.seed)
  // A fingerprint of the data as read, before standardization (0: not
  // recorded): a resumed run must train on the same.
  uint64_t data_fingerprint = 0;
  // The CSV column the labels came from ("": not CSV, or not recorded):
  // what prediction leaves out of a file's features.
  std::string label_column;
  Standardization standardization;
  // How missing feature values are filled (empty: they are refused).
  Imputation imputation;
  // A CSV's text columns as one-hot features (empty: none).
  TextEncoding text_encoding;
  // Regression outputs trained on standardized targets, by output name:
  // their predictions map back with these.
  std::map<std::string, Standardization> target_standardization;
  // The inputs after the first, standardized, by input name.
  std::map<std::string, Standardization> input_standardization;
  TrainState state;
  // Parameter shapes for the tensor table (ParameterShapes(dag)); a
  // parameter without one is stored flat.
  std::map<std::string, std::vector<int64_t>> shapes;
};

// The shapes of the DAG's parameters, by name.
std::map<std::string, std::vector<int64_t>> ParameterShapes(
    const dag::Dag& dag);

absl::StatusOr<std::string> EncodeModelSnapshot(const ModelSnapshot& s);
absl::StatusOr<ModelSnapshot> DecodeModelSnapshot(std::string_view bytes);

// Writes atomically; reads and verifies (magic, version, checksum, table).
absl::Status SaveModelSnapshot(const std::string& path, const ModelSnapshot& s);
absl::StatusOr<ModelSnapshot> LoadModelSnapshot(const std::string& path);

// Checks that the snapshot's parameters are exactly the DAG's (names and
// element counts), so it can be loaded into this model.
absl::Status CheckSnapshotFits(const ModelSnapshot& s, const dag::Dag& dag);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_CHECKPOINT_H_
