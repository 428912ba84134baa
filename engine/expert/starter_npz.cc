// A starter model for a NumPy .npz archive (starter_model.h): an input
// block per array of features, an output per label array.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/data/npz.h"
#include "engine/expert/starter_internal.h"

namespace webnnm::train::internal {
namespace {

namespace fs = std::filesystem;

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

}  // namespace

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

}  // namespace webnnm::train::internal
