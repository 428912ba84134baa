#include "engine/base/suggest.h"

#include <algorithm>
#include <cctype>

#include "engine/base/strings.h"

namespace webnnm {
namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string ClosestMatch(std::string_view name,
                         const std::vector<std::string>& candidates) {
  if (name.size() > 64) return "";
  size_t limit = std::max<size_t>(1, name.size() / 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    size_t d = EditDistance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view name,
                       const std::vector<std::string>& candidates) {
  std::string match = ClosestMatch(name, candidates);
  if (match.empty() || match == name) return "";
  return StrCat("; did you mean '", match, "'?");
}

}  // namespace webnnm
