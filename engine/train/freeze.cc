#include "engine/train/freeze.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace webnnm::train {

std::map<std::string, double> FreezeMultipliers(const dag::Dag& dag,
                                                double freeze) {
  std::map<std::string, double> lrm;
  if (freeze <= 0) return lrm;
  const ir::Graph& g = dag.graph;
  absl::StatusOr<std::vector<ir::NodeId>> order = g.TopologicalOrder();
  if (!order.ok()) return lrm;
  // dIn: nodes on the longest path from an input (inputs count 1).
  std::vector<int> d_in(g.num_nodes(), 0), d_out(g.num_nodes(), 0);
  for (ir::NodeId id : *order) {
    const ir::Node& n = g.node(id);
    int best = n.kind == ir::NodeKind::kInput ? 1 : 0;
    for (ir::ValueId v : n.operands) {
      if (v == ir::kNoValue) continue;
      int from = d_in[g.value(v).producer];
      if (from > 0) best = std::max(best, from + 1);
    }
    d_in[id] = best;
  }
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    const ir::Node& n = g.node(*it);
    int best = n.kind == ir::NodeKind::kOutput ? 1 : 0;
    for (ir::ValueId out : n.outputs) {
      for (ir::NodeId c : g.Consumers(out)) {
        if (d_out[c] > 0) best = std::max(best, d_out[c] + 1);
      }
    }
    d_out[*it] = best;
  }
  constexpr double kHalfPi = 1.5707963267948966;
  // Each parameter's position, normalized over the parameters so that the
  // first layer is at 0 and the last at 1 (ERRATA 19a).
  std::map<std::string, double> position;
  double lowest = 1, highest = 0;
  for (ir::NodeId id : dag.parameters) {
    const ir::Node& p = g.node(id);
    if (!p.parameter.trainable) continue;
    double r = 0;
    for (ir::NodeId c : g.Consumers(p.outputs[0])) {
      if (d_in[c] + d_out[c] > 0) {
        r = std::max(r, static_cast<double>(d_in[c]) / (d_in[c] + d_out[c]));
      }
    }
    position[p.name] = r;
    lowest = std::min(lowest, r);
    highest = std::max(highest, r);
  }
  for (const auto& [name, r] : position) {
    double normalized =
        highest > lowest ? (r - lowest) / (highest - lowest) : 1;
    double ideal = 0;
    if (freeze < 1 && normalized > freeze) {
      ideal = std::sin(kHalfPi * (normalized - freeze) / (1 - freeze));
    }
    // Snap to the nearest bucket.
    double best = 0, distance = 2;
    for (int k = 0; k <= 4; ++k) {
      double bucket = std::sin(kHalfPi * k / 4.0);
      if (std::fabs(bucket - ideal) < distance) {
        distance = std::fabs(bucket - ideal);
        best = bucket;
      }
    }
    lrm[name] = best;
  }
  return lrm;
}

}  // namespace webnnm::train
