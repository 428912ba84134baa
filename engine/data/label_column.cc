#include "engine/data/label_column.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "absl/strings/cord.h"
#include "engine/base/strings.h"
#include "engine/data/csv.h"
#include "engine/data/dataset.h"

namespace webnnm::train {
namespace {

// Names that say "the label" in any field (compared in lower case).
bool NamedLikeALabel(const std::string& name) {
  std::string lower;
  for (char c : name) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (const char* word : {"label", "labels", "target", "class", "classes",
                           "y", "outcome", "response", "category"}) {
    if (lower == word) return true;
  }
  return false;
}

// One column's values as a label would be read.
struct ColumnFacts {
  size_t distinct = 0;  // capped at kCountedDistinct + 1
  bool numeric = true;  // every value a number
  bool missing = false;
};

constexpr size_t kCountedDistinct = 1000;

ColumnFacts Facts(const std::vector<std::vector<std::string>>& rows,
                  size_t k) {
  ColumnFacts f;
  std::set<std::string> seen;
  for (const std::vector<std::string>& row : rows) {
    const std::string& v = row[k];
    if (IsMissingField(v)) {
      f.missing = true;
      continue;
    }
    double number;
    if (f.numeric && !ParseCsvNumber(v, number)) f.numeric = false;
    if (seen.size() <= kCountedDistinct) seen.insert(v);
  }
  f.distinct = seen.size();
  return f;
}

std::string Quoted(const std::vector<std::string>& names,
                   const std::vector<size_t>& columns) {
  std::string out;
  for (size_t k : columns) {
    out += StrCat(out.empty() ? "" : ", ", "'", names[k], "'");
  }
  return out;
}

std::string DistinctText(const ColumnFacts& f) {
  if (f.distinct > kCountedDistinct) {
    return StrCat("over ", kCountedDistinct, " values");
  }
  return StrCat(f.distinct, f.distinct == 1 ? " value" : " values");
}

constexpr char kRefusalPayload[] = "webnnm.dev/label-refusal";

}  // namespace

absl::Status LabelRefusal(std::string message) {
  absl::Status s = absl::InvalidArgumentError(std::move(message));
  s.SetPayload(kRefusalPayload, absl::Cord("1"));
  return s;
}

bool IsLabelRefusal(const absl::Status& status) {
  return status.GetPayload(kRefusalPayload).has_value();
}

std::string DescribeClasses(const std::vector<std::string>& classes) {
  std::string listed;
  for (size_t i = 0; i < classes.size() && i < kShownClasses; ++i) {
    listed += StrCat(i ? ", " : "", classes[i]);
  }
  if (classes.size() > kShownClasses) listed += ", …";
  return StrCat(classes.size(), classes.size() == 1 ? " class: " : " classes: ",
                listed);
}

absl::StatusOr<LabelChoice> ChooseLabelColumn(
    const std::vector<std::string>& names,
    const std::vector<std::vector<std::string>>& rows, const LabelNeed& need) {
  const size_t columns = names.size();
  if (columns < 2) {
    return absl::InvalidArgumentError(
        "needs at least one feature column and a label column");
  }
  std::vector<ColumnFacts> facts;
  for (size_t k = 0; k < columns; ++k) facts.push_back(Facts(rows, k));
  // Full fits (C distinct values, or numeric) and, for classification,
  // partial ones (2 to C - 1 distinct values).
  auto full = [&](size_t k) {
    const ColumnFacts& f = facts[k];
    if (f.missing) return false;
    return need.classification ? f.distinct == static_cast<size_t>(need.classes)
                               : f.numeric && f.distinct > 1;
  };
  auto partial = [&](size_t k) {
    const ColumnFacts& f = facts[k];
    return need.classification && !f.missing && f.distinct >= 2 &&
           f.distinct < static_cast<size_t>(need.classes);
  };
  std::vector<size_t> fits, named;
  for (size_t k = 0; k < columns; ++k) {
    if (full(k)) fits.push_back(k);
    if (NamedLikeALabel(names[k]) && (full(k) || partial(k))) {
      named.push_back(k);
    }
  }
  const std::string what =
      need.classification
          ? StrCat(need.classes, " distinct values (the ", need.classes,
                   " classes of '", need.output, "')")
          : StrCat("numbers (the values '", need.output, "' predicts)");
  const size_t last = columns - 1;
  LabelChoice choice;
  auto fewer_warning = [&](size_t k) {
    if (!partial(k)) return;
    choice.warnings.push_back(StrCat(
        "the label column '", names[k], "' holds ", facts[k].distinct,
        " classes but the output '", need.output, "' tells ", need.classes,
        " apart: the other units are never the right answer; give the "
        "output ",
        facts[k].distinct, " units if there are no more classes"));
  };
  if (named.size() == 1) {
    choice.column = named[0];
    choice.why = StrCat("its name says it is the label; it holds ", what);
    fewer_warning(named[0]);
    return choice;
  }
  if (full(last)) {
    choice.column = last;
    choice.why = StrCat("the last column, which holds ", what);
    if (need.classification && fits.size() > 1 && fits.size() <= 6) {
      std::vector<size_t> others(fits.begin(), fits.end() - 1);
      choice.why += StrCat("; ", Quoted(names, others),
                           others.size() == 1 ? " holds" : " hold",
                           " as many: give --label to choose another");
    } else {
      choice.why += "; give --label to choose another";
    }
    return choice;
  }
  if (fits.size() == 1) {
    choice.column = fits[0];
    choice.why = StrCat(
        "the only column that holds ", what, "; the last column '",
        names[last], "' holds ",
        need.classification ? DistinctText(facts[last])
        : facts[last].missing ? "missing values"
                              : "text, not numbers");
    return choice;
  }
  if (fits.empty() && partial(last)) {
    choice.column = last;
    choice.why = StrCat("the last column; no column holds ", what);
    fewer_warning(last);
    return choice;
  }
  if (fits.size() > 1) {
    return LabelRefusal(StrCat(
        "which column is the label? ", Quoted(names, fits), " all hold ", what,
        ", and the last column '", names[last],
        "' does not: give --label with one of them"));
  }
  // The last column holds a label's kind of values (text, or a few whole
  // numbers) but not the output's number of classes: say that plainly.
  const ColumnFacts& l = facts[last];
  if (need.classification && !l.missing && l.distinct > 1 &&
      (!l.numeric || l.distinct <= 20)) {
    return LabelRefusal(StrCat(
        "the label column '", names[last], "' (the last) holds ", l.distinct,
        " classes but the output '", need.output, "' tells ", need.classes,
        " apart: give the output ", l.distinct, " units, or name the label "
        "column with --label"));
  }
  std::string seen;
  for (size_t k = 0; k < columns && k < 12; ++k) {
    seen += StrCat(k ? ", " : "", "'", names[k], "' ",
                   facts[k].missing ? "has missing values"
                   : facts[k].numeric
                       ? DistinctText(facts[k])
                       : StrCat(DistinctText(facts[k]), " (text)"));
  }
  if (columns > 12) seen += ", …";
  return LabelRefusal(StrCat(
      "no column can be the label: the output '", need.output, "' needs ",
      what, ", and the columns hold ", seen,
      need.classification
          ? "; give --label COLUMN, or make the output as many units as the "
            "label has classes"
          : "; give --label COLUMN"));
}

}  // namespace webnnm::train
