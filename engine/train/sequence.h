// Sequences from a dataset: a model input declared {sequence, ...} takes
// samples of T steps, each step its other dimensions' values, and T is
// bound from the data when the graphs are lowered (LowerOptions::sequence).
//
// A sample of a sequenced input holds T × step values, step after step
// (the rows of an image are its steps: 784 pixels into {sequence,
// features: 28} are 28 steps of 28). Every sequenced input of a model
// takes the same T; samples of one dataset have one length.
#ifndef WEBNNM_ENGINE_TRAIN_SEQUENCE_H_
#define WEBNNM_ENGINE_TRAIN_SEQUENCE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/ir/tensor_type.h"

namespace webnnm::train {

// The values one step of an input of this type holds (the product of its
// dimensions but the batch and the sequence), and whether it is sequenced.
struct InputSteps {
  int64_t step_values = 1;
  bool sequenced = false;
};
InputSteps StepsOf(const ir::TensorType& type);

// The sequence length the dataset's samples give the model's sequenced
// inputs: 1 when none is sequenced. InvalidArgument, naming the input and
// both sizes, when a sample's values are no whole number of steps or two
// sequenced inputs disagree.
absl::StatusOr<int64_t> SequenceLength(const dag::Dag& dag,
                                       const Dataset& data);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_SEQUENCE_H_
