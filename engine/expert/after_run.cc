// The expert system's advice after a run (expert.h): more epochs would
// help, or the run overfitted.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/strings.h"
#include "engine/expert/expert.h"
#include "engine/expert/format.h"

namespace webnnm::train {

std::optional<std::string> AdviseMoreEpochs(int best_epoch, int epochs_run,
                                            int epochs, bool validated) {
  if (!validated || epochs < 2 || epochs_run < epochs ||
      best_epoch != epochs_run) {
    return std::nullopt;
  }
  return StrCat("the validation loss was still falling at the last epoch (",
                epochs_run,
                " is the best): more epochs would likely train further");
}

std::optional<std::string> AdviseOverfitting(
    const std::vector<EpochReport>& history) {
  if (history.size() < 4) return std::nullopt;
  size_t best = 0;
  for (size_t i = 0; i < history.size(); ++i) {
    if (!history[i].validation_loss) return std::nullopt;
    if (*history[i].validation_loss < *history[best].validation_loss) best = i;
  }
  const EpochReport& at = history[best];
  const EpochReport& last = history.back();
  const size_t since = history.size() - 1 - best;
  if (4 * since < history.size()) return std::nullopt;
  const double low = *at.validation_loss, now = *last.validation_loss;
  // Relative to the values' size: losses may be negative (learned
  // uncertainty weights).
  const double rise = now - low, fall = at.train_loss - last.train_loss;
  if (!(rise >= (kOverfitRise - 1) * std::fabs(low) && rise > 0) ||
      !(fall >= (1 - kOverfitFall) * std::fabs(at.train_loss) && fall > 0)) {
    return std::nullopt;
  }
  return StrCat(
      "overfitting: the validation loss rose from ", Fixed(low), " at epoch ",
      at.epoch, " to ", Fixed(now), " at epoch ", last.epoch,
      " while the training loss fell from ", Fixed(at.train_loss), " to ",
      Fixed(last.train_loss),
      ": the model learns the training rows rather than the task. Epoch ",
      at.epoch,
      "'s parameters are the ones kept and tested. To generalize better: "
      "regularize (--weight-decay, or dropout layers), use a smaller model or "
      "a lower --lr, or train on more data");
}

}  // namespace webnnm::train
