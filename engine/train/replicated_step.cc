// StepRunner's replicated step (step_runner.h): the gradients of each
// replica's share of the global batch, summed over the replicas in one
// allreduce, then the same update on every replica.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/sequence.h"
#include "engine/train/step_runner.h"

namespace webnnm::train {

absl::StatusOr<StepRunner::SplitPlan> StepRunner::PlanSplit(
    const dag::Dag& dag, const Dataset& data, const StepConfig& config,
    int64_t steps, int shares) {
  SplitPlan plan;
  StepConfig sequenced = config;
  ASSIGN_OR_RETURN(sequenced.sequence, SequenceLength(dag, data));
  sequenced.step_mask = data.ragged();
  if (data.ragged() && steps > 0 && steps < sequenced.sequence) {
    sequenced.sequence = steps;
  }
  plan.sequence = sequenced.sequence;
  StepConfig gradients = sequenced;
  gradients.part = StepPart::kGradients;
  gradients.batch = (config.batch + shares - 1) / shares;
  plan.share_rows = gradients.batch;
  StepConfig update = sequenced;
  update.part = StepPart::kUpdate;
  ASSIGN_OR_RETURN(plan.gradients, BuildTrainingGraph(dag, gradients));
  ASSIGN_OR_RETURN(plan.update, BuildTrainingGraph(dag, update));
  for (const auto& [name, id] : TrainableParameters(dag)) {
    plan.trained.push_back(name);
  }
  if (config.uncertainty_weights) {
    for (const OutputSpec& spec : config.outputs) {
      plan.trained.push_back("uncertainty:" + spec.name);
    }
  }
  for (ir::NodeId id : dag.parameters) {
    const ir::Node& node = dag.graph.node(id);
    if (!node.parameter.trainable) plan.running.push_back(node.name);
  }
  return plan;
}

backends::CompileOptions StepRunner::UpdateOptions(
    const SplitPlan& plan, int threads, const backends::Executable* g) {
  backends::CompileOptions options;
  options.threads = threads;
  for (const std::string& name : plan.trained) {
    options.carries.push_back({"new:" + name, name});
    options.carries.push_back({"newMomentum:" + name, "momentum:" + name});
  }
  for (const std::string& name : plan.running) {
    if (g != nullptr && g->FindOutput("batchStat:" + name) >= 0) {
      options.carries.push_back({"new:" + name, name});
    }
  }
  return options;
}

absl::Status StepRunner::BindSplit(const SplitPlan& plan, const dag::Dag& dag,
                                   const Dataset& data,
                                   const StepConfig& config) {
  backends::Executable& u = *exe_;
  backends::Executable& g = *grad_exe_;
  batch_ = config.batch;
  share_rows_ = plan.share_rows;
  feeder_ = std::make_unique<Feeder>(dag, data, config.outputs, plan.share_rows,
                                     plan.sequence);
  RETURN_IF_ERROR(feeder_->Bind(g));
  for (const std::string& name : plan.trained) {
    Binding b{name,
              u.FindInput(name),
              u.FindOutput("new:" + name),
              u.FindInput("momentum:" + name),
              u.FindOutput("newMomentum:" + name),
              g.FindInput(name),
              g.FindOutput("grad:" + name),
              u.FindInput("grad:" + name)};
    if (b.in < 0 || b.out < 0 || b.m_in < 0 || b.m_out < 0 || b.g_in < 0 ||
        b.g_out < 0 || b.u_in < 0) {
      return absl::InternalError(
          StrCat("the replicated training graphs lack ", name));
    }
    b.count = u.inputs()[b.in].byte_size / sizeof(float);
    trained_.push_back(b);
  }
  for (const std::string& name : plan.running) {
    Binding b{name, u.FindInput(name), u.FindOutput("new:" + name)};
    b.g_in = g.FindInput(name);
    b.g_out = g.FindOutput("batchStat:" + name);
    b.u_in = u.FindInput("batchStat:" + name);
    if (b.in < 0 || b.out < 0 || b.g_in < 0 || b.g_out < 0 || b.u_in < 0) {
      continue;
    }
    b.count = u.inputs()[b.in].byte_size / sizeof(float);
    running_.push_back(b);
  }
  BindScalars(config);
  finite_out_ = u.FindOutput("finite");
  mu_out_ = u.FindOutput("clipMu");
  sigma_out_ = u.FindOutput("clipSigma");
  grad_scale_in_ = g.FindInput("in:scale");
  grad_loss_out_ = g.FindOutput("loss");
  for (const OutputSpec& spec : config.outputs) {
    share_in_.push_back(g.FindInput("in:share:" + spec.name));
    correct_out_.push_back(g.FindOutput("correct:" + spec.name));
    scored_out_.push_back(g.FindOutput("scored:" + spec.name));
  }
  return absl::OkStatus();
}

absl::StatusOr<StepRunner> StepRunner::MakeSplit(
    const dag::Dag& dag, const Dataset& data, const StepConfig& config,
    int threads, backends::Backend& backend, int64_t steps,
    Collective& collective) {
  ASSIGN_OR_RETURN(SplitPlan plan, PlanSplit(dag, data, config, steps,
                                             std::max(1, collective.size())));
  backends::CompileOptions grad_options;
  grad_options.threads = threads;
  StepRunner r;
  ASSIGN_OR_RETURN(r.grad_exe_, backend.Compile(plan.gradients, grad_options));
  ASSIGN_OR_RETURN(
      r.exe_, backend.Compile(plan.update,
                              UpdateOptions(plan, threads, r.grad_exe_.get())));
  r.collective_ = &collective;
  RETURN_IF_ERROR(r.BindSplit(plan, dag, data, config));
  return r;
}

absl::Status StepRunner::ShareParameters() {
  for (const std::vector<Binding>* list : {&trained_, &running_}) {
    for (const Binding& b : *list) {
      ASSIGN_OR_RETURN(std::span<const std::byte> value, exe_->Current(b.in));
      std::span<std::byte> to = grad_exe_->input(b.g_in);
      std::memcpy(to.data(), value.data(), std::min(to.size(), value.size()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<StepRunner::Result> StepRunner::SplitStep(
    const std::vector<int64_t>& samples, int64_t begin, double lr, bool scaling,
    int growth_interval, TrainState& state, bool stop) {
  const int64_t end =
      std::min<int64_t>(begin + batch_, static_cast<int64_t>(samples.size()));
  const int64_t mine = begin + collective_->rank() * share_rows_;
  const int64_t mine_end = std::min(end, mine + share_rows_);
  RETURN_IF_ERROR(feeder_->Fill(*grad_exe_, samples, mine, mine_end));
  const std::vector<double> all = feeder_->Counts(samples, begin, end);
  const std::vector<double> own = feeder_->Counts(samples, mine, mine_end);
  for (size_t k = 0; k < share_in_.size(); ++k) {
    const float share = all[k] > 0 ? static_cast<float>(own[k] / all[k]) : 0.0f;
    WriteFloats(*grad_exe_, share_in_[k], &share, 1);
  }
  const float scale = static_cast<float>(state.loss_scale);
  WriteFloats(*grad_exe_, grad_scale_in_, &scale, 1);
  RETURN_IF_ERROR(grad_exe_->Run());

  // One allreduce: the gradients, the batch statistics weighted by this
  // replica's rows, the shared loss, the classification counts, the wish
  // to stop.
  const double rows = static_cast<double>(std::max<int64_t>(0, end - begin));
  const float row_share = static_cast<float>(
      rows > 0 ? std::max<int64_t>(0, mine_end - mine) / rows : 0.0);
  sum_.clear();
  for (const Binding& b : trained_) {
    const float* grad =
        reinterpret_cast<const float*>(grad_exe_->output(b.g_out).data());
    sum_.insert(sum_.end(), grad, grad + b.count);
  }
  for (const Binding& b : running_) {
    const float* stat =
        reinterpret_cast<const float*>(grad_exe_->output(b.g_out).data());
    for (size_t i = 0; i < b.count; ++i) sum_.push_back(stat[i] * row_share);
  }
  const size_t tail = sum_.size();
  sum_.push_back(ReadScalar(*grad_exe_, grad_loss_out_));
  for (size_t k = 0; k < correct_out_.size(); ++k) {
    sum_.push_back(
        correct_out_[k] >= 0 ? ReadScalar(*grad_exe_, correct_out_[k]) : 0.0f);
    sum_.push_back(scored_out_[k] >= 0 ? ReadScalar(*grad_exe_, scored_out_[k])
                                       : 0.0f);
  }
  sum_.push_back(stop ? 1.0f : 0.0f);
  RETURN_IF_ERROR(collective_->AllReduceSum(std::span<float>(sum_)));
  if (sum_.back() > 0) return Result{std::nan(""), {}, {}, true};

  size_t at = 0;
  for (const std::vector<Binding>* list : {&trained_, &running_}) {
    for (const Binding& b : *list) {
      WriteFloats(*exe_, b.u_in, sum_.data() + at, b.count);
      at += b.count;
    }
  }
  WriteScalars(lr, scale, state);
  RETURN_IF_ERROR(exe_->Run());
  const bool applied = AfterUpdate(scaling, growth_interval, state);
  RETURN_IF_ERROR(ShareParameters());
  if (!applied) return Result{std::nan(""), {}};
  Result result{sum_[tail], {}};
  for (size_t k = 0; k < correct_out_.size(); ++k) {
    result.correct.push_back(correct_out_[k] >= 0 ? sum_[tail + 1 + 2 * k]
                                                  : -1.0);
    result.scored.push_back(scored_out_[k] >= 0 ? sum_[tail + 2 + 2 * k]
                                                : -1.0);
  }
  return result;
}

}  // namespace webnnm::train
