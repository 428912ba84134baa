// Batch normalization in a training step (ERRATA 15b).
#ifndef WEBNNM_ENGINE_TRAIN_BATCH_STATISTICS_H_
#define WEBNNM_ENGINE_TRAIN_BATCH_STATISTICS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/ir/graph.h"
#include "engine/ir/graph_ops.h"

namespace webnnm::train {

// A running statistic's parameter (`name`, value `old`) and the value the
// step moves it to.
struct RunningUpdate {
  std::string name;
  ir::ValueId old = ir::kNoValue, updated = ir::kNoValue;
};

// Batch normalization in training (ERRATA 15b): every batchNormalization
// that reads running statistics normalises with the batch's own mean and
// variance instead — over every axis but its channel axis, rows with
// mask 0 excluded — and the step outputs the running statistics moved
// towards them ("new:<running mean>", "new:<running variance>", momentum
// 0.9; appended to `running` for the caller to output). The gradient flows
// through the batch statistics.
absl::Status UseBatchStatistics(ir::Graph& graph, ir::GraphOps& ops,
                                ir::ValueId mask,
                                std::vector<RunningUpdate>& running);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_BATCH_STATISTICS_H_
