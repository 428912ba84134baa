// Conversions between the webnnm.v1 messages and the engine's types.
#ifndef WEBNNM_SERVER_CONVERT_H_
#define WEBNNM_SERVER_CONVERT_H_

#include <string>

#include "absl/status/statusor.h"
#include "engine/dag/dag.h"
#include "engine/train/trainer.h"
#include "proto/wire/names.h"
#include "webnnm/v1/webnnm.pb.h"

namespace webnnm::server {

// The submitted hyperparameters over the spec's defaults, checked like the
// command line's flags (InvalidArgument naming the field). `threads` is
// capped at `max_threads`, and is `max_threads` when unset.
absl::StatusOr<train::Hyperparameters> ResolveHyperparameters(
    const v1::Hyperparameters& h, int max_threads);

// Resolved hyperparameters (no 'auto' left) with every field set: the
// optimizer's defaults (ERRATA 16) where lr, weightDecay, momentumFactor,
// beta1 or beta2 were not given, the warmup actually used.
v1::Hyperparameters ToProto(const train::Hyperparameters& h);
v1::Decision ToProto(const train::Decision& d);
v1::EpochEvent ToProto(const train::EpochReport& r);
v1::TestEvent ToTestEvent(const train::Evaluation& test, const dag::Dag& dag);
// What `train --local -o json` reports.
v1::JobSummary ToSummary(const train::TrainResult& result, const dag::Dag& dag);

bool IsFinished(v1::JobState state);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CONVERT_H_
