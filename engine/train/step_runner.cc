#include "engine/train/step_runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/sequence.h"

namespace webnnm::train {

absl::StatusOr<StepRunner> StepRunner::Make(
    const dag::Dag& dag, const Dataset& data, const StepConfig& config,
    int threads, backends::Backend& backend, int64_t steps,
    Collective* collective) {
  if (collective != nullptr) {
    return MakeSplit(dag, data, config, threads, backend, steps, *collective);
  }
  if (threads > 1) {
    ASSIGN_OR_RETURN(
        std::optional<StepRunner> threaded,
        MakeThreaded(dag, data, config, threads, backend, steps, threads));
    if (threaded) return *std::move(threaded);
  }
  StepConfig sequenced = config;
  ASSIGN_OR_RETURN(sequenced.sequence, SequenceLength(dag, data));
  sequenced.step_mask = data.ragged();
  if (data.ragged() && steps > 0 && steps < sequenced.sequence) {
    sequenced.sequence = steps;
  }
  ASSIGN_OR_RETURN(ir::Graph graph, BuildTrainingGraph(dag, sequenced));
  std::vector<std::string> names;
  for (const auto& [name, id] : TrainableParameters(dag)) {
    names.push_back(name);
  }
  if (config.uncertainty_weights) {
    for (const OutputSpec& spec : config.outputs) {
      names.push_back("uncertainty:" + spec.name);
    }
  }
  // The step carries its new parameters, momenta and running statistics
  // into its inputs itself (on a device they never leave it).
  backends::CompileOptions options;
  options.threads = threads;
  for (const std::string& name : names) {
    options.carries.push_back({"new:" + name, name});
    options.carries.push_back({"newMomentum:" + name, "momentum:" + name});
  }
  for (const ir::Node& node : graph.nodes()) {
    if (!node.dead && node.kind == ir::NodeKind::kOutput &&
        node.name.starts_with("new:") &&
        std::find(names.begin(), names.end(), node.name.substr(4)) ==
            names.end()) {
      options.carries.push_back({node.name, node.name.substr(4)});
    }
  }
  StepRunner r;
  ASSIGN_OR_RETURN(r.exe_, backend.Compile(graph, options));
  backends::Executable& exe = *r.exe_;
  r.feeder_ = std::make_unique<Feeder>(dag, data, config.outputs, config.batch,
                                       sequenced.sequence);
  RETURN_IF_ERROR(r.feeder_->Bind(exe));
  for (const std::string& name : names) {
    Binding b{name, exe.FindInput(name), exe.FindOutput("new:" + name),
              exe.FindInput("momentum:" + name),
              exe.FindOutput("newMomentum:" + name)};
    if (b.in < 0 || b.out < 0 || b.m_in < 0 || b.m_out < 0) {
      return absl::InternalError(StrCat("the training graph lacks ", name));
    }
    r.trained_.push_back(b);
  }
  for (ir::NodeId id : dag.parameters) {
    const ir::Node& node = dag.graph.node(id);
    if (node.parameter.trainable) continue;
    Binding b{node.name, exe.FindInput(node.name),
              exe.FindOutput("new:" + node.name)};
    if (b.in >= 0 && b.out >= 0) r.running_.push_back(b);
  }
  r.BindScalars(config);
  r.loss_out_ = exe.FindOutput("loss");
  r.finite_out_ = exe.FindOutput("finite");
  r.mu_out_ = exe.FindOutput("clipMu");
  r.sigma_out_ = exe.FindOutput("clipSigma");
  for (const OutputSpec& spec : config.outputs) {
    r.correct_out_.push_back(exe.FindOutput("correct:" + spec.name));
    r.scored_out_.push_back(exe.FindOutput("scored:" + spec.name));
  }
  return r;
}

std::vector<std::string> StepRunner::trained() const {
  std::vector<std::string> names;
  for (const Binding& b : trained_) names.push_back(b.name);
  return names;
}

absl::Status StepRunner::Load(const TrainState& state, uint64_t seed) {
  auto load = [&](const Params& from, const std::string& name, int input,
                  std::string_view what) -> absl::Status {
    auto it = from.find(name);
    if (it == from.end() ||
        it->second.size() * sizeof(float) != exe_->inputs()[input].byte_size) {
      return absl::InvalidArgumentError(
          StrCat("the state's ", what, " '", name, "' does not fit the model"));
    }
    WriteFloats(*exe_, input, it->second.data(), it->second.size());
    return absl::OkStatus();
  };
  for (const Binding& b : trained_) {
    RETURN_IF_ERROR(load(state.params, b.name, b.in, "parameter"));
    RETURN_IF_ERROR(load(state.momenta, b.name, b.m_in, "momentum"));
  }
  for (const Binding& b : running_) {
    RETURN_IF_ERROR(load(state.params, b.name, b.in, "statistics"));
  }
  // Dropout's random numbers: one stream per step, keyed by the seed (and,
  // past the first, by the replica: each draws its own rows' masks).
  if (team_) {
    // Each share draws its own masks (as replicas of those ranks would).
    for (int t = 0; t < team_->size(); ++t) {
      Share(t).SetRandomState(
          seed ^ (static_cast<uint64_t>(t) * 0x9E3779B97F4A7C15ull),
          static_cast<uint64_t>(state.step));
    }
    return absl::OkStatus();  // the shares read the update's parameters
  }
  if (grad_exe_) {
    const uint64_t replica = static_cast<uint64_t>(collective_->rank());
    grad_exe_->SetRandomState(seed ^ (replica * 0x9E3779B97F4A7C15ull),
                              static_cast<uint64_t>(state.step));
    return ShareParameters();
  }
  exe_->SetRandomState(seed, static_cast<uint64_t>(state.step));
  return absl::OkStatus();
}

absl::Status StepRunner::Store(TrainState& state) {
  auto store = [&](std::vector<float>& to, int input) -> absl::Status {
    ASSIGN_OR_RETURN(std::span<const std::byte> value, exe_->Current(input));
    to.resize(value.size() / sizeof(float));
    std::memcpy(to.data(), value.data(), value.size());
    return absl::OkStatus();
  };
  for (const Binding& b : trained_) {
    RETURN_IF_ERROR(store(state.params[b.name], b.in));
    RETURN_IF_ERROR(store(state.momenta[b.name], b.m_in));
  }
  for (const Binding& b : running_) {
    RETURN_IF_ERROR(store(state.params[b.name], b.in));
  }
  return absl::OkStatus();
}

void StepRunner::BindScalars(const StepConfig& config) {
  const backends::Executable& exe = *exe_;
  lr_in_ = exe.FindInput("in:lr");
  scale_in_ = exe.FindInput("in:scale");
  mu_in_ = exe.FindInput("in:clipMu");
  sigma_in_ = exe.FindInput("in:clipSigma");
  k_in_ = exe.FindInput("in:clipK");
  first_in_ = exe.FindInput("in:clipFirst");
  adam_bias1_in_ = exe.FindInput("in:adamBias1");
  adam_bias2_in_ = exe.FindInput("in:adamBias2Sqrt");
  optimizer_params_ = config.optimizer_params;
}

void StepRunner::WriteScalars(double lr, float scale, const TrainState& state) {
  const float scalars[6] = {static_cast<float>(lr),
                            scale,
                            state.clip_mu,
                            state.clip_sigma,
                            state.step < 15 ? 4.0f : 2.0f,
                            state.clip_first ? 1.0f : 0.0f};
  const int inputs[6] = {lr_in_,    scale_in_, mu_in_,
                         sigma_in_, k_in_,     first_in_};
  for (int i = 0; i < 6; ++i) {
    if (inputs[i] >= 0) WriteFloats(*exe_, inputs[i], &scalars[i], 1);
  }
  if (adam_bias1_in_ >= 0 && adam_bias2_in_ >= 0) {
    // The update about to run is the optimizer's (updates + 1)-th since
    // its moments were zero.
    const AdamBiasValues bias =
        AdamBias(optimizer_params_, state.optimizer_updates + 1);
    const float b1 = static_cast<float>(bias.bias1);
    const float b2 = static_cast<float>(bias.bias2_sqrt);
    WriteFloats(*exe_, adam_bias1_in_, &b1, 1);
    WriteFloats(*exe_, adam_bias2_in_, &b2, 1);
  }
}

bool StepRunner::AfterUpdate(bool scaling, int growth_interval,
                             TrainState& state) {
  ++state.step;
  // The executable has carried the new values (the old ones when the
  // step skipped its update).
  if (ReadScalar(*exe_, finite_out_) <= 0.5f) {
    if (scaling) {
      state.loss_scale = std::max(1.0, state.loss_scale / 2);
      state.clean_steps = 0;
    }
    return false;
  }
  state.clip_mu = ReadScalar(*exe_, mu_out_);
  state.clip_sigma = ReadScalar(*exe_, sigma_out_);
  state.clip_first = false;
  ++state.optimizer_updates;
  if (scaling && ++state.clean_steps >= growth_interval) {
    state.loss_scale *= 2;
    state.clean_steps = 0;
  }
  return true;
}

absl::StatusOr<StepRunner::Result> StepRunner::Step(
    const std::vector<int64_t>& samples, int64_t begin, double lr, bool scaling,
    int growth_interval, TrainState& state, bool stop) {
  if (team_) {
    return ThreadedStep(samples, begin, lr, scaling, growth_interval, state);
  }
  if (grad_exe_) {
    return SplitStep(samples, begin, lr, scaling, growth_interval, state, stop);
  }
  RETURN_IF_ERROR(feeder_->Fill(*exe_, samples, begin));
  WriteScalars(lr, static_cast<float>(state.loss_scale), state);
  RETURN_IF_ERROR(exe_->Run());
  if (!AfterUpdate(scaling, growth_interval, state)) {
    return Result{std::nan(""), {}};
  }
  Result result{ReadScalar(*exe_, loss_out_), {}};
  for (int out : correct_out_) {
    result.correct.push_back(out >= 0 ? ReadScalar(*exe_, out) : -1.0);
  }
  for (int out : scored_out_) {
    result.scored.push_back(out >= 0 ? ReadScalar(*exe_, out) : -1.0);
  }
  return result;
}

}  // namespace webnnm::train
