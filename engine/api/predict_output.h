// Predictions as files: the CSV and NumPy .npz forms `webnnmctl predict
// --output` writes and the daemon's Predict results download as
// (docs/cli.md, predict).
//
// CSV: a header row, then a row per sample; a classification output gives
// `OUTPUT:class` (the class name) and `OUTPUT:NAME` (its probability) per
// class, a regression output `OUTPUT` (one unit) or `OUTPUT:0`, `OUTPUT:1`…
// NPZ: per output an array `OUTPUT` of float32 [N, classes] (each class's
// probability; 2 columns for a one-unit output) or [N, units] (values in
// the targets' units) and, for a classification output,
// `OUTPUT_class` (int64 [N], class indices) and `OUTPUT_classes` (their
// names, a unicode array).
//
// A sequenced output predicts every step: its CSV cells list the values of
// the sample's real steps separated by spaces (`OUTPUT:class` "B I O …");
// its arrays gain the steps axis ([N, T, classes], [N, T] classes), a
// ragged sample's padded steps hold 0 (class -1), and `OUTPUT_lengths`
// (int64 [N]) gives each sample's real steps.
#ifndef WEBNNM_ENGINE_API_PREDICT_OUTPUT_H_
#define WEBNNM_ENGINE_API_PREDICT_OUTPUT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/api/predict.h"

namespace webnnm {

// A classification output's probability of each class for sample i (or,
// sequenced, step OutputPredictions::at(i, t); one unit: 1 - p and p).
std::vector<double> ClassProbabilities(const OutputPredictions& o, int64_t i);

std::string PredictionsCsv(const Predictions& p);
absl::StatusOr<std::string> PredictionsNpz(const Predictions& p);

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_API_PREDICT_OUTPUT_H_
