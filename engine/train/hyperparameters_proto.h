// The hyperparameter table (hyperparameters.h) mapped onto its message,
// webnnm.v1.Hyperparameters: field by field through the table (each entry's
// field is its name in snake_case), so no hyperparameter is copied by hand.
#ifndef WEBNNM_ENGINE_TRAIN_HYPERPARAMETERS_PROTO_H_
#define WEBNNM_ENGINE_TRAIN_HYPERPARAMETERS_PROTO_H_

#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "engine/train/hyperparameters.h"
#include "webnnm/v1/hyperparameters.pb.h"

namespace webnnm::train {

// What an absent field means: a request's absent field takes the table's
// default; a snapshot's (written before every field had presence) is the
// zero of its type, except for the optional members, which stay unset.
enum class AbsentField { kDefault, kZero };

// The message's values over the defaults, each checked by the table
// (InvalidArgument "hyperparameter NAME: WHY" for the first bad one).
absl::StatusOr<Hyperparameters> HyperparametersFromProto(
    const v1::Hyperparameters& message,
    AbsentField absent = AbsentField::kDefault);

// Every member of `h` as a field (optional members only when set).
v1::Hyperparameters HyperparametersToProto(const Hyperparameters& h);
// Only the members named in `only` (the spec's names): what a user gave.
v1::Hyperparameters HyperparametersToProto(const Hyperparameters& h,
                                           const std::set<std::string>& only);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_HYPERPARAMETERS_PROTO_H_
