#include "engine/train/data_source.h"

#include <filesystem>
#include <sstream>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/data/image_folder.h"
#include "engine/data/npz.h"
#include "engine/train/feeder.h"
#include "engine/train/sequence.h"
#include "engine/train/trainer.h"

namespace webnnm::train {

absl::StatusOr<std::vector<double>> ParseSplit(const std::string& text) {
  auto bad = [&] {
    return absl::InvalidArgumentError(StrCat(
        "split takes three percentages like 70,15,15, not '", text, "'"));
  };
  std::vector<double> parts;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0') return bad();
    parts.push_back(v);
  }
  if (parts.size() != 3) return bad();
  return parts;
}

absl::Status CheckSingleInputOutput(const dag::Dag& dag) {
  if (dag.outputs.size() == 1 && dag.inputs.size() == 1) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(StrCat(
      "a dataset file feeds models with one input and one output; "
      "this one has ",
      dag.inputs.size(), " inputs and ", dag.outputs.size(), " outputs"));
}

namespace {

// A declared loss decides; else the chosen loss or the activation.
bool OutputReadsClasses(const dag::Dag& dag, const dag::Endpoint& output) {
  absl::StatusOr<OutputSpec> spec =
      ChooseLoss(dag, output.name, output.loss, nullptr);
  if (!output.loss.empty() && spec.ok()) return IsClassification(spec->loss);
  OutputActivation activation = ActivationOf(dag, output.name);
  return (spec.ok() && IsClassification(spec->loss)) ||
         activation == OutputActivation::kSoftmax ||
         activation == OutputActivation::kSigmoid;
}

}  // namespace

bool IsNpz(const std::string& path) { return path.ends_with(".npz"); }

NpzSpec NpzSpecFor(const dag::Dag& dag) {
  NpzSpec spec;
  for (const dag::Endpoint& e : dag.inputs) {
    const InputSteps steps =
        StepsOf(dag.graph.value(dag.graph.node(e.node).outputs[0]).type);
    spec.inputs.push_back({.name = e.name,
                           .step_values = steps.step_values,
                           .sequenced = steps.sequenced});
  }
  for (const dag::Endpoint& e : dag.outputs) {
    spec.outputs.push_back({.name = e.name,
                            .classification = OutputReadsClasses(dag, e),
                            .units = OutputWidth(dag, e.name),
                            .sequenced = OutputSequenced(dag, e.name)});
  }
  return spec;
}

absl::StatusOr<Dataset> ReadImageFolderFor(const dag::Dag& dag,
                                           const DataSource& source) {
  RETURN_IF_ERROR(CheckSingleInputOutput(dag));
  const dag::Endpoint& input = dag.inputs[0];
  absl::StatusOr<ImageFolderSpec> spec = ImageFolderSpecFor(
      dag.graph.value(dag.graph.node(input.node).outputs[0]).type);
  if (!spec.ok()) {
    return absl::FailedPreconditionError(
        StrCat(source.path,
               IsImageArchive(source.path) ? " is a zipped image folder"
                                           : " is an image folder",
               ", but the model input '", input.name,
               "' takes no images: ", spec.status().message()));
  }
  spec->resize = source.resize;
  if (source.max_bytes > 0) spec->max_bytes = source.max_bytes;
  if (IsImageArchive(source.path)) return LoadImageArchive(source.path, *spec);
  return LoadImageFolder(source.path, *spec);
}

bool ReadsClasses(const dag::Dag& dag) {
  if (dag.outputs.empty()) return false;
  return OutputReadsClasses(dag, dag.outputs[0]);
}

LabelNeed LabelNeedFor(const dag::Dag& dag) {
  LabelNeed need;
  if (dag.outputs.empty()) return need;
  const dag::Endpoint& out = dag.outputs[0];
  need.output = out.name;
  need.classification = OutputReadsClasses(dag, out);
  const int64_t units = OutputWidth(dag, out.name);
  // One sigmoid unit tells two classes apart.
  need.classes = units == 1 ? 2 : units;
  return need;
}

namespace {

absl::StatusOr<Dataset> ReadDataAsNamed(const dag::Dag& dag,
                                        const DataSource& source);

// `text` with every `from` replaced by `to`.
std::string ReplaceAll(std::string text, const std::string& from,
                       const std::string& to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

absl::StatusOr<Dataset> ReadDataFor(const dag::Dag& dag,
                                    const DataSource& source) {
  absl::StatusOr<Dataset> read;
  // A reader that runs out of memory is an error of this dataset, never an
  // exception that takes the caller (a daemon's worker) down.
  try {
    read = ReadDataAsNamed(dag, source);
  } catch (const std::bad_alloc&) {
    read = absl::ResourceExhaustedError(
        StrCat(source.path, ": not enough memory to read this dataset"));
  } catch (const std::exception& e) {
    read = absl::InternalError(
        StrCat(source.path, ": reading failed: ", e.what()));
  }
  if (read.ok() || source.shown_as.empty()) return read;
  // The path, then the folder holding it, become the name.
  std::string message = ReplaceAll(std::string(read.status().message()),
                                   source.path, source.shown_as);
  const std::string folder =
      std::filesystem::path(source.path).parent_path().string();
  if (folder.size() > 1) message = ReplaceAll(message, folder, source.shown_as);
  if (IsLabelRefusal(read.status())) return LabelRefusal(message);
  return absl::Status(read.status().code(), message);
}

namespace {

absl::StatusOr<Dataset> ReadDataAsNamed(const dag::Dag& dag,
                                        const DataSource& source) {
  if (IsNpz(source.path)) {
    for (const dag::Endpoint& e : dag.outputs) {
      RETURN_IF_ERROR(ChooseLoss(dag, e.name, e.loss, nullptr).status());
    }
    NpzSpec spec = NpzSpecFor(dag);
    if (source.max_bytes > 0) spec.max_bytes = source.max_bytes;
    return LoadNpz(source.path, spec);
  }
  if (absl::Status s = CheckSingleInputOutput(dag); !s.ok()) return s;
  absl::StatusOr<OutputSpec> spec =
      ChooseLoss(dag, dag.outputs[0].name, dag.outputs[0].loss, nullptr);
  if (!spec.ok()) return spec.status();
  if (IsImageFolder(source.path) || IsImageArchive(source.path)) {
    return ReadImageFolderFor(dag, source);
  }
  if (std::filesystem::is_directory(source.path)) {
    return LoadIdx(source.path, source.max_bytes);
  }
  return LoadCsv(source.path,
                 {.label = source.label,
                  .choose_label = LabelNeedFor(dag),
                  .text = source.text,
                  .header = !source.no_header,
                  .keep_missing = source.keep_missing},
                 ReadsClasses(dag));
}

}  // namespace

absl::Status SplitData(Dataset& data, const DataSource& source,
                       const std::vector<double>& split, uint64_t seed) {
  if (split.size() != 3) {
    return absl::InvalidArgumentError("a split has three percentages");
  }
  // Only an IDX directory brings its own test subset (its t10k files).
  const bool idx =
      std::filesystem::is_directory(source.path) && !IsImageFolder(source.path);
  return data.Split(split[0], split[1], split[2], seed, /*fixed_test=*/idx);
}

}  // namespace webnnm::train
