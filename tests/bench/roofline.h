// The roofline of a training step: its heavy operations (matmul, gemm,
// conv2d, convTranspose2d — the recurrent layers unroll into matmuls in a
// training graph), the FLOPs of each (a multiply-add counts 2), and the time
// each one takes alone on the backend, on its own shapes, through the
// optimized library (oneDNN on the CPU: library_minimum_elements 0). The
// step's roofline time is the sum of those times: what the step would cost
// if everything but its GEMMs and convolutions were free and each ran at
// the rate the library reaches on that shape (docs/performance.md).
#ifndef WEBNNM_TESTS_BENCH_ROOFLINE_H_
#define WEBNNM_TESTS_BENCH_ROOFLINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "engine/dag/dag.h"
#include "engine/data/dataset.h"
#include "engine/ir/graph.h"

namespace webnnm::bench {

struct HeavyOp {
  std::string what;  // "matmul [64,784]x[784,128]"
  int64_t flops = 0;
  double seconds = 0;  // one run alone (the median of several)
};

struct Roofline {
  std::vector<HeavyOp> ops;
  int64_t flops = 0;   // per step
  double seconds = 0;  // Σ HeavyOp::seconds: the roofline's step time
  int other_ops = 0;   // operations not counted (element-wise and the rest)
  double rate() const { return seconds > 0 ? flops / seconds : 0; }
};

// The roofline of `graph` (a training step with every shape fixed), each
// heavy operation timed alone on `backend` with `threads` threads.
absl::StatusOr<Roofline> MeasureRoofline(const ir::Graph& graph,
                                         backends::Backend& backend,
                                         int threads);

// The training step graph of `dag` at `batch` rows on `data` (its sequence
// length), as the trainer builds it (sgdm; a classification output
// trained with sparse categorical cross-entropy — the loss and the
// optimizer do not change the heavy operations).
absl::StatusOr<ir::Graph> StepGraph(const dag::Dag& dag,
                                    const train::Dataset& data, int batch);

}  // namespace webnnm::bench

#endif  // WEBNNM_TESTS_BENCH_ROOFLINE_H_
