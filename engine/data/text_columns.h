// A CSV file's text columns as features: each becomes one-hot features, one
// a category, in its place among the columns — a newcomer's CSV (sex,
// embarked, "yes"/"no") trains without preparing it first.
//
// A feature column is text when at least half of its present values are
// not numbers (a column of numbers with a few words in it is a number
// column with bad values, which reading it refuses naming the first).
// Its categories are its most frequent values (at most kMostCategories;
// ties by name), in sorted order; a value that is not one of them, or
// missing, gives zeros. A text column holding a different value in most
// rows (more than kMostCategories values and more than half the rows: an
// identifier or free text, such as a name) is left out, not encoded.
//
// The encoding chosen for training (ChooseTextEncoding) is kept with the
// model (snapshots), so that testing, prediction and a resumed run encode
// their files the same way (CsvOptions::text).
//
// Thread-safety: pure functions.
#ifndef WEBNNM_ENGINE_DATA_TEXT_COLUMNS_H_
#define WEBNNM_ENGINE_DATA_TEXT_COLUMNS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace webnnm::train {

inline constexpr size_t kMostCategories = 32;

struct TextColumn {
  std::string name;                     // the CSV column
  std::vector<std::string> categories;  // sorted
};

struct TextEncoding {
  std::vector<TextColumn> columns;   // encoded, in file order
  std::vector<std::string> dropped;  // text columns left out
  bool empty() const { return columns.empty() && dropped.empty(); }
  const TextColumn* Find(const std::string& name) const;
  bool Dropped(const std::string& name) const;
  bool operator==(const TextEncoding&) const = default;
};
inline bool operator==(const TextColumn& a, const TextColumn& b) {
  return a.name == b.name && a.categories == b.categories;
}

// The encoding of the text columns among `names` whose `feature[k]` is
// true, from the data rows (each names.size() fields).
TextEncoding ChooseTextEncoding(
    const std::vector<std::string>& names,
    const std::vector<std::vector<std::string>>& rows,
    const std::vector<bool>& feature);

// The decision's words: "sex (2 categories: female, male), embarked (3: C,
// Q, S)"; and for the dropped ones.
std::string DescribeTextEncoding(const TextEncoding& encoding);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_DATA_TEXT_COLUMNS_H_
