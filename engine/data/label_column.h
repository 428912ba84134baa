// Which CSV column holds the labels, when the user named none: a column
// that cannot be the model's target is never used silently.
//
// What the model's output needs (LabelNeed): a classification output of C
// classes (C units under softmax, 2 for one sigmoid unit) needs a column of
// C distinct values — or fewer, with a warning (some classes then never
// appear); a regression output a numeric column. A column with a missing
// value is no candidate (a label is never missing).
//
// The choice (ChooseLabelColumn), in order:
//   1. a column named like a label (label, target, class, y, outcome,
//      response, category; any case), when exactly one such column fits;
//   2. the last column, when it fits (fully: C distinct values, or
//      numeric);
//   3. the only column that fits fully;
//   4. classification: the last column with fewer than C values, with a
//      warning, when no column has C;
// otherwise InvalidArgument naming the candidates (several fit) or saying
// that none does (with each column's distinct values). The result says
// why in plain words, and what the labels are (the class list, shortened;
// the range of values), for the decision every run reports.
//
// Thread-safety: pure functions.
#ifndef WEBNNM_ENGINE_DATA_LABEL_COLUMN_H_
#define WEBNNM_ENGINE_DATA_LABEL_COLUMN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace webnnm::train {

// What the model's one output asks of its label column.
struct LabelNeed {
  bool classification = true;
  int64_t classes = 0;  // classification: the classes the output tells apart
  std::string output;   // the output block's name (for messages)
};

struct LabelChoice {
  size_t column = 0;
  std::string why;  // "the last column", "named like a label", ...
  std::vector<std::string> warnings;
};

// `names`: the columns; `rows`: the data rows (each of names.size() fields).
absl::StatusOr<LabelChoice> ChooseLabelColumn(
    const std::vector<std::string>& names,
    const std::vector<std::vector<std::string>>& rows, const LabelNeed& need);

// A refusal of the label column (none named fits, several do, or the one
// named is not there): a usage error — InvalidArgument, which stays so
// through the layers that reword data errors (IsLabelRefusal), so that the
// command line exits 2 and the daemon answers INVALID_ARGUMENT.
absl::Status LabelRefusal(std::string message);
bool IsLabelRefusal(const absl::Status& status);

// The decision's text for the label column `name` (the classes, or the
// range of the values): "label column 'species' (the last column)" and
// "3 classes: setosa, versicolor, virginica"; at most kShownClasses
// classes are listed.
inline constexpr size_t kShownClasses = 8;
std::string DescribeClasses(const std::vector<std::string>& classes);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_DATA_LABEL_COLUMN_H_
