#include "engine/train/sequence.h"

#include <optional>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/feeder.h"

namespace webnnm::train {

InputSteps StepsOf(const ir::TensorType& type) {
  InputSteps s;
  for (int64_t d : type.shape) {
    if (d == ir::kSequenceDim) s.sequenced = true;
  }
  for (int64_t d : type.FeatureShape()) s.step_values *= d;
  return s;
}

absl::StatusOr<int64_t> SequenceLength(const dag::Dag& dag,
                                       const Dataset& data) {
  ASSIGN_OR_RETURN(std::vector<int> sources, MatchInputs(dag, data));
  std::optional<int64_t> length;
  std::string first;  // the input that set it
  for (size_t i = 0; i < dag.inputs.size(); ++i) {
    const dag::Endpoint& e = dag.inputs[i];
    const ir::TensorType& type =
        dag.graph.value(dag.graph.node(e.node).outputs[0]).type;
    const InputSteps steps = StepsOf(type);
    if (!steps.sequenced) continue;
    const int64_t have = sources[i] < 0
                             ? data.width()
                             : data.more_inputs()[sources[i]].width;
    if (have < steps.step_values || have % steps.step_values != 0) {
      return absl::InvalidArgumentError(StrCat(
          "the model input '", e.name, "' is a sequence of steps of ",
          steps.step_values, " values (",
          ir::ShapeToString(type.FeatureShape()), " a step), but the "
          "dataset's samples have ", have, " features: not a whole number "
          "of steps"));
    }
    const int64_t t = have / steps.step_values;
    if (length && *length != t) {
      return absl::InvalidArgumentError(
          StrCat("the model's sequenced inputs take one length, but the "
                 "dataset gives '", first, "' ", *length, " steps and '",
                 e.name, "' ", t));
    }
    length = t;
    first = e.name;
  }
  if (length && dag.declared_steps > 0 && *length != dag.declared_steps) {
    return absl::InvalidArgumentError(StrCat(
        "the model's recurrent layer declares steps=", dag.declared_steps,
        ", but the dataset's samples are sequences of ", *length,
        " steps into '", first, "' (leave steps= out to take the data's)"));
  }
  return length.value_or(1);
}

}  // namespace webnnm::train
