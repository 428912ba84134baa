#include "server/convert.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/base/strings.h"
#include "engine/train/optimizer.h"

namespace webnnm::server {
namespace {

absl::Status Bad(std::string_view field, const std::string& why) {
  return absl::InvalidArgumentError(
      StrCat("hyperparameter ", field, ": ", why));
}

template <typename T>
absl::Status InRange(std::string_view field, T v, T lo, T hi) {
  if (!(v >= lo && v <= hi)) {
    return Bad(field, StrCat(v, " is outside ", lo, "..", hi));
  }
  return absl::OkStatus();
}

absl::Status OneOf(std::string_view field, const std::string& v,
                   const std::set<std::string>& allowed) {
  if (allowed.count(v)) return absl::OkStatus();
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  return Bad(field, StrCat("'", v, "' is not one of ", list));
}

absl::Status Finite(std::string_view field, double v) {
  if (!std::isfinite(v)) return Bad(field, "must be a finite number");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<train::Hyperparameters> ResolveHyperparameters(
    const v1::Hyperparameters& h, int max_threads) {
  train::Hyperparameters r;
#define WEBNNM_CHECK(expr)    \
  do {                        \
    absl::Status s_ = (expr); \
    if (!s_.ok()) return s_;  \
  } while (false)
  if (h.has_epochs()) {
    WEBNNM_CHECK(InRange("epochs", h.epochs(), 1, 10000000));
    r.epochs = h.epochs();
  }
  if (h.has_lr()) {
    WEBNNM_CHECK(Finite("lr", h.lr()));
    WEBNNM_CHECK(InRange("lr", h.lr(), 0.0, 1e6));
    r.lr = h.lr();
  }
  if (h.has_warmup_epochs()) {
    WEBNNM_CHECK(InRange("warmupEpochs", h.warmup_epochs(), 0, 10000000));
    r.warmup_epochs = h.warmup_epochs();
  }
  if (h.has_seeds()) {
    WEBNNM_CHECK(InRange("seeds", h.seeds(), 1, 100000));
    r.seeds = h.seeds();
  }
  if (h.has_patience()) {
    WEBNNM_CHECK(InRange("patience", h.patience(), 1, 10000000));
    r.patience = h.patience();
  }
  if (h.has_loss_weights()) r.loss_weights = h.loss_weights();
  if (h.has_optimizer()) {
    WEBNNM_CHECK(OneOf("optimizer", h.optimizer(),
                       {"lion", "rlion", "nesterov", "sgdm"}));
    r.optimizer = h.optimizer();
  }
  auto optional_double = [&](std::string_view field, bool has, double v,
                             std::optional<double>& out) -> absl::Status {
    if (!has) return absl::OkStatus();
    if (!std::isfinite(v)) return Bad(field, "must be a finite number");
    out = v;
    return absl::OkStatus();
  };
  WEBNNM_CHECK(optional_double("weightDecay", h.has_weight_decay(),
                               h.weight_decay(), r.weight_decay));
  WEBNNM_CHECK(optional_double("momentumFactor", h.has_momentum_factor(),
                               h.momentum_factor(), r.momentum_factor));
  WEBNNM_CHECK(optional_double("beta1", h.has_beta1(), h.beta1(), r.beta1));
  WEBNNM_CHECK(optional_double("beta2", h.has_beta2(), h.beta2(), r.beta2));
  if (h.has_freeze()) {
    WEBNNM_CHECK(InRange("freeze", h.freeze(), 0.0, 1.0));
    r.freeze = h.freeze();
  }
  if (h.has_regularization()) {
    WEBNNM_CHECK(OneOf("regularization", h.regularization(),
                       {"auto", "L1", "L2", "L1+L2", "off"}));
    r.regularization = h.regularization();
  }
  if (h.has_lambda1()) {
    WEBNNM_CHECK(Finite("lambda1", h.lambda1()));
    r.lambda1 = h.lambda1();
  }
  if (h.has_lambda2()) {
    WEBNNM_CHECK(Finite("lambda2", h.lambda2()));
    r.lambda2 = h.lambda2();
  }
  if (h.has_optimize_for()) {
    WEBNNM_CHECK(OneOf("optimizeFor", h.optimize_for(), {"size", "edge"}));
    r.optimize_for = h.optimize_for();
  }
  if (h.has_gradient_scaling()) {
    WEBNNM_CHECK(
        OneOf("gradientScaling", h.gradient_scaling(), {"auto", "on", "off"}));
    r.gradient_scaling = h.gradient_scaling();
  }
  if (h.has_gradient_clipping()) {
    WEBNNM_CHECK(OneOf("gradientClipping", h.gradient_clipping(),
                       {"auto", "global", "agc", "off"}));
    r.gradient_clipping = h.gradient_clipping();
  }
  if (h.has_scale()) {
    WEBNNM_CHECK(Finite("scale", h.scale()));
    WEBNNM_CHECK(InRange("scale", h.scale(), 1e-30, 1e30));
    r.scale = h.scale();
  }
  if (h.has_growth_interval()) {
    WEBNNM_CHECK(InRange("growthInterval", h.growth_interval(), 1, 1 << 30));
    r.growth_interval = h.growth_interval();
  }
  if (h.has_seed()) r.seed = h.seed();
  r.threads = max_threads;
  if (h.has_threads()) {
    WEBNNM_CHECK(InRange("threads", h.threads(), 1, 256));
    r.threads = std::min(h.threads(), max_threads);
  }
  if (h.has_batch_size()) {
    WEBNNM_CHECK(InRange("batchSize", h.batch_size(), 1, 1 << 20));
    r.batch_size = h.batch_size();
  }
  if (h.has_clip_alpha()) {
    WEBNNM_CHECK(InRange("clipAlpha", h.clip_alpha(), 0.0, 1.0));
    r.clip_alpha = h.clip_alpha();
  }
  if (h.has_agc_lambda()) {
    WEBNNM_CHECK(Finite("agcLambda", h.agc_lambda()));
    r.agc_lambda = h.agc_lambda();
  }
#undef WEBNNM_CHECK
  return r;
}

v1::Hyperparameters ToProto(const train::Hyperparameters& h) {
  v1::Hyperparameters out;
  train::OptimizerParams defaults = train::DefaultOptimizerParams(
      train::ParseOptimizer(h.optimizer)
          .value_or(train::OptimizerKind::kRLion));
  out.set_epochs(h.epochs);
  out.set_lr(h.lr.value_or(defaults.lr));
  out.set_warmup_epochs(h.warmup_epochs > 0
                            ? h.warmup_epochs
                            : std::max(1, static_cast<int>(h.epochs * 0.05)));
  out.set_seeds(h.seeds);
  out.set_patience(h.patience);
  out.set_loss_weights(h.loss_weights);
  out.set_optimizer(h.optimizer);
  out.set_weight_decay(h.weight_decay.value_or(defaults.weight_decay));
  out.set_momentum_factor(h.momentum_factor.value_or(defaults.momentum));
  out.set_beta1(h.beta1.value_or(defaults.beta1));
  out.set_beta2(h.beta2.value_or(defaults.beta2));
  out.set_freeze(h.freeze);
  out.set_regularization(h.regularization);
  out.set_lambda1(h.lambda1);
  out.set_lambda2(h.lambda2);
  out.set_optimize_for(h.optimize_for);
  out.set_gradient_scaling(h.gradient_scaling);
  out.set_gradient_clipping(h.gradient_clipping);
  out.set_scale(h.scale);
  out.set_growth_interval(h.growth_interval);
  out.set_seed(h.seed);
  out.set_threads(h.threads);
  out.set_batch_size(h.batch_size);
  out.set_clip_alpha(h.clip_alpha);
  out.set_agc_lambda(h.agc_lambda);
  return out;
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
