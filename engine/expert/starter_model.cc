#include "engine/expert/starter_model.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_join.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/data/csv.h"
#include "engine/data/dataset.h"
#include "engine/data/image_folder.h"
#include "engine/data/label_column.h"
#include "engine/data/npz.h"
#include "engine/data/text_columns.h"
#include "engine/expert/starter_internal.h"

namespace webnnm::train {
namespace internal {

namespace fs = std::filesystem;

// The training rows of the default split (70,15,15).
int64_t TrainingRows(int64_t rows) {
  return std::max<int64_t>(1, rows * 70 / 100);
}

// A name the language takes: letters, digits, '-' and '_', from a letter.
std::string ModelName(const std::string& wanted, const std::string& path) {
  std::string from = wanted;
  if (from.empty()) from = fs::path(path).stem().string();
  std::string name;
  for (char c : from) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                    c == '-';
    name += ok ? c : '-';
  }
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) {
    name = "model-" + name;
  }
  return name;
}

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

// Comment lines of at most 78 columns, each starting "# ".
std::string Comment(const std::string& text) {
  std::string out, line;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > 76) {
      out += "# " + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += "# " + line + "\n";
  return out;
}

// A dense stack: the hidden layers, then the output's layer.
std::string DenseLayers(const StarterShape& shape, int64_t units,
                        bool classes, const std::string& indent) {
  std::string layers;
  if (shape.layers > 0) {
    std::string shapes;
    for (int i = 0; i < shape.layers; ++i) {
      shapes += StrCat(i ? ", " : "", "[", shape.width, "]");
    }
    layers += StrCat(indent, "dense(shapes=[", shapes,
                     "], activation=relu),\n");
  }
  layers += StrCat(indent, "dense(shape=[", units, "], activation=",
                   classes ? "softmax" : "identity", ");\n");
  return layers;
}

// ---- CSV ----

struct CsvFacts {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> rows;
};

absl::StatusOr<CsvFacts> ReadCsvFacts(const std::string& path,
                                      bool no_header) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat("cannot read ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  ASSIGN_OR_RETURN(CsvTable table, ParseCsv(buffer.str(), path));
  if (table.records.size() < 2) {
    return absl::InvalidArgumentError(StrCat(path, ": no data rows"));
  }
  CsvFacts f;
  size_t first = 0;
  if (no_header) {
    for (size_t k = 0; k < table.records[0].size(); ++k) {
      f.names.push_back(StrCat("c", k));
    }
  } else {
    f.names = table.records[0];
    first = 1;
  }
  if (f.names.size() < 2) {
    return absl::InvalidArgumentError(
        StrCat(path, ": needs at least one feature column and a label column"));
  }
  f.rows.assign(table.records.begin() + static_cast<std::ptrdiff_t>(first),
                table.records.end());
  return f;
}

// The label column: given, else the one named like a label, else the last.
absl::StatusOr<size_t> CsvLabel(const CsvFacts& f, const std::string& given,
                                const std::string& path, std::string& why) {
  if (!given.empty()) {
    auto it = std::find(f.names.begin(), f.names.end(), given);
    if (it == f.names.end()) {
      std::string known;
      for (const std::string& n : f.names) {
        known += (known.empty() ? "" : ", ") + n;
      }
      return absl::InvalidArgumentError(StrCat(
          path, ": no column '", given, "' (columns: ", known, ")"));
    }
    why = "given with --label";
    return static_cast<size_t>(it - f.names.begin());
  }
  std::vector<size_t> named;
  for (size_t k = 0; k < f.names.size(); ++k) {
    if (NamedLikeALabel(f.names[k])) named.push_back(k);
  }
  if (named.size() == 1) {
    why = "its name says it is the label";
    return named[0];
  }
  why = "the last column (give --label COLUMN for another)";
  return f.names.size() - 1;
}

absl::StatusOr<StarterModel> CsvStarter(const std::string& path,
                                        const StarterOptions& options) {
  ASSIGN_OR_RETURN(CsvFacts f, ReadCsvFacts(path, options.no_header));
  std::string label_why;
  ASSIGN_OR_RETURN(size_t label, CsvLabel(f, options.label, path, label_why));
  // The label's values: text or few whole numbers are classes.
  std::set<std::string> values;
  bool numeric = true, whole = true;
  for (const std::vector<std::string>& row : f.rows) {
    const std::string& v = row[label];
    if (v.find_first_not_of(" \t") == std::string::npos) continue;
    values.insert(v);
    double x;
    if (!ParseCsvNumber(v, x)) {
      numeric = false;
    } else if (x != std::floor(x)) {
      whole = false;
    }
  }
  if (values.size() < 2) {
    return absl::InvalidArgumentError(
        StrCat(path, ": the label column '", f.names[label], "' holds ",
               values.size(), " value", values.size() == 1 ? "" : "s",
               "; give --label COLUMN"));
  }
  const bool classes = !numeric || (whole && values.size() <= 20);
  std::vector<bool> feature(f.names.size(), true);
  feature[label] = false;
  const TextEncoding text = ChooseTextEncoding(f.names, f.rows, feature);
  int64_t features = 0, text_features = 0;
  for (size_t k = 0; k < f.names.size(); ++k) {
    if (!feature[k] || text.Dropped(f.names[k])) continue;
    const TextColumn* t = text.Find(f.names[k]);
    const int64_t n = t ? static_cast<int64_t>(t->categories.size()) : 1;
    features += n;
    if (t) text_features += n;
  }
  if (features == 0) {
    return absl::InvalidArgumentError(StrCat(path, ": no feature columns"));
  }
  const int64_t rows = static_cast<int64_t>(f.rows.size());
  const int64_t units = classes ? static_cast<int64_t>(values.size()) : 1;
  StarterShape shape = StarterWidth(TrainingRows(rows), features, units);
  if (options.shape) {
    shape = {.width = options.shape->first, .layers = options.shape->second};
  }
  const std::string shown =
      options.shown_as.empty() ? fs::path(path).filename().string()
                               : options.shown_as;
  StarterModel m;
  m.label = f.names[label];
  std::vector<std::string> class_list(values.begin(), values.end());
  if (classes && numeric) {
    std::sort(class_list.begin(), class_list.end(),
              [](const std::string& a, const std::string& b) {
                double x = 0, y = 0;
                ParseCsvNumber(a, x);
                ParseCsvNumber(b, y);
                return x < y;
              });
  }
  const std::string label_text =
      classes ? StrCat("'", m.label, "' (", label_why, "), ",
                       DescribeClasses(class_list))
              : StrCat("'", m.label, "' (", label_why, "), numbers to predict");
  m.notes.push_back(StrCat("label ", label_text));
  std::string features_text = StrCat(features, " features from ",
                                     f.names.size() - 1, " columns");
  if (!text.columns.empty()) {
    features_text += StrCat(" (", text.columns.size(), " text column",
                            text.columns.size() == 1 ? "" : "s", " one-hot: ",
                            text_features, " features)");
  }
  if (!text.dropped.empty()) {
    features_text += StrCat("; ", text.dropped.size(),
                            " text column(s) left out as identifiers");
  }
  m.notes.push_back(features_text);
  const std::string hidden =
      StrCat(shape.layers, " hidden layer", shape.layers == 1 ? "" : "s",
             " of ", shape.width, " relu units for about ", TrainingRows(rows),
             " training rows");
  m.notes.push_back(hidden);
  const std::string name = ModelName(options.name, path);
  std::string t;
  t += Comment(StrCat("A starter model for ", shown, ", written by webnnmctl "
                      "init: change it as you like. ", rows, " rows; label ",
                      label_text, "; ", features_text, "."));
  t += StrCat("model:name ", name, ";\n");
  t += Comment(
      "Each sample's features, in the file's column order (the expert system "
      "standardizes them when training).");
  t += StrCat("model:input shape=[", features, "];\n");
  t += Comment(classes ? "One unit a class: softmax makes them probabilities."
                       : "The value to predict.");
  t += StrCat("model:output shape=[", units, "];\n");
  t += Comment(StrCat(
      "dense is a template of the prelude (matmul, add a bias, an "
      "activation): ",
      hidden, ", then the output."));
  t += "model:layers\n";
  t += DenseLayers(shape, units, classes, "    ");
  m.text = std::move(t);
  return m;
}

// ---- Images ----

// Two 3×3 convolutions with 2×2 pooling (one when the images are small),
// then a dense layer: the layers' lines, and their notes.
std::string ConvLayers(const ImageSize& in, int64_t units,
                       const std::string& indent, bool output,
                       std::vector<std::string>& notes) {
  std::string layers;
  int64_t h = in.height, w = in.width, channels = in.channels;
  int convs = 0;
  for (int64_t out : {16, 32}) {
    if (h < 6 || w < 6) break;
    h -= 2;
    w -= 2;
    layers += StrCat(indent, "conv(shape={channels: ", out, ", height: ", h,
                     ", width: ", w, "}, activation=relu),\n");
    layers += StrCat(indent, "pool(),\n");
    h /= 2;
    w /= 2;
    channels = out;
    ++convs;
  }
  const int64_t flat = channels * h * w;
  layers += StrCat(indent, "reshape(newShape=[", flat, "]),\n");
  layers += StrCat(indent, "dense(shape=[64], activation=relu)");
  if (output) {
    layers += StrCat(",\n", indent, "dense(shape=[", units,
                     "], activation=softmax);\n");
  } else {
    layers += ";\n";
  }
  notes.push_back(StrCat(convs, " convolution", convs == 1 ? "" : "s",
                         " of 3x3 with 2x2 pooling, then 64 dense units"));
  return layers;
}

absl::StatusOr<StarterModel> ImageStarter(const std::string& path,
                                          const ImageSize& size,
                                          const std::vector<std::string>& classes,
                                          int64_t images,
                                          const StarterOptions& options) {
  StarterModel m;
  const std::string shown =
      options.shown_as.empty() ? fs::path(path).filename().string()
                               : options.shown_as;
  const int64_t units = static_cast<int64_t>(classes.size());
  m.notes.push_back(StrCat(images, " images of ", size.width, "x", size.height,
                           size.channels == 1 ? " gray" : " colour",
                           " pixels; ", DescribeClasses(classes)));
  std::string t;
  t += Comment(StrCat("A starter model for ", shown, ", written by webnnmctl "
                      "init: change it as you like. ",
                      m.notes.back(), "."));
  t += StrCat("model:name ", ModelName(options.name, path), ";\n");
  t += Comment("Images, channels first; their pixels scaled to [0, 1].");
  t += StrCat("model:input shape={channels: ", size.channels,
              ", height: ", size.height, ", width: ", size.width, "};\n");
  t += Comment("One unit a class: softmax makes them probabilities.");
  t += StrCat("model:output shape=[", units, "];\n");
  std::string layers = ConvLayers(size, units, "    ", true, m.notes);
  t += Comment(StrCat("conv, pool and dense are templates of the prelude: ",
                      m.notes.back(), "."));
  t += "model:layers\n" + layers;
  m.text = std::move(t);
  return m;
}

}  // namespace internal

using internal::CsvStarter;
using internal::ImageStarter;
using internal::NpzStarter;
namespace fs = std::filesystem;

StarterShape StarterWidth(int64_t training_rows, int64_t features,
                          int64_t outputs) {
  (void)features;
  (void)outputs;
  // One wide hidden layer for up to kDeepRows training rows (with the
  // dense recipe's decay it beat two narrower ones there), two above.
  StarterShape s;
  s.width = 256;
  s.layers = training_rows < kDeepRows ? 1 : 2;
  return s;
}

absl::StatusOr<StarterModel> WriteStarterModel(const std::string& path,
                                               const StarterOptions& options) {
  std::error_code error;
  if (!fs::exists(path, error)) {
    return absl::NotFoundError(StrCat("cannot read ", path));
  }
  if (path.ends_with(".npz")) return NpzStarter(path, options);
  if (IsImageFolder(path) || IsImageArchive(path)) {
    ASSIGN_OR_RETURN(ImageFacts facts, ProbeImages(path));
    return ImageStarter(
        path,
        {.channels = facts.channels, .height = facts.height,
         .width = facts.width},
        facts.classes, facts.images, options);
  }
  if (fs::is_directory(path, error)) {
    ASSIGN_OR_RETURN(Dataset d, LoadIdx(path));
    const int64_t side =
        static_cast<int64_t>(std::lround(std::sqrt(d.width())));
    if (side * side != d.width()) {
      return absl::InvalidArgumentError(
          StrCat(path, ": IDX images of ", d.width(),
                 " values are not square; write the model yourself"));
    }
    return ImageStarter(path, {.channels = 1, .height = side, .width = side},
                        d.classes(), d.count(), options);
  }
  return CsvStarter(path, options);
}

}  // namespace webnnm::train
