#include "tests/bench/roofline.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/flops.h"
#include "engine/ir/graph_builder.h"
#include "engine/train/graphs.h"
#include "engine/train/sequence.h"

namespace webnnm::bench {

namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    out += (i ? "," : "") + std::to_string(shape[i]);
  }
  return out + "]";
}

// Seconds of one run of `exe`: the median of runs after a warm-up, for at
// least 50 ms or 5 runs.
absl::StatusOr<double> TimeRuns(backends::Executable& exe) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < 3; ++i) RETURN_IF_ERROR(exe.Run());
  std::vector<double> runs;
  const Clock::time_point start = Clock::now();
  while (runs.size() < 5 ||
         (Clock::now() - start < std::chrono::milliseconds(50) &&
          runs.size() < 100000)) {
    const Clock::time_point t = Clock::now();
    RETURN_IF_ERROR(exe.Run());
    runs.push_back(std::chrono::duration<double>(Clock::now() - t).count());
  }
  std::nth_element(runs.begin(), runs.begin() + runs.size() / 2, runs.end());
  return runs[runs.size() / 2];
}

// `node` alone in a graph of its own: an input for each operand.
absl::StatusOr<ir::Graph> Alone(const ir::Graph& graph, const ir::Node& node) {
  ir::GraphBuilder b;
  std::vector<ir::ValueId> operands;
  for (size_t i = 0; i < node.operands.size(); ++i) {
    const ir::ValueId v = node.operands[i];
    operands.push_back(v == ir::kNoValue
                           ? ir::kNoValue
                           : b.Input(StrCat("x", i), graph.value(v).type));
  }
  ASSIGN_OR_RETURN(std::vector<ir::ValueId> results,
                   b.Op(node.op->kind, operands, node.attrs));
  for (size_t i = 0; i < results.size(); ++i) {
    b.Output(StrCat("y", i), results[i]);
  }
  return b.Finish();
}

}  // namespace

absl::StatusOr<Roofline> MeasureRoofline(const ir::Graph& graph,
                                         backends::Backend& backend,
                                         int threads) {
  Roofline roofline;
  backends::CompileOptions options;
  options.threads = threads;
  options.library_minimum_elements = 0;  // the library, whatever the size
  for (const ir::Node& node : graph.nodes()) {
    if (node.kind != ir::NodeKind::kOp || node.dead) continue;
    const int64_t flops = ir::HeavyFlops(graph, node);
    if (flops == 0) {
      ++roofline.other_ops;
      continue;
    }
    HeavyOp op;
    op.flops = flops;
    op.what = node.op->name;
    for (size_t i = 0; i < node.operands.size() && i < 2; ++i) {
      op.what +=
          (i ? "x" : " ") + ShapeText(graph.value(node.operands[i]).type.shape);
    }
    ASSIGN_OR_RETURN(ir::Graph alone, Alone(graph, node));
    ASSIGN_OR_RETURN(std::unique_ptr<backends::Executable> exe,
                     backend.Compile(alone, options));
    // Small values: no denormals or infinities to slow a kernel down.
    for (size_t i = 0; i < exe->inputs().size(); ++i) {
      std::span<std::byte> bytes = exe->input(i);
      if (exe->inputs()[i].dtype == ir::DType::kFloat32) {
        float* values = reinterpret_cast<float*>(bytes.data());
        for (size_t k = 0; k < bytes.size() / sizeof(float); ++k) {
          values[k] = 0.01f * static_cast<float>(k % 97) - 0.48f;
        }
      } else {
        std::memset(bytes.data(), 0, bytes.size());
      }
    }
    ASSIGN_OR_RETURN(op.seconds, TimeRuns(*exe));
    roofline.flops += op.flops;
    roofline.seconds += op.seconds;
    roofline.ops.push_back(std::move(op));
  }
  return roofline;
}

absl::StatusOr<ir::Graph> StepGraph(const dag::Dag& dag,
                                    const train::Dataset& data, int batch) {
  train::StepConfig config;
  config.batch = batch;
  ASSIGN_OR_RETURN(config.sequence, train::SequenceLength(dag, data));
  config.step_mask = data.ragged();
  config.optimizer = train::OptimizerKind::kSgdm;
  config.optimizer_params =
      train::DefaultOptimizerParams(train::OptimizerKind::kSgdm);
  for (const dag::Endpoint& output : dag.outputs) {
    config.outputs.push_back(
        {.name = output.name,
         .loss = train::LossKind::kSparseCategoricalCrossEntropy});
  }
  return train::BuildTrainingGraph(dag, config);
}

}  // namespace webnnm::bench
