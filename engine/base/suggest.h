// "Did you mean ...?" suggestions for misspelled names.
#ifndef WEBNNM_ENGINE_BASE_SUGGEST_H_
#define WEBNNM_ENGINE_BASE_SUGGEST_H_

#include <string>
#include <string_view>
#include <vector>

namespace webnnm {

// The candidate closest to `name` by case-insensitive edit distance, when it
// is close enough to be a likely typo (distance <= max(1, len/3)); else "".
std::string ClosestMatch(std::string_view name,
                         const std::vector<std::string>& candidates);

// "; did you mean 'x'?" or "" when there is no close candidate.
std::string DidYouMean(std::string_view name,
                       const std::vector<std::string>& candidates);

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_BASE_SUGGEST_H_
