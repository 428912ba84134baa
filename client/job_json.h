// How webnnmctl prints the daemon's messages as JSON: our own camelCase
// names (numbers as numbers, enums by name, null where a value does not
// apply), not protobuf's generic mapping (docs/cli.md).
#ifndef WEBNNM_CLIENT_JOB_JSON_H_
#define WEBNNM_CLIENT_JOB_JSON_H_

#include <nlohmann/json.hpp>

#include "webnnm/v1/webnnm.pb.h"

namespace webnnm::client {

using Json = nlohmann::ordered_json;

// {"jobId", "name", "tags" (an object of strings), "note", "state",
//  "kind", "principal", "modelName", "datasetId", "epoch", "epochs",
//  "bestEpoch", "testAccuracy", "testLoss", "error", "attempt",
//  "crashRestarts", "node", "waiting", "backend",
//  "created", "started", "finished", "durationSeconds" (from its start to
//  its end, or now; null before it starts), "lastSeq"}, and
// once tested the summary of `train --local -o json` ("epochs" is then the
// epochs run, "trainSamplesPerSecond", "finalTrainLoss", "validationLoss",
// "outputs", "decisions", "warnings").
Json JobJson(const v1::Job& job);
// {"seq", "time", "type", ...the type's fields}.
Json EventJson(const v1::JobEvent& event);
Json DatasetJson(const v1::Dataset& dataset);
// "2026-11-30T04:05:06.123Z"
std::string TimeText(const google::protobuf::Timestamp& t);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_JOB_JSON_H_
