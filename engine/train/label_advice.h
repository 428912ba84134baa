// The expert system's look at the labels: skewed classes, and a sample of
// every regression output's targets against its activation and loss.
//
// ClassBalanceWarnings counts each classification output's classes over
// the training subset and, when the largest class has at least
// kSkewedRatio times the samples of the smallest (or a class has none),
// suggests focal loss, naming the counts. Outputs already trained with
// focal loss, regression outputs and outputs of one class are left out.
#ifndef WEBNNM_ENGINE_TRAIN_LABEL_ADVICE_H_
#define WEBNNM_ENGINE_TRAIN_LABEL_ADVICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engine/train/dataset.h"
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

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_LABEL_ADVICE_H_
