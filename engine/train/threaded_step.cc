// StepRunner's threaded step (step_runner.h): the threads of one process
// share every batch as replicas would — each computes its share's
// gradients on an executable of its own — and meet in memory: the
// gradients are summed slice by slice by all of them, and the update runs
// once, on parameters every share reads in place.
#include <algorithm>
#include <cmath>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/flops.h"
#include "engine/train/step_runner.h"

namespace webnnm::train {

absl::StatusOr<std::optional<StepRunner>> StepRunner::MakeThreaded(
    const dag::Dag& dag, const Dataset& data, const StepConfig& config,
    int threads, backends::Backend& backend, int64_t steps,
    int& one_executable_threads) {
  one_executable_threads = threads;
  if (threads <= 1 || backend.name() != "cpu" || config.batch < 2 * threads) {
    return std::nullopt;
  }
  ASSIGN_OR_RETURN(SplitPlan plan,
                   PlanSplit(dag, data, config, steps, threads));
  for (const ir::Node& node : plan.gradients.nodes()) {
    if (!node.dead && node.kind == ir::NodeKind::kOutput &&
        node.name.starts_with("batchStat:")) {
      return std::nullopt;  // batch normalization: the whole batch's rows
    }
  }
  int64_t parameters = 0;  // the floats the shares sum and update
  for (const ir::Node& node : plan.gradients.nodes()) {
    if (!node.dead && node.kind == ir::NodeKind::kOutput &&
        node.name.starts_with("grad:")) {
      int64_t n = 1;
      for (int64_t d : plan.gradients.value(node.operands[0]).type.shape) {
        n *= d;
      }
      parameters += n;
    }
  }
  const int64_t flops = ir::HeavyFlops(plan.gradients) * threads;
  if (flops < kThreadedMinimumFlops ||
      flops < kThreadedMinimumFlopsPerParameter * parameters) {
    // Too light to share: the shares' sums and the update, and meeting,
    // would cost more than they save — and oneDNN's own threads cost more
    // than they save on such steps too (docs/performance.md).
    one_executable_threads = 1;
    return std::nullopt;
  }
  StepRunner r;
  ASSIGN_OR_RETURN(
      r.exe_, backend.Compile(plan.update, UpdateOptions(plan, 1, nullptr)));
  backends::Executable& u = *r.exe_;
  // Every share reads the parameters where the update keeps them (it
  // carries the new ones into those buffers).
  backends::CompileOptions share_options;
  share_options.threads = 1;
  // Each operation on the kernel the whole batch's would run on: a share
  // holds a `threads`-th of its elements (a C++ tanh over half the rows of
  // an LSTM's gates costs ten times oneDNN's).
  share_options.library_minimum_elements =
      std::max<int64_t>(1, share_options.library_minimum_elements / threads);
  for (const std::string& name : plan.trained) {
    const int in = u.FindInput(name);
    if (in < 0) {
      return absl::InternalError(StrCat("the update graph lacks ", name));
    }
    std::span<std::byte> value = u.input(static_cast<size_t>(in));
    share_options.shared_inputs.push_back({name, value.data(), value.size()});
  }
  for (int t = 0; t < threads; ++t) {
    ASSIGN_OR_RETURN(std::unique_ptr<backends::Executable> exe,
                     backend.Compile(plan.gradients, share_options));
    if (t == 0) {
      r.grad_exe_ = std::move(exe);
    } else {
      r.share_exes_.push_back(std::move(exe));
    }
  }
  RETURN_IF_ERROR(r.BindSplit(plan, dag, data, config));
  for (int t = 1; t < threads; ++t) {
    r.share_feeders_.push_back(std::make_unique<Feeder>(
        dag, data, config.outputs, plan.share_rows, plan.sequence));
    RETURN_IF_ERROR(r.share_feeders_.back()->Bind(r.Share(t)));
  }
  for (const Binding& b : r.trained_) {
    SumSlice slice{
        reinterpret_cast<float*>(u.input(b.u_in).data()), {}, b.count};
    for (int t = 0; t < threads; ++t) {
      slice.from.push_back(
          reinterpret_cast<const float*>(r.Share(t).output(b.g_out).data()));
    }
    r.summed_floats_ += b.count;
    r.slices_.push_back(std::move(slice));
  }
  r.share_status_.assign(threads, absl::OkStatus());
  r.team_ = std::make_unique<StepTeam>(threads);
  return std::optional<StepRunner>(std::move(r));
}

absl::StatusOr<StepRunner::Result> StepRunner::ThreadedStep(
    const std::vector<int64_t>& samples, int64_t begin, double lr, bool scaling,
    int growth_interval, TrainState& state) {
  const int shares = team_->size();
  const int64_t end =
      std::min<int64_t>(begin + batch_, static_cast<int64_t>(samples.size()));
  const std::vector<double> all = feeder_->Counts(samples, begin, end);
  const float scale = static_cast<float>(state.loss_scale);
  // Each share's gradients, at once.
  team_->Run([&](int t) {
    const int64_t mine = std::min(end, begin + t * share_rows_);
    const int64_t mine_end = std::min(end, mine + share_rows_);
    backends::Executable& g = Share(t);
    Feeder& feeder = ShareFeeder(t);
    absl::Status s = feeder.Fill(g, samples, mine, mine_end);
    if (s.ok()) {
      const std::vector<double> own = feeder.Counts(samples, mine, mine_end);
      for (size_t k = 0; k < share_in_.size(); ++k) {
        const float share =
            all[k] > 0 ? static_cast<float>(own[k] / all[k]) : 0.0f;
        WriteFloats(g, share_in_[k], &share, 1);
      }
      WriteFloats(g, grad_scale_in_, &scale, 1);
      s = g.Run();
    }
    share_status_[t] = std::move(s);
  });
  for (const absl::Status& s : share_status_) RETURN_IF_ERROR(s);
  // Their sum, in rank order from zero (as replicas sum), each thread a
  // slice of every gradient's floats laid end to end.
  team_->Run([&](int t) {
    const size_t per = (summed_floats_ + shares - 1) / shares;
    const size_t lo = std::min(summed_floats_, per * t);
    const size_t hi = std::min(summed_floats_, lo + per);
    size_t at = 0;
    for (const SumSlice& slice : slices_) {
      const size_t a = std::max(lo, at), b = std::min(hi, at + slice.count);
      if (a < b) {
        float* to = slice.to + (a - at);
        const size_t n = b - a;
        const float* first = slice.from[0] + (a - at);
        for (size_t i = 0; i < n; ++i) to[i] = 0.0f + first[i];
        for (int k = 1; k < shares; ++k) {
          const float* from = slice.from[k] + (a - at);
          for (size_t i = 0; i < n; ++i) to[i] += from[i];
        }
      }
      at += slice.count;
    }
  });
  float loss = 0.0f;
  std::vector<float> correct(correct_out_.size(), 0.0f),
      scored(scored_out_.size(), 0.0f);
  for (int t = 0; t < shares; ++t) {
    backends::Executable& g = Share(t);
    loss += ReadScalar(g, grad_loss_out_);
    for (size_t k = 0; k < correct_out_.size(); ++k) {
      if (correct_out_[k] >= 0) correct[k] += ReadScalar(g, correct_out_[k]);
      if (scored_out_[k] >= 0) scored[k] += ReadScalar(g, scored_out_[k]);
    }
  }
  WriteScalars(lr, scale, state);
  RETURN_IF_ERROR(exe_->Run());
  if (!AfterUpdate(scaling, growth_interval, state)) {
    return Result{std::nan(""), {}};
  }
  Result result{loss, {}};
  for (size_t k = 0; k < correct_out_.size(); ++k) {
    result.correct.push_back(correct_out_[k] >= 0 ? correct[k] : -1.0);
    result.scored.push_back(scored_out_[k] >= 0 ? scored[k] : -1.0);
  }
  return result;
}

}  // namespace webnnm::train
