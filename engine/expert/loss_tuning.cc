#include "engine/expert/loss_tuning.h"

#include <algorithm>
#include <cmath>

#include "engine/base/strings.h"

namespace webnnm::train {
namespace {

const dag::Endpoint* OutputNamed(const dag::Dag& dag, const std::string& name) {
  for (const dag::Endpoint& e : dag.outputs) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

}  // namespace

LossTuning TuneLosses(const dag::Dag& dag, std::vector<OutputSpec>& specs,
                      const std::map<std::string, ErrorProbe>& probes) {
  LossTuning t;
  for (OutputSpec& spec : specs) {
    const dag::Endpoint* output = OutputNamed(dag, spec.name);
    auto probe = probes.find(spec.name);
    if (output == nullptr || probe == probes.end()) continue;
    const ErrorProbe& p = probe->second;
    bool changed = false;
    if (spec.loss == LossKind::kMeanSquaredError && output->loss.empty() &&
        p.count >= kMinProbeErrors && p.kurtosis > kHuberKurtosis) {
      spec.loss = LossKind::kHuber;
      changed = true;
      t.decisions.push_back(
          {StrCat("loss HUL for '", spec.name, "' instead of MSE"),
           StrCat("scouting saw high variance in its gradients: MSE's "
                  "gradient at the output is each sample's error, and the "
                  "errors at the chosen start have kurtosis ",
                  FormatNumber(p.kurtosis), " over ", p.count,
                  " values (3 for normal errors; above ",
                  FormatNumber(kHuberKurtosis),
                  " a few outliers dominate the gradient): Huber's "
                  "gradient is bounded past delta")});
    }
    if (spec.loss == LossKind::kHuber && !output->delta && p.stddev > 0) {
      spec.params.delta = std::max(1e-6, kHuberEfficiency * p.stddev);
      changed = true;
      t.decisions.push_back(
          {StrCat("delta ", FormatNumber(spec.params.delta), " for '",
                  spec.name, "'"),
           StrCat("1.345 σ of the errors at the scouted start (σ ",
                  FormatNumber(p.stddev), " over ", p.count,
                  " values, in the units the loss sees): Huber as "
                  "efficient as MSE for normal errors to 95%, robust as MAE "
                  "beyond")});
    }
    if (spec.loss == LossKind::kFocal && !output->gamma) {
      spec.params.gamma = 2 + 2 * std::min(1.0, p.stddev / 0.3);
      changed = true;
      t.decisions.push_back(
          {StrCat("gamma ", FormatNumber(spec.params.gamma), " for '",
                  spec.name, "'"),
           StrCat("from the errors 1 − p_t at the scouted start (σ ",
                  FormatNumber(p.stddev), " over ", p.count,
                  " samples): 2, the focal loss paper's, when they are "
                  "alike, up to 4 as σ reaches 0.3 (a start that already "
                  "tells easy examples from hard ones gains from focusing "
                  "harder)")});
    }
    if (changed) {
      t.tuned.push_back({spec.name, LossAbbreviation(spec.loss),
                         spec.params.delta, spec.params.gamma});
    }
  }
  return t;
}

void ApplyTunedLosses(const std::vector<TunedLoss>& tuned,
                      std::vector<OutputSpec>& specs) {
  for (const TunedLoss& t : tuned) {
    for (OutputSpec& spec : specs) {
      if (spec.name != t.output) continue;
      if (std::optional<LossKind> loss = ParseLoss(t.loss)) spec.loss = *loss;
      spec.params.delta = t.delta;
      spec.params.gamma = t.gamma;
    }
  }
}

}  // namespace webnnm::train
