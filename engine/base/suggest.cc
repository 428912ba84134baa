#include "engine/base/suggest.h"

#include <algorithm>
#include <cctype>

#include "engine/base/strings.h"

namespace webnnm {
namespace {

bool SameLetter(char a, char b) {
  return std::tolower(static_cast<unsigned char>(a)) ==
         std::tolower(static_cast<unsigned char>(b));
}

// Edit distance where swapping two neighbouring letters counts as one edit
// (optimal string alignment).
size_t EditDistance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = SameLetter(a[i - 1], b[j - 1]) ? 0 : 1;
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && SameLetter(a[i - 1], b[j - 2]) &&
          SameLetter(a[i - 2], b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
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
