#include "engine/data/text_columns.h"

#include <algorithm>
#include <map>

#include "engine/base/strings.h"
#include "engine/data/csv.h"
#include "engine/data/dataset.h"

namespace webnnm::train {

const TextColumn* TextEncoding::Find(const std::string& name) const {
  for (const TextColumn& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

bool TextEncoding::Dropped(const std::string& name) const {
  return std::find(dropped.begin(), dropped.end(), name) != dropped.end();
}

TextEncoding ChooseTextEncoding(
    const std::vector<std::string>& names,
    const std::vector<std::vector<std::string>>& rows,
    const std::vector<bool>& feature) {
  TextEncoding encoding;
  for (size_t k = 0; k < names.size(); ++k) {
    if (k >= feature.size() || !feature[k]) continue;
    std::map<std::string, int64_t> counts;
    int64_t present = 0, words = 0;
    for (const std::vector<std::string>& row : rows) {
      const std::string& v = row[k];
      if (IsMissingField(v)) continue;
      ++present;
      double number;
      if (!ParseCsvNumber(v, number)) ++words;
      ++counts[v];
    }
    // Mostly numbers: a number column with a few bad values (reading it
    // says where).
    if (2 * words < present || words == 0) continue;
    if (counts.size() > kMostCategories &&
        static_cast<int64_t>(counts.size()) * 2 > present) {
      encoding.dropped.push_back(names[k]);
      continue;
    }
    std::vector<std::pair<std::string, int64_t>> by_count(counts.begin(),
                                                          counts.end());
    std::stable_sort(by_count.begin(), by_count.end(),
                     [](const auto& a, const auto& b) {
                       return a.second > b.second;
                     });
    if (by_count.size() > kMostCategories) by_count.resize(kMostCategories);
    TextColumn column{.name = names[k]};
    for (const auto& [value, count] : by_count) {
      column.categories.push_back(value);
    }
    std::sort(column.categories.begin(), column.categories.end());
    encoding.columns.push_back(std::move(column));
  }
  return encoding;
}

std::string DescribeTextEncoding(const TextEncoding& encoding) {
  std::string out;
  for (size_t i = 0; i < encoding.columns.size(); ++i) {
    const TextColumn& c = encoding.columns[i];
    std::string listed;
    for (size_t j = 0; j < c.categories.size() && j < 4; ++j) {
      listed += StrCat(j ? ", " : "", c.categories[j]);
    }
    if (c.categories.size() > 4) listed += ", …";
    out += StrCat(i ? ", " : "", "'", c.name, "' (", c.categories.size(),
                  i == 0 ? " categories: " : ": ", listed, ")");
  }
  if (!encoding.dropped.empty()) {
    std::string dropped;
    for (const std::string& d : encoding.dropped) {
      dropped += StrCat(dropped.empty() ? "" : ", ", "'", d, "'");
    }
    out += StrCat(out.empty() ? "" : "; ", "left out ", dropped,
                  " (a different text in most rows: an identifier or free "
                  "text, not a feature)");
  }
  return out;
}

}  // namespace webnnm::train
