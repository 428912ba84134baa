#include "engine/expert/scout.h"

#include <algorithm>
#include <cmath>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/init.h"
#include "engine/train/sequence.h"

namespace webnnm::train {
namespace {

bool IsWeight(const ir::Node& node) {
  return node.parameter.role == ir::ParamRole::kWeight ||
         node.parameter.role == ir::ParamRole::kGlorotWeight;
}

}  // namespace

std::set<std::string> FirstLayerWeights(const dag::Dag& dag) {
  const ir::Graph& g = dag.graph;
  std::set<std::string> names;
  std::vector<ir::ValueId> frontier;
  for (const dag::Endpoint& e : dag.inputs) {
    frontier.push_back(g.node(e.node).outputs[0]);
  }
  std::set<ir::ValueId> seen;
  while (!frontier.empty()) {
    ir::ValueId v = frontier.back();
    frontier.pop_back();
    if (!seen.insert(v).second) continue;
    for (ir::NodeId c : g.Consumers(v)) {
      const ir::Node& n = g.node(c);
      if (n.kind != ir::NodeKind::kOp) continue;
      if (n.op->category == ir::OpCategory::kMatrix ||
          n.op->category == ir::OpCategory::kConvolution) {
        for (ir::ValueId operand : n.operands) {
          if (operand == ir::kNoValue) continue;
          const ir::Node& p = g.node(g.value(operand).producer);
          if (p.kind == ir::NodeKind::kParameter && IsWeight(p)) {
            names.insert(p.name);
          }
        }
      } else if (n.op->category == ir::OpCategory::kMovement ||
                 n.op->category == ir::OpCategory::kCast) {
        for (ir::ValueId out : n.outputs) frontier.push_back(out);
      }
    }
  }
  return names;
}

Params CandidateParameters(const dag::Dag& dag, uint64_t seed, int k,
                           const std::set<std::string>& first_layer,
                           double init_scale) {
  return InitialParameters(dag, seed * 1000003ull + static_cast<uint64_t>(k),
                           first_layer, init_scale);
}

absl::StatusOr<Scouter> Scouter::Make(const dag::Dag& dag, const Dataset& data,
                                      const std::vector<OutputSpec>& specs,
                                      const StepConfig& config, int threads,
                                      backends::Backend& backend) {
  StepConfig scout_config = config;
  scout_config.scouting = true;
  ASSIGN_OR_RETURN(scout_config.sequence, SequenceLength(dag, data));
  scout_config.step_mask = data.ragged();
  ASSIGN_OR_RETURN(ir::Graph graph, BuildTrainingGraph(dag, scout_config));
  backends::CompileOptions options;
  options.threads = threads;
  Scouter s;
  ASSIGN_OR_RETURN(s.exe_, backend.Compile(graph, options));
  s.dag_ = &dag;
  s.data_ = &data;
  s.batch_ = config.batch;
  s.feeder_ = std::make_unique<Feeder>(dag, data, specs, config.batch);
  RETURN_IF_ERROR(s.feeder_->Bind(*s.exe_));
  for (const auto& [name, id] : TrainableParameters(dag)) {
    if (IsWeight(dag.graph.node(id))) s.weights_.push_back(name);
  }
  s.loss_ = s.exe_->FindOutput("loss");
  s.dead_ = s.exe_->FindOutput("deadRatio");
  s.scale_ = s.exe_->FindInput("in:scale");
  return s;
}

absl::Status Scouter::Load(const Params& params, double loss_scale,
                           int64_t batch) {
  if (batch != loaded_batch_) {
    RETURN_IF_ERROR(
        feeder_->Fill(*exe_, data_->subset(Subset::kTraining), batch * batch_));
    loaded_batch_ = batch;
  }
  float scale = static_cast<float>(loss_scale);
  WriteFloats(*exe_, scale_, &scale, 1);
  for (const auto& [name, values] : params) {
    int i = exe_->FindInput(name);
    if (i >= 0) WriteFloats(*exe_, i, values.data(), values.size());
  }
  return absl::OkStatus();
}

absl::StatusOr<Health> Scouter::Measure(const Params& params) {
  RETURN_IF_ERROR(Load(params, 1.0, 0));
  RETURN_IF_ERROR(exe_->Run());
  Health h;
  h.loss = ReadScalar(*exe_, loss_);
  h.dead_ratio = ReadScalar(*exe_, dead_);
  if (!weights_.empty()) {
    int first = exe_->FindOutput("gradNorm:" + weights_.front());
    int last = exe_->FindOutput("gradNorm:" + weights_.back());
    if (first >= 0 && last >= 0) {
      h.gradient_ratio =
          ReadScalar(*exe_, first) / (ReadScalar(*exe_, last) + 1e-12);
    }
  }
  h.score = -10 * std::fabs(std::log10(h.gradient_ratio + 1e-9)) -
            100 * h.dead_ratio - h.loss;
  return h;
}

absl::StatusOr<std::vector<RankedCandidate>> Scouter::RankCandidates(
    uint64_t seed, int seeds, const std::set<std::string>& first_layer,
    double init_scale, Collective* collective) {
  const int stride = collective ? collective->size() : 1;
  const int first = collective ? collective->rank() : 0;
  // Per candidate: measured (1), loss, gradient ratio, dead ratio, score.
  constexpr int kFields = 5;
  std::vector<double> table(static_cast<size_t>(seeds) * kFields, 0.0);
  for (int k = first; k < seeds; k += stride) {
    ASSIGN_OR_RETURN(Health h, Measure(CandidateParameters(
                                   *dag_, seed, k, first_layer, init_scale)));
    double* row = table.data() + static_cast<size_t>(k) * kFields;
    row[0] = 1;
    row[1] = h.loss;
    row[2] = h.gradient_ratio;
    row[3] = h.dead_ratio;
    row[4] = h.score;
  }
  if (collective) {
    RETURN_IF_ERROR(collective->AllReduceSum(std::span<double>(table)));
  }
  std::vector<RankedCandidate> ranked;
  for (int k = 0; k < seeds; ++k) {
    const double* row = table.data() + static_cast<size_t>(k) * kFields;
    Health h{.loss = row[1],
             .gradient_ratio = row[2],
             .dead_ratio = row[3],
             .score = row[4]};
    if (row[0] > 0 && std::isfinite(h.score)) ranked.push_back({k, h});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RankedCandidate& a, const RankedCandidate& b) {
                     return a.health.score > b.health.score;
                   });
  return ranked;
}

absl::StatusOr<std::map<std::string, ErrorProbe>> Scouter::ProbeErrors(
    const Params& params) {
  struct Sums {
    int powers[4] = {-1, -1, -1, -1};
    int count = -1;
    double total[4] = {0, 0, 0, 0};
    double n = 0;
  };
  std::map<std::string, Sums> outputs;
  for (const dag::Endpoint& e : dag_->outputs) {
    Sums o;
    o.count = exe_->FindOutput("errorCount:" + e.name);
    bool all = o.count >= 0;
    for (int k = 0; k < 4; ++k) {
      o.powers[k] = exe_->FindOutput(StrCat("errorPower", k + 1, ":", e.name));
      all &= o.powers[k] >= 0;
    }
    if (all) outputs[e.name] = o;
  }
  const auto samples =
      static_cast<int64_t>(data_->subset(Subset::kTraining).size());
  const int64_t batches =
      std::min<int64_t>(kProbeBatches, (samples + batch_ - 1) / batch_);
  for (int64_t b = 0; b < batches; ++b) {
    RETURN_IF_ERROR(Load(params, 1.0, b));
    RETURN_IF_ERROR(exe_->Run());
    for (auto& [name, o] : outputs) {
      for (int k = 0; k < 4; ++k) o.total[k] += ReadScalar(*exe_, o.powers[k]);
      o.n += ReadScalar(*exe_, o.count);
    }
  }
  std::map<std::string, ErrorProbe> probes;
  for (const auto& [name, o] : outputs) {
    if (o.n <= 0) continue;
    // Raw moments E[e^k], then the central ones.
    const double m1 = o.total[0] / o.n, m2 = o.total[1] / o.n,
                 m3 = o.total[2] / o.n, m4 = o.total[3] / o.n;
    const double variance = std::max(0.0, m2 - m1 * m1);
    const double fourth =
        m4 - 4 * m1 * m3 + 6 * m1 * m1 * m2 - 3 * m1 * m1 * m1 * m1;
    ErrorProbe& p = probes[name];
    p.mean = m1;
    p.stddev = std::sqrt(variance);
    p.kurtosis =
        variance > 0 ? std::max(0.0, fourth) / (variance * variance) : 0;
    p.count = static_cast<int64_t>(o.n);
  }
  return probes;
}

int64_t Scouter::LivenessSamples() const {
  const auto samples =
      static_cast<int64_t>(data_->subset(Subset::kTraining).size());
  const int64_t batches = std::max<int64_t>(
      1, (std::min(samples, kLivenessSamples) + batch_ - 1) / batch_);
  return std::min(samples, batches * batch_);
}

absl::StatusOr<bool> Scouter::InputsMatter(
    const Params& params, const std::set<std::string>& first_layer,
    double loss_scale) {
  std::vector<int> norms;
  for (const std::string& name : first_layer) {
    int i = exe_->FindOutput("gradNorm:" + name);
    if (i >= 0) norms.push_back(i);
  }
  if (norms.empty()) return true;
  const int64_t batches = (LivenessSamples() + batch_ - 1) / batch_;
  for (int64_t b = 0; b < batches; ++b) {
    RETURN_IF_ERROR(Load(params, loss_scale, b));
    RETURN_IF_ERROR(exe_->Run());
    for (int i : norms) {
      if (ReadScalar(*exe_, i) != 0) return true;
    }
  }
  return false;
}

}  // namespace webnnm::train
