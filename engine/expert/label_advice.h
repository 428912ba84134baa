// The expert system's look at the labels: skewed classes, and a sample of
// every regression output's targets against its activation and loss.
//
// ClassBalanceWarnings counts each classification output's classes over
// the training subset and, when the largest class has at least
// kSkewedRatio times the samples of the smallest (or a class has none),
// suggests focal loss, naming the counts. Outputs already trained with
// focal loss, regression outputs and outputs of one class are left out.
#ifndef WEBNNM_ENGINE_EXPERT_LABEL_ADVICE_H_
#define WEBNNM_ENGINE_EXPERT_LABEL_ADVICE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/data/dataset.h"
#include "engine/train/graphs.h"

namespace webnnm::train {

inline constexpr double kSkewedRatio = 4.0;

// Per class of `targets`, its samples among `samples` (one-hot rows, class
// indices, or one unit's 0/1); a sequenced output's counts are of steps,
// each sample's first lengths[sample] (`lengths` empty: all of them).
std::vector<int64_t> ClassCounts(const Targets& targets,
                                 const std::vector<int64_t>& samples,
                                 const std::vector<int64_t>& lengths = {});

// `targets_of[k]`: the index in data.targets() of specs[k]'s targets.
std::vector<std::string> ClassBalanceWarnings(
    const Dataset& data, const std::vector<OutputSpec>& specs,
    const std::vector<size_t>& targets_of);

// Of the first kLabelSample training samples of each regression output
// (in the targets' own units, before standardization): targets outside
// (0, 1) for an output that ends in sigmoid or softmax, which it cannot
// reach; and one-unit targets that look like class ids (whole numbers from
// 0, 2..kMostClassIds distinct values) under a regression loss.
inline constexpr size_t kLabelSample = 256;
inline constexpr size_t kMostClassIds = 20;
std::vector<std::string> LabelSampleWarnings(
    const dag::Dag& dag, const Dataset& data,
    const std::vector<OutputSpec>& specs,
    const std::vector<size_t>& targets_of);

// What an output's targets are, from the loader and a sample of the
// training subset (its first kLabelSample samples; all when the data is
// not split yet), for the loss decision's reason: "class ids of 3
// classes", "one-hot rows of 3 classes, read as class ids", "probability
// rows over 3 classes", "probabilities of the second class", or, for
// regression, "values in [25, 346] (a sample of 256)" — in the targets'
// own units.
std::string DescribeTargets(const Dataset& data, size_t targets);

// The loss the labels ask for where the activation alone says CCE: KLD
// (distribution matching) for probability rows of several classes;
// nullopt otherwise.
std::optional<LossKind> LossForLabels(const Targets& targets, LossKind chosen);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_EXPERT_LABEL_ADVICE_H_
