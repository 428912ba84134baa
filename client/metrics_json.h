// A test's metrics as webnnmctl prints them in -o json: "testMetrics", an
// object by output name; for a classification output its "accuracy",
// "classes" (names, in class order), "precision", "recall", "f1" (lists in
// class order) and "confusionMatrix" (a row per true class); for a
// regression output "mae", "rmse" and "r2", numbers for a one-unit output
// and lists for several.
#ifndef WEBNNM_CLIENT_METRICS_JSON_H_
#define WEBNNM_CLIENT_METRICS_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/dag/dag.h"
#include "engine/train/metrics.h"
#include "engine/train/state.h"

namespace webnnm::client {

nlohmann::ordered_json TestMetricsJson(
    const std::vector<std::pair<std::string, train::OutputMetrics>>& metrics);

// An evaluation's metrics in the DAG's output order.
std::vector<std::pair<std::string, train::OutputMetrics>> MetricsOf(
    const train::Evaluation& test, const dag::Dag& dag);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_METRICS_JSON_H_
