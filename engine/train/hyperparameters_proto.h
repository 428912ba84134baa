// The hyperparameter table (hyperparameters.h) mapped onto its message,
// webnnm.v1.Hyperparameters: field by field through the table (each entry's
// field is its name in snake_case), so no hyperparameter is copied by hand.
#ifndef WEBNNM_ENGINE_TRAIN_HYPERPARAMETERS_PROTO_H_
#define WEBNNM_ENGINE_TRAIN_HYPERPARAMETERS_PROTO_H_

#include "absl/status/statusor.h"
#include "engine/train/hyperparameters.h"
#include "webnnm/v1/hyperparameters.pb.h"

namespace webnnm::train {

// The fields a message sets, as given values (not checked: a stored request
// keeps what it held).
HyperparameterValues ValuesFromProto(const v1::Hyperparameters& message);
// The given values as fields (values of a wrong type or name are left out:
// ResolveHyperparameters refuses them).
v1::Hyperparameters ValuesToProto(const HyperparameterValues& values);

// What an absent field means: a request's absent field takes the table's
// default; a snapshot's (written before every field had presence) is the
// zero of its type, except for the optional members, which stay unset,
// and for the fields added since (replicas), which take the default.
enum class AbsentField { kDefault, kZero };

// The message's values over the defaults, each checked by the table
// (InvalidArgument "hyperparameter NAME: WHY" for the first bad one).
absl::StatusOr<Hyperparameters> HyperparametersFromProto(
    const v1::Hyperparameters& message,
    AbsentField absent = AbsentField::kDefault);

// Every member of `h` as a field (optional members only when set).
v1::Hyperparameters HyperparametersToProto(const Hyperparameters& h);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_HYPERPARAMETERS_PROTO_H_
