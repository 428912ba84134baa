// Evaluating a model on a subset (internal to engine/train): an Evaluator
// runs the evaluation graph over the subset's batches, fed by a Feeder
// (feeder.h), and sums each output's loss and correct rows — and, for a
// test, each output's metrics (metrics.h).
#ifndef WEBNNM_ENGINE_TRAIN_EVALUATOR_H_
#define WEBNNM_ENGINE_TRAIN_EVALUATOR_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/train/collective.h"
#include "engine/train/feeder.h"
#include "engine/train/graphs.h"
#include "engine/train/state.h"

namespace webnnm::train {

class Evaluator {
 public:
  static absl::StatusOr<Evaluator> Make(const dag::Dag& dag,
                                        const Dataset& data,
                                        const std::vector<OutputSpec>& specs,
                                        int64_t batch, int threads,
                                        backends::Backend& backend);

  // Binds parameters by name (names the graph lacks are ignored); with
  // learned uncertainty weights, "uncertainty:<output>" s makes the
  // output's term e^(-s)/2 · L + s/2, as in training.
  void SetParameters(const Params& params);
  // Each output's mean loss and accuracy; the total is the weighted sum of
  // the outputs' losses (with uncertainty weights the training objective,
  // so epochs compare), the accuracy the mean over classification outputs.
  // With `metrics`, each output's metrics (metrics.h) too. With a
  // `collective`, replica r runs batches r, r + size, ... and the replicas
  // sum their sums (and their metrics' counts and sums): every replica gets
  // the whole subset's figures.
  absl::StatusOr<Evaluation> Run(const Dataset& data, Subset subset,
                                 bool metrics = false,
                                 Collective* collective = nullptr);

 private:
  // How a test's metrics read an output: its "value:" output, its targets
  // in the dataset, its units, and how a class is predicted.
  struct Metered {
    int value_out = -1;
    int scored_out = -1;  // "scored:<output>": the rows (or steps) scored
    size_t targets = 0;
    bool classification = false;
    ClassRule rule;
  };
  absl::Status Measure(const Dataset& data, const std::vector<int64_t>& samples,
                       size_t begin, std::vector<ClassificationAccumulator>& c,
                       std::vector<RegressionAccumulator>& r) const;
  // Sets each regression accumulator's shift to the subset's first value
  // (every replica alike, so that their sums add up).
  void ShiftRegressions(const Dataset& data,
                        const std::vector<int64_t>& samples,
                        std::vector<RegressionAccumulator>& r) const;

  std::unique_ptr<backends::Executable> exe_;
  std::unique_ptr<Feeder> feeder_;
  std::vector<OutputSpec> specs_;
  std::vector<double> weights_, offsets_;
  std::vector<Metered> metered_;  // per spec
  int64_t batch_ = 1;
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_EVALUATOR_H_
