// The webnnm.v1 answers built from what the core and the engine return:
// a model's check and preview (CheckModel), a daemon's node record
// (ListNodes), the header of Predict's file, a progress report (WatchJob).
// One way only: nothing is stored in these forms.
#ifndef WEBNNM_SERVER_CONVERT_ANSWERS_H_
#define WEBNNM_SERVER_CONVERT_ANSWERS_H_

#include <string>

#include "engine/api/predict.h"
#include "engine/check.h"
#include "engine/train/run.h"
#include "server/core/store.h"
#include "webnnm/v1/webnnm.pb.h"

namespace webnnm::server {

// The check's verdict, diagnostics (up to 1000, then one counting the
// rest), rendering, warnings and, for a model that checks, its inputs,
// outputs and parameters.
void FillCheck(const CheckResult& check, v1::CheckModelResponse& response);
// What training would decide: decisions, warnings, resolved values.
void FillPreview(const train::Preview& preview,
                 v1::CheckModelResponse& response);

v1::Node ToProto(const NodeRecord& node);

// The first chunk of Predict's file (without its data): the samples, the
// outputs, the file's name, type and size.
v1::PredictChunk PredictHeader(const Predictions& p, const std::string& job_id,
                               bool npz, int64_t bytes);

// A PROGRESS event (seq 0: not one of the job's stored events).
v1::JobEvent ProgressEvent(const std::string& job,
                           const train::StepReport& r);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CONVERT_ANSWERS_H_
