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

namespace webnnm::train {
namespace {

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

struct ImageSize {
  int64_t channels = 1, height = 0, width = 0;
};

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

// ---- NumPy ----

struct NpzInput {
  std::string name;
  const NpyArray* array = nullptr;
  bool ids = false;        // integer token ids (an embedding)
  bool sequence = false;   // steps (with NAME_lengths, or rank 3)
  bool image = false;      // [N, C, H, W] or [N, H, W]
  int64_t steps = 1, step_values = 1, vocabulary = 0;
};

struct NpzOutput {
  std::string name;
  const NpyArray* array = nullptr;
  bool classes = false;
  bool per_step = false;  // [N, T] labels
  int64_t units = 1;
};

bool IsInteger(const NpyArray& a) {
  return a.kind != NpyArray::Kind::kFloat;
}

int64_t MaxValue(const NpyArray& a) {
  double most = 0;
  for (double v : a.values) most = std::max(most, v);
  return static_cast<int64_t>(most);
}

std::string BlockName(const std::string& array, size_t inputs,
                      size_t outputs, bool input) {
  if (array == "x" || array == "y") {
    return inputs == 1 && outputs == 1 ? "model" : array;
  }
  return input || array.size() <= 7 || !array.ends_with("_target")
             ? array
             : array.substr(0, array.size() - 7);
}

// An input section's layers ending in a vector (several inputs), or the
// whole model's layers before the output (one input).
std::string InputLayers(const NpzInput& in, const std::string& indent,
                        bool return_sequence, std::vector<std::string>& notes) {
  std::string layers;
  if (in.ids) {
    layers += StrCat(indent, "embedding(table, vocabulary=", in.vocabulary,
                     ", shape=[32]),\n");
    layers += StrCat(indent, "lstm(w, r, hiddenSize=64, bias=b, "
                             "recurrentBias=rb",
                     return_sequence ? ", returnSequence=true" : "", ")");
    notes.push_back(StrCat("'", in.name, "': token ids (", in.vocabulary,
                           " of them) through an embedding of 32 and an "
                           "LSTM of 64"));
    return layers;
  }
  if (in.sequence) {
    layers += StrCat(indent, "lstm(w, r, hiddenSize=64, bias=b, "
                             "recurrentBias=rb",
                     return_sequence ? ", returnSequence=true" : "", ")");
    notes.push_back(StrCat("'", in.name, "': sequences of ", in.step_values,
                           " features a step through an LSTM of 64"));
    return layers;
  }
  const int64_t rows = in.array->shape[0];
  const StarterShape shape = StarterWidth(TrainingRows(rows), in.step_values, 1);
  layers += StrCat(indent, "dense(shapes=[");
  for (int i = 0; i < shape.layers; ++i) {
    layers += StrCat(i ? ", " : "", "[", shape.width, "]");
  }
  layers += "], activation=relu)";
  notes.push_back(StrCat("'", in.name, "': ", in.step_values, " features, ",
                         shape.layers, " dense layer(s) of ", shape.width));
  return layers;
}

std::string InputDeclaration(const NpzInput& in) {
  if (in.ids) return "int32 shape={sequence}";
  if (in.sequence) {
    return StrCat("shape={sequence, features: ", in.step_values, "}");
  }
  if (in.image) {
    const std::vector<int64_t>& s = in.array->shape;
    const int64_t c = s.size() == 4 ? s[1] : 1;
    return StrCat("shape={channels: ", c, ", height: ", s[s.size() - 2],
                  ", width: ", s.back(), "}");
  }
  return StrCat("shape=[", in.step_values, "]");
}

// Which arrays are inputs and which labels, and what each holds.
absl::Status SortArrays(
    const std::string& path,
    const std::vector<std::pair<std::string, NpyArray>>& arrays,
    std::vector<NpzInput>& inputs, std::vector<NpzOutput>& outputs) {
  std::map<std::string, const NpyArray*> by_name;
  for (const auto& [name, a] : arrays) by_name[name] = &a;
  bool any_lengths = false;
  for (const auto& [name, a] : arrays) {
    if (name.ends_with("_lengths")) {
      any_lengths = true;
      continue;
    }
    if (a.shape.empty()) {
      return absl::InvalidArgumentError(
          StrCat(path, ": the array '", name, "' is a scalar, not samples"));
    }
    const bool label_like = name == "y" || name.ends_with("_target") ||
                            NamedLikeALabel(name) || a.shape.size() == 1;
    if (label_like && name != "x") {
      outputs.push_back({.name = name, .array = &a});
    } else {
      inputs.push_back({.name = name, .array = &a});
    }
  }
  if (inputs.empty() || outputs.empty()) {
    return absl::InvalidArgumentError(StrCat(
        path, ": cannot tell inputs from labels (arrays of one value a sample, "
              "or named y or NAME_target, are labels; the others inputs)"));
  }
  for (NpzInput& in : inputs) {
    const NpyArray& a = *in.array;
    const bool lengths = by_name.count(in.name + "_lengths") ||
                         (in.name == "x" && by_name.count("x_lengths"));
    int64_t per = 1;
    for (size_t d = 1; d < a.shape.size(); ++d) per *= a.shape[d];
    in.step_values = per;
    if (IsInteger(a) && a.shape.size() == 2 && (lengths || any_lengths)) {
      in.ids = true;
      in.sequence = true;
      in.steps = a.shape[1];
      in.vocabulary = MaxValue(a) + 1;
    } else if (a.shape.size() == 3 && (lengths || a.shape[2] <= 64)) {
      in.sequence = true;
      in.steps = a.shape[1];
      in.step_values = a.shape[2];
    } else if (a.shape.size() == 4 || a.shape.size() == 3) {
      in.image = true;
    }
  }
  const NpzInput& first = inputs[0];
  for (NpzOutput& out : outputs) {
    const NpyArray& a = *out.array;
    out.classes = IsInteger(a);
    out.per_step = a.shape.size() == 2 && first.sequence &&
                   a.shape[1] == first.steps && out.classes;
    out.units = out.classes ? std::max<int64_t>(2, MaxValue(a) + 1)
                : a.shape.size() >= 2 ? a.shape.back()
                                      : 1;
  }
  return absl::OkStatus();
}

ImageSize ImageOf(const NpzInput& in) {
  const std::vector<int64_t>& s = in.array->shape;
  return {.channels = s.size() == 4 ? s[1] : 1,
          .height = s[s.size() - 2],
          .width = s.back()};
}

// The input sections of a model of several inputs (each ends in a vector).
std::string InputSections(const std::vector<NpzInput>& inputs,
                          std::vector<std::string>& notes) {
  std::string sections;
  for (const NpzInput& in : inputs) {
    const std::string block = BlockName(in.name, inputs.size(), 2, true);
    sections += StrCat(block, ":input ", InputDeclaration(in), ";\n");
    sections += StrCat(block, ":layers\n",
                       in.image ? ConvLayers(ImageOf(in), 0, "    ", false,
                                             notes)
                                : InputLayers(in, "    ", false, notes) +
                                      ";\n");
  }
  return sections;
}

// The first output's layers before its last: the one input's, or the
// inputs concatenated; later outputs read the layer named "shared".
std::string SharedLayers(const std::vector<NpzInput>& inputs,
                         const NpzOutput& out, bool more_outputs,
                         std::vector<std::string>& notes) {
  if (inputs.size() > 1) {
    std::string list;
    for (const NpzInput& in : inputs) {
      list += StrCat(list.empty() ? "" : ", ",
                     BlockName(in.name, inputs.size(), 2, true));
    }
    notes.push_back("the inputs concatenated, then 64 shared dense units");
    return StrCat("    concat([", list, "], axis=features),\n",
                  "    dense(shape=[64], activation=relu, name=shared),\n");
  }
  const NpzInput& first = inputs[0];
  // Several outputs: the input is a block of its own, read first here.
  std::string body =
      more_outputs
          ? StrCat("    identity(", BlockName(first.name, 1, 2, true), "),\n")
          : "";
  if (first.image) {
    body += ConvLayers(ImageOf(first), out.units, "    ", false, notes);
    body.resize(body.size() - 2);  // ";\n"
  } else {
    body += InputLayers(first, "    ", out.per_step, notes);
  }
  return body + (more_outputs ? ",\n    identity(name=shared),\n" : ",\n");
}

absl::StatusOr<StarterModel> NpzStarter(const std::string& path,
                                        const StarterOptions& options) {
  ASSIGN_OR_RETURN(auto arrays, ReadNpzArrays(path));
  std::vector<NpzInput> inputs;
  std::vector<NpzOutput> outputs;
  RETURN_IF_ERROR(SortArrays(path, arrays, inputs, outputs));
  std::vector<std::string> notes;
  const bool single = inputs.size() == 1;
  std::string sections = single ? "" : InputSections(inputs, notes);
  if (single && outputs.size() > 1) {
    sections += StrCat(BlockName(inputs[0].name, 1, 2, true), ":input ",
                       InputDeclaration(inputs[0]), ";\n");
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const NpzOutput& out = outputs[k];
    const bool whole = single && outputs.size() == 1;
    const std::string block =
        whole ? "model"
              : BlockName(out.name, inputs.size(), outputs.size(), false);
    if (whole) {
      sections += StrCat("model:input ", InputDeclaration(inputs[0]), ";\n");
    }
    sections += StrCat(
        block, ":output ",
        out.per_step ? StrCat("shape={sequence, classes: ", out.units, "}")
                     : StrCat("shape=[", out.units, "]"),
        ";\n", block, ":layers\n");
    const std::string act = out.classes ? "softmax" : "identity";
    if (k == 0) {
      sections += SharedLayers(inputs, out, outputs.size() > 1, notes);
      sections += StrCat("    dense(shape=[", out.units, "], activation=", act,
                         ");\n");
    } else {
      sections += StrCat("    dense(shared, shape=[", out.units,
                         "], activation=", act, ");\n");
    }
    notes.push_back(StrCat(
        "'", out.name, "': ",
        out.classes ? StrCat(out.units, " classes", out.per_step ? " a step" : "")
                    : StrCat(out.units, out.units == 1 ? " value" : " values")));
  }
  const std::string shown =
      options.shown_as.empty() ? fs::path(path).filename().string()
                               : options.shown_as;
  StarterModel m;
  m.text = Comment(StrCat("A starter model for ", shown,
                          ", written by webnnmctl init: change it as you "
                          "like. ",
                          inputs[0].array->shape[0], " samples; ",
                          absl::StrJoin(notes, "; "), "."));
  m.text += StrCat("model:name ", ModelName(options.name, path), ";\n");
  m.text += Comment(
      "Blocks are named after the archive's arrays; dense, conv and pool are "
      "templates of the prelude.");
  m.text += sections;
  m.notes = std::move(notes);
  return m;
}

}  // namespace

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
