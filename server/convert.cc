#include "server/convert.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/base/strings.h"
#include "engine/train/hyperparameters_proto.h"
#include "engine/train/optimizer.h"

namespace webnnm::server {
absl::StatusOr<train::Hyperparameters> ResolveHyperparameters(
    const v1::Hyperparameters& h, int max_threads) {
  absl::StatusOr<train::Hyperparameters> r = train::HyperparametersFromProto(h);
  if (!r.ok()) return r.status();
  r->threads =
      h.has_threads() ? std::min(r->threads, max_threads) : max_threads;
  return r;
}

v1::Hyperparameters ToProto(const train::Hyperparameters& h) {
  train::Hyperparameters shown = h;
  train::OptimizerParams defaults = train::DefaultOptimizerParams(h.optimizer);
  if (!shown.lr) shown.lr = defaults.lr;
  if (!shown.weight_decay) shown.weight_decay = defaults.weight_decay;
  if (!shown.momentum_factor) shown.momentum_factor = defaults.momentum;
  if (!shown.beta1) shown.beta1 = defaults.beta1;
  if (!shown.beta2) shown.beta2 = defaults.beta2;
  if (shown.warmup_epochs == 0) {
    shown.warmup_epochs = std::max(1, static_cast<int>(h.epochs * 0.05));
  }
  return train::HyperparametersToProto(shown);
}

v1::Decision ToProto(const train::Decision& d) {
  v1::Decision out;
  out.set_what(d.what);
  out.set_why(d.why);
  return out;
}

v1::EpochEvent ToProto(const train::EpochReport& r) {
  v1::EpochEvent e;
  e.set_epoch(r.epoch);
  e.set_epochs(r.epochs);
  e.set_train_loss(r.train_loss);
  if (r.validation_loss) e.set_validation_loss(*r.validation_loss);
  e.set_lr(r.lr);
  e.set_samples_per_second(r.samples_per_second);
  return e;
}

v1::TestEvent ToTestEvent(const train::Evaluation& test, const dag::Dag& dag) {
  v1::TestEvent e;
  e.set_samples(test.samples);
  if (test.samples > 0) {
    if (std::isfinite(test.loss)) e.set_test_loss(test.loss);
    if (test.accuracy) e.set_test_accuracy(*test.accuracy);
  }
  for (const dag::Endpoint& out : dag.outputs) {
    v1::OutputResult* o = e.add_outputs();
    o->set_name(out.name);
    auto it = test.outputs.find(out.name);
    if (test.samples > 0 && it != test.outputs.end()) {
      if (std::isfinite(it->second.loss)) o->set_test_loss(it->second.loss);
      if (it->second.accuracy) o->set_test_accuracy(*it->second.accuracy);
    }
  }
  return e;
}

v1::JobSummary ToSummary(const train::TrainResult& result,
                         const dag::Dag& dag) {
  v1::JobSummary s;
  s.set_epochs(result.epochs);
  s.set_best_epoch(result.best_epoch);
  s.set_train_samples_per_second(result.train_samples_per_second);
  if (std::isfinite(result.final_train_loss)) {
    s.set_final_train_loss(result.final_train_loss);
  }
  if (result.validation_loss && std::isfinite(*result.validation_loss)) {
    s.set_validation_loss(*result.validation_loss);
  }
  v1::TestEvent test = ToTestEvent(result.test, dag);
  s.set_test_samples(test.samples());
  if (test.has_test_loss()) s.set_test_loss(test.test_loss());
  if (test.has_test_accuracy()) s.set_test_accuracy(test.test_accuracy());
  *s.mutable_outputs() = test.outputs();
  for (const train::Decision& d : result.decisions) {
    *s.add_decisions() = ToProto(d);
  }
  for (const std::string& w : result.warnings) s.add_warnings(w);
  return s;
}

bool IsFinished(v1::JobState state) {
  return state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
         state == v1::JOB_STATE_CANCELLED;
}

}  // namespace webnnm::server
