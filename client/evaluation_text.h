// A finished job's results as a reader wants them (`webnnmctl get`'s
// "evaluation" block): the two speeds, each named; each classification
// output's per-class precision, recall, F1 and support with the class
// names and its confusion matrix with names on both axes; each regression
// output's errors in the target's own units, and what unit the loss is in;
// a negative multi-output loss explained.
#ifndef WEBNNM_CLIENT_EVALUATION_TEXT_H_
#define WEBNNM_CLIENT_EVALUATION_TEXT_H_

#include <string>

#include "client/job_json.h"

namespace webnnm::client {

// The text (lines ending in "\n"; empty when the job has no results yet)
// from a job as JobJson gives it.
std::string EvaluationText(const Json& job);

// Samples trained per second of the run's wall time (scouting, the range
// test, validation and testing included): trainedSamples over
// durationSeconds; null before both are known.
Json WallSamplesPerSecond(const Json& job);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_EVALUATION_TEXT_H_
