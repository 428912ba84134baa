// Reading a CSV file as a Dataset (dataset.h: LoadCsv, LoadCsvFeatures,
// IsMissingField): the label column given or chosen for the model
// (label_column.h), text columns one-hot (text_columns.h), missing values
// kept to impute or refused.
#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/data/csv.h"
#include "engine/data/dataset.h"

namespace webnnm::train {

namespace {

bool ParseNumber(const std::string& text, double& value) {
  return ParseCsvNumber(text, value);
}

}  // namespace

bool IsMissingField(std::string_view field) {
  const size_t start = field.find_first_not_of(" \t");
  if (start == std::string_view::npos) return true;
  field = field.substr(start, field.find_last_not_of(" \t") - start + 1);
  auto is = [&](std::string_view word) {
    if (field.size() != word.size()) return false;
    for (size_t i = 0; i < word.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(field[i])) != word[i]) {
        return false;
      }
    }
    return true;
  };
  return is("na") || is("n/a") || is("nan") || is("?");
}

namespace {

// A CSV file's numeric columns but one: the rows' features, the left-out
// column's texts and the column names (what LoadCsv and LoadCsvFeatures
// share). `label` empty: the last column; `required` false: a `label` the
// file lacks leaves every column a feature.
struct CsvColumns {
  std::vector<std::string> names;
  std::optional<size_t> label_column;
  std::string label_why;  // how it was chosen
  std::vector<std::string> label_warnings;
  TextEncoding text;  // the text columns' encoding
  std::vector<std::string> labels;
  std::vector<float> features;
  int64_t width = 0;
  std::vector<int> lines;  // of the data rows
};

absl::StatusOr<CsvColumns> ReadCsvColumns(const std::string& path,
                                          const CsvOptions& options,
                                          bool required) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat("cannot read ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  absl::StatusOr<CsvTable> table = ParseCsv(buffer.str(), path);
  if (!table.ok()) return table.status();
  if (table->records.empty()) {
    return absl::InvalidArgumentError(StrCat(path, ": no rows"));
  }
  const size_t columns = table->records.front().size();
  if (required && columns < 2) {
    return absl::InvalidArgumentError(
        StrCat(path,
               ": needs at least one feature column and a label "
               "column"));
  }
  CsvColumns c;
  size_t first = 0;
  if (options.header) {
    c.names = table->records.front();
    first = 1;
  } else {
    for (size_t k = 0; k < columns; ++k) c.names.push_back(StrCat("c", k));
  }
  if (!options.label.empty()) {
    auto it = std::find(c.names.begin(), c.names.end(), options.label);
    if (it != c.names.end()) {
      c.label_column = static_cast<size_t>(it - c.names.begin());
    } else if (required) {
      std::string known;
      for (const std::string& n : c.names)
        known += (known.empty() ? "" : ", ") + n;
      return LabelRefusal(StrCat(path, ": no column '", options.label,
                                 "' (columns: ", known, ")"));
    }
  } else if (required && options.choose_label) {
    const std::vector<std::vector<std::string>> rows(
        table->records.begin() + static_cast<std::ptrdiff_t>(first),
        table->records.end());
    absl::StatusOr<LabelChoice> choice =
        ChooseLabelColumn(c.names, rows, *options.choose_label);
    if (!choice.ok()) {
      return LabelRefusal(StrCat(path, ": ", choice.status().message()));
    }
    c.label_column = choice->column;
    c.label_why = choice->why;
    c.label_warnings = choice->warnings;
  } else if (required) {
    c.label_column = columns - 1;
    c.label_why = "the last column";
  }
  if (!options.label.empty()) c.label_why = "given (--label)";
  const int64_t rows = static_cast<int64_t>(table->records.size() - first);
  if (rows <= 0)
    return absl::InvalidArgumentError(StrCat(path, ": no data rows"));
  // Text columns: as the caller's encoding says (a model's), else chosen
  // from this file (text_columns.h).
  if (options.text) {
    c.text = *options.text;
    for (const TextColumn& t : c.text.columns) {
      if (std::find(c.names.begin(), c.names.end(), t.name) == c.names.end()) {
        return absl::InvalidArgumentError(
            StrCat(path, ": no column '", t.name,
                   "' (the model encodes it as a text column)"));
      }
    }
  } else {
    std::vector<bool> feature(columns, true);
    if (c.label_column) feature[*c.label_column] = false;
    const std::vector<std::vector<std::string>> data(
        table->records.begin() + static_cast<std::ptrdiff_t>(first),
        table->records.end());
    c.text = ChooseTextEncoding(c.names, data, feature);
  }
  // Each column's place: -1 a number, -2 left out, else its TextColumn.
  std::vector<int> kind(columns, -1);
  c.width = 0;
  for (size_t k = 0; k < columns; ++k) {
    if (c.label_column && k == *c.label_column) continue;
    if (c.text.Dropped(c.names[k])) {
      kind[k] = -2;
      continue;
    }
    for (size_t t = 0; t < c.text.columns.size(); ++t) {
      if (c.text.columns[t].name == c.names[k]) kind[k] = static_cast<int>(t);
    }
    c.width += kind[k] >= 0
                   ? static_cast<int64_t>(c.text.columns[kind[k]].categories.size())
                   : 1;
  }
  if (c.width < 1) {
    return absl::InvalidArgumentError(StrCat(path, ": no feature columns"));
  }
  c.features.reserve(rows * c.width);
  for (size_t r = first; r < table->records.size(); ++r) {
    const std::vector<std::string>& record = table->records[r];
    for (size_t k = 0; k < columns; ++k) {
      if (c.label_column && k == *c.label_column) continue;
      if (kind[k] == -2) continue;
      if (kind[k] >= 0) {
        // One-hot; a missing value or another category: zeros.
        const std::vector<std::string>& categories =
            c.text.columns[kind[k]].categories;
        auto at = std::lower_bound(categories.begin(), categories.end(),
                                   record[k]);
        const bool known = at != categories.end() && *at == record[k];
        for (auto it = categories.begin(); it != categories.end(); ++it) {
          c.features.push_back(known && it == at ? 1.0f : 0.0f);
        }
        continue;
      }
      double v;
      if (IsMissingField(record[k])) {
        if (!options.keep_missing) {
          return absl::InvalidArgumentError(StrCat(
              path, ":", table->lines[r], ": column '", c.names[k],
              "' is missing a value ('", record[k],
              "'); train with --impute auto, mean or median to fill missing "
              "values"));
        }
        c.features.push_back(std::numeric_limits<float>::quiet_NaN());
        continue;
      }
      if (!ParseNumber(record[k], v)) {
        return absl::InvalidArgumentError(
            StrCat(path, ":", table->lines[r], ": column '", c.names[k],
                   "' holds '", record[k], "', not a number"));
      }
      c.features.push_back(static_cast<float>(v));
    }
    // A blank label is missing (NA may be a class: North America, sodium).
    if (required && c.label_column &&
        record[*c.label_column].find_first_not_of(" \t") == std::string::npos) {
      return absl::InvalidArgumentError(
          StrCat(path, ":", table->lines[r], ": the label column '",
                 c.names[*c.label_column], "' is missing a value"));
    }
    if (c.label_column) c.labels.push_back(record[*c.label_column]);
    c.lines.push_back(table->lines[r]);
  }
  return c;
}

}  // namespace

absl::StatusOr<Dataset> LoadCsvFeatures(const std::string& path,
                                        const CsvOptions& options) {
  ASSIGN_OR_RETURN(CsvColumns c,
                   ReadCsvColumns(path, options, /*required=*/false));
  Dataset d =
      Dataset::Make(path, c.width, std::move(c.features), 1,
                    std::vector<float>(c.lines.size(), 0.0f), false, {});
  d.SetTextEncoding(std::move(c.text));
  return d;
}

absl::StatusOr<Dataset> LoadCsv(const std::string& path,
                                const CsvOptions& options,
                                bool classification) {
  ASSIGN_OR_RETURN(CsvColumns c,
                   ReadCsvColumns(path, options, /*required=*/true));
  const std::vector<std::string>& labels = c.labels;
  const std::vector<std::string>& names = c.names;
  const size_t label_column = *c.label_column;
  std::vector<float> targets;
  std::vector<std::string> classes;
  if (classification) {
    // Classes in sorted label order: numeric when every label is a number.
    std::vector<std::string> unique = labels;
    std::sort(unique.begin(), unique.end());
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    bool numeric = true;
    for (const std::string& l : unique) {
      double v;
      numeric &= ParseNumber(l, v);
    }
    if (numeric) {
      std::stable_sort(unique.begin(), unique.end(),
                       [](const std::string& a, const std::string& b) {
                         double x = 0, y = 0;
                         ParseNumber(a, x);
                         ParseNumber(b, y);
                         return x < y;
                       });
    }
    classes = unique;
    std::map<std::string, int64_t> index;
    for (size_t i = 0; i < classes.size(); ++i) index[classes[i]] = i;
    for (const std::string& l : labels) {
      targets.push_back(static_cast<float>(index[l]));
    }
  } else {
    for (size_t r = 0; r < labels.size(); ++r) {
      double v;
      if (!ParseNumber(labels[r], v)) {
        return absl::InvalidArgumentError(StrCat(
            path, ":", c.lines[r], ": the label '", labels[r], "' of column '",
            names[label_column],
            "' is not a number, and the model's loss is a regression loss"));
      }
      targets.push_back(static_cast<float>(v));
    }
  }
  Dataset d =
      Dataset::Make(path, c.width, std::move(c.features), 1, std::move(targets),
                    classification, std::move(classes));
  d.SetLabelColumn(names[label_column]);
  d.SetLabelWhy(c.label_why, c.label_warnings);
  d.SetTextEncoding(std::move(c.text));
  return d;
}

}  // namespace webnnm::train
