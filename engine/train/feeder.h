// Feeding a dataset to compiled graphs (internal to engine/train): a
// Feeder writes a batch of samples into an executable's model inputs, the
// target of each trained output and the row mask (padded rows of a short
// last batch are masked) — and, for ragged sequences, the step mask of
// each row's real steps (an Evaluator, evaluator.h, feeds the evaluation
// graph with one).
#ifndef WEBNNM_ENGINE_TRAIN_FEEDER_H_
#define WEBNNM_ENGINE_TRAIN_FEEDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/train/collective.h"
#include "engine/train/graphs.h"
#include "engine/train/state.h"

namespace webnnm::train {

// Writes up to `count` floats (no more than the input holds).
void WriteFloats(backends::Executable& exe, int input, const float* data,
                 size_t count);
// Writes up to `count` values converted to the input's type (float32 or
// float16).
void WriteValues(backends::Executable& exe, int input, const float* data,
                 size_t count);
float ReadScalar(const backends::Executable& exe, int output);

// The number of values per sample (per step if sequenced) of the DAG's
// output `name`.
int64_t OutputWidth(const dag::Dag& dag, const std::string& name);
// Whether the DAG's output `name` has a sequence dimension (a label or
// values per step).
bool OutputSequenced(const dag::Dag& dag, const std::string& name);

// How a class is read from the output of `spec`: its units, and for one
// unit the threshold (0.5 after a sigmoid or for BCE, else 0).
ClassRule ClassRuleOf(const dag::Dag& dag, const OutputSpec& spec);

// Which of the dataset's targets feeds each output spec: the only targets
// for a model's only output, else the targets named after the output.
absl::StatusOr<std::vector<size_t>> MatchTargets(
    const Dataset& data, const std::vector<OutputSpec>& specs);

// Which of the dataset's features feeds each model input: -1 for the
// dataset's own features() (a model's only input, or the one named
// first_input()), else the index in more_inputs() of the input's name.
absl::StatusOr<std::vector<int>> MatchInputs(const dag::Dag& dag,
                                             const Dataset& data);

// Checks a DAG against the dataset: each input's size against its
// features', and each output's units against its classes or targets.
absl::Status CheckShapes(const dag::Dag& dag, const Dataset& data,
                         const std::vector<OutputSpec>& specs);

class Feeder {
 public:
  // `steps`: with ragged sequences, the steps a batch is padded to (its
  // length bucket, buckets.h; 0: the dataset's padded length): a
  // sequenced input gets each sample's first `steps` steps.
  Feeder(const dag::Dag& dag, const Dataset& data,
         std::vector<OutputSpec> specs, int64_t batch, int64_t steps = 0);

  // Finds the executable's inputs (every model input, target:<output> of
  // each spec, mask) and checks the model inputs' sizes.
  absl::Status Bind(backends::Executable& exe);

  // Fills rows from samples[begin, min(begin + batch, end)) (fewer at the
  // end; the rest are zero and masked); `end` -1: samples.size(). No row
  // at all (begin >= end) is a batch that is all mask.
  absl::Status Fill(backends::Executable& exe,
                    const std::vector<int64_t>& samples, int64_t begin,
                    int64_t end = -1);
  // Per output spec, what samples[begin, end) hold: the rows, or for a
  // sequenced output the steps with data (the count its loss is a mean
  // over); `end` -1: samples.size().
  std::vector<double> Counts(const std::vector<int64_t>& samples, int64_t begin,
                             int64_t end) const;

 private:
  struct Input {
    std::string name;
    int source = -1;    // -1: data_.features(); else more_inputs()[source]
    int64_t width = 0;  // values per sample in the dataset
    int64_t fed = 0;    // of them, fed per sample: the first `fed`
    int exe_input = -1;
    // Non-float32 inputs only: the rows before conversion.
    std::vector<float> values;
  };
  struct Output {
    OutputSpec spec;
    size_t targets = 0;  // index in data_.targets()
    int64_t width = 1;   // the output's values per sample (or step)
    int64_t steps = 1;   // a sequenced output's steps fed (else 1)
    int input = -1;      // target:<name>
    std::vector<float> values;
    std::vector<int32_t> labels;
  };
  void FillTargets(Output& o, const std::vector<int64_t>& samples,
                   int64_t begin, int64_t rows, backends::Executable& exe);

  const Dataset& data_;
  int64_t batch_;
  int64_t steps_;  // ragged: the steps fed (data_.steps() or fewer)
  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
  int mask_ = -1;
  std::vector<float> mask_values_;
  int step_mask_ = -1;  // ragged sequences: "in:stepMask" [T, B, 1]
  std::vector<float> step_mask_values_;
  absl::Status match_;
};

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_FEEDER_H_
