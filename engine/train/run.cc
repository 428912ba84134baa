#include "engine/train/run.h"

#include <algorithm>
#include <cstring>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/feeder.h"
#include "engine/train/trainer.h"
#include "absl/strings/str_join.h"

namespace webnnm::train {
namespace {

// `status` with the data's path replaced by its name, as FailedPrecondition
// unless it says the path does not exist.
absl::Status NameTheData(const absl::Status& status, const std::string& path,
                         const std::string& name) {
  std::string message(status.message());
  if (!path.empty() && path != name) {
    for (size_t at = message.find(path); at != std::string::npos;
         at = message.find(path, at + name.size())) {
      message.replace(at, path.size(), name);
    }
  }
  // A refused label column is a usage error (label_column.h).
  absl::Status named(status.code() == absl::StatusCode::kNotFound
                         ? absl::StatusCode::kNotFound
                     : IsLabelRefusal(status)
                         ? absl::StatusCode::kInvalidArgument
                         : absl::StatusCode::kFailedPrecondition,
                     message);
  if (IsLabelRefusal(status)) named = LabelRefusal(message);
  return named;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Run>> Run::Prepare(const RunSpec& spec) {
  if (spec.dag == nullptr) return absl::InvalidArgumentError("no model");
  std::unique_ptr<Run> run(new Run(spec));
  RETURN_IF_ERROR(ValidateHyperparameters(spec.hyperparameters));
  RETURN_IF_ERROR(run->FitSnapshot());
  RETURN_IF_ERROR(run->LoadData());
  RETURN_IF_ERROR(run->Impute());
  RETURN_IF_ERROR(run->Standardize());
  if (spec.open_backend != nullptr) {
    run->backend_ = spec.open_backend;
  } else if (!spec.backend.empty()) {
    absl::StatusOr<std::unique_ptr<backends::Backend>> backend =
        backends::CreateBackend(spec.backend);
    if (!backend.ok()) {
      return absl::InvalidArgumentError(backend.status().message());
    }
    run->owned_backend_ = *std::move(backend);
    run->backend_ = run->owned_backend_.get();
  }
  return run;
}

absl::Status Run::CheckDataFits() const {
  ASSIGN_OR_RETURN(std::vector<OutputSpec> specs,
                   OutputSpecs(*spec_.dag, hyper_, nullptr, data_));
  return CheckShapes(*spec_.dag, *data_, specs);
}

absl::Status Run::FitSnapshot() {
  hyper_ = spec_.hyperparameters;
  split_ = spec_.split;
  const ModelSnapshot* s = spec_.snapshot;
  if (s == nullptr) return absl::OkStatus();
  absl::Status fits = CheckSnapshotFits(*s, *spec_.dag);
  if (!fits.ok()) return absl::FailedPreconditionError(fits.message());
  // The snapshot's run: its seed (and so its split and shuffles), its
  // hyperparameters; only the threads and replicas (and a test's batch
  // size) are ours.
  const int threads = hyper_.threads, batch = hyper_.batch_size;
  const int replicas = hyper_.replicas;
  hyper_ = s->state.hyper;
  hyper_.threads = threads;
  hyper_.replicas = replicas;
  if (spec_.purpose == RunPurpose::kTest && spec_.test_batch_size) {
    hyper_.batch_size = batch;
  }
  if (split_.empty()) split_ = s->split;
  if (spec_.purpose == RunPurpose::kTrain) return ApplyResumeChanges();
  return absl::OkStatus();
}

absl::Status Run::ApplyResumeChanges() {
  const ModelSnapshot& s = *spec_.snapshot;
  std::vector<std::string> refused;
  for (const auto& [name, value] : spec_.given) {
    const HyperparameterInfo* info = FindHyperparameter(name);
    if (info == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("unknown hyperparameter '", name, "'"));
    }
    if (name == "threads" || name == "replicas") continue;  // ours already
    if (name == "epochs" || name == "lr" || name == "patience" ||
        name == "timeBudget") {
      RETURN_IF_ERROR(SetHyperparameter(hyper_, *info, value));
      continue;
    }
    // Another hyperparameter may be given only as it was ('auto' always).
    if (FormatHyperValue(value) == "auto") continue;
    Hyperparameters probe = s.state.hyper;
    RETURN_IF_ERROR(SetHyperparameter(probe, *info, value));
    const std::optional<HyperValue> was = GetHyperparameter(s.state.hyper, *info);
    if (GetHyperparameter(probe, *info) != was) {
      refused.push_back(StrCat(name, " (", FormatHyperValue(value),
                               "; the snapshot's: ",
                               was ? FormatHyperValue(*was) : "unset", ")"));
    }
  }
  if (!spec_.split.empty() && spec_.split != s.split) {
    refused.push_back(
        StrCat("split (", spec_.split, "; the snapshot's: ", s.split, ")"));
  }
  // Integer inputs are never standardized, so "on" standardized only the
  // float ones (of which a model may have none).
  const bool standardized =
      !s.standardization.empty() || !s.input_standardization.empty();
  bool float_input = false;
  for (const dag::Endpoint& e : spec_.dag->inputs) {
    const ir::DType t =
        spec_.dag->graph.value(spec_.dag->graph.node(e.node).outputs[0])
            .type.dtype;
    float_input |= t == ir::DType::kFloat32 || t == ir::DType::kFloat16;
  }
  if ((spec_.standardize == StandardizeMode::kOn && !standardized &&
       float_input) ||
      (spec_.standardize == StandardizeMode::kOff && standardized)) {
    refused.push_back(StrCat("standardize (",
                             StandardizeModeName(spec_.standardize),
                             "; the snapshot's: ", standardized ? "on" : "off",
                             ")"));
  }
  if (refused.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat(
      "a resumed run keeps its model, data, split, seed, batch size, "
      "optimizer and the rest of its hyperparameters (epochs, lr, patience "
      "and timeBudget may change), but these differ: ",
      absl::StrJoin(refused, ", ")));
}

uint64_t Run::DataFingerprint() const {
  // FNV-1a over the values' 8-byte words (then the bytes left), with the
  // sizes first.
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](const void* data, size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
      uint64_t word;
      std::memcpy(&word, p + i, 8);
      h = (h ^ word) * 0x100000001b3ull;
      h ^= h >> 29;
    }
    for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  };
  const int64_t sizes[2] = {data_->count(), data_->width()};
  mix(sizes, sizeof sizes);
  if (data_->count() > 0) {
    mix(data_->features(0), sizeof(float) * data_->count() * data_->width());
  }
  for (const Features& f : data_->more_inputs()) {
    mix(f.values.data(), sizeof(float) * f.values.size());
  }
  for (const Targets& t : data_->targets()) {
    mix(t.values.data(), sizeof(float) * t.values.size());
  }
  return h == 0 ? 1 : h;
}

absl::Status Run::LoadData() {
  if (spec_.dataset != nullptr) {
    data_ = spec_.dataset;
  } else {
    if (split_.empty()) split_ = kDefaultSplit;
    ASSIGN_OR_RETURN(std::vector<double> split, ParseSplit(split_));
    DataSource source = spec_.source;
    // A snapshot's run reads the label column it was trained on.
    if (source.label.empty() && spec_.snapshot != nullptr) {
      source.label = spec_.snapshot->label_column;
    }
    // ... and encodes its text columns as it did.
    if (spec_.snapshot != nullptr) source.text = spec_.snapshot->text_encoding;
    // A snapshot's run fills missing values only as it did.
    source.keep_missing = spec_.snapshot != nullptr
                              ? !spec_.snapshot->imputation.empty()
                              : spec_.impute != ImputeMode::kNone;
    absl::StatusOr<Dataset> read = spec_.read
                                       ? spec_.read(*spec_.dag, source)
                                       : ReadDataFor(*spec_.dag, source);
    if (!read.ok()) {
      return NameTheData(read.status(), spec_.source.path, spec_.dataset_name);
    }
    owned_ = *std::move(read);
    if (spec_.snapshot == nullptr) LabelDecision();
    absl::Status split_status =
        SplitData(*owned_, spec_.source, split, hyper_.seed);
    if (!split_status.ok()) {
      return absl::InvalidArgumentError(split_status.message());
    }
    data_ = &*owned_;
  }
  const ModelSnapshot* s = spec_.snapshot;
  if (spec_.purpose == RunPurpose::kTrain && owned_) {
    fingerprint_ = DataFingerprint();
    if (s != nullptr && s->data_fingerprint != 0 &&
        s->data_fingerprint != fingerprint_) {
      return absl::InvalidArgumentError(StrCat(
          "a resumed run keeps its data, but ", spec_.dataset_name,
          " differs from the data the snapshot was trained on (",
          s->dataset, ")"));
    }
  }
  if (s != nullptr && !s->classes.empty() && data_->classes() != s->classes) {
    return absl::FailedPreconditionError(
        "the dataset's classes differ from the ones the snapshot was trained "
        "on");
  }
  if (spec_.purpose == RunPurpose::kTest &&
      data_->subset(Subset::kTest).empty()) {
    return absl::InvalidArgumentError("the test subset is empty (see split)");
  }
  if (spec_.purpose == RunPurpose::kTrain &&
      data_->subset(Subset::kTraining).empty()) {
    return absl::InvalidArgumentError(
        "the training subset is empty (see split)");
  }
  return absl::OkStatus();
}

void Run::LabelDecision() {
  const Dataset& d = *owned_;
  if (d.label_column().empty()) return;
  std::string labels;
  if (d.classification()) {
    labels = DescribeClasses(d.classes());
  } else {
    float lo = 0, hi = 0;
    for (int64_t i = 0; i < d.count(); ++i) {
      const float v = d.target(i)[0];
      lo = i == 0 ? v : std::min(lo, v);
      hi = i == 0 ? v : std::max(hi, v);
    }
    labels = StrCat("values from ", FormatNumber(lo), " to ", FormatNumber(hi));
  }
  decisions_.push_back({StrCat("label column '", d.label_column(), "'"),
                        StrCat(d.label_why(), ": ", labels)});
  for (const std::string& w : d.label_warnings()) warnings_.push_back(w);
  const TextEncoding& text = d.text_encoding();
  if (!text.empty()) {
    int64_t features = 0;
    for (const TextColumn& c : text.columns) features += c.categories.size();
    decisions_.push_back(
        {text.columns.empty()
             ? StrCat("leave out ", text.dropped.size(), " text column",
                      text.dropped.size() == 1 ? "" : "s")
             : StrCat("one-hot encode ", text.columns.size(), " text column",
                      text.columns.size() == 1 ? "" : "s"),
         StrCat("text columns become one feature per category (",
                features, " features; another value or a missing one gives "
                "zeros): ",
                DescribeTextEncoding(text))});
  }
}

absl::Status Run::Impute() {
  if (owned_ == std::nullopt) return absl::OkStatus();  // the caller's data
  const std::vector<int64_t> missing = owned_->MissingPerFeature();
  int64_t total = 0, features = 0;
  for (int64_t m : missing) {
    total += m;
    features += m > 0;
  }
  if (spec_.snapshot != nullptr) {
    const Imputation& kept = spec_.snapshot->imputation;
    if (kept.empty()) return absl::OkStatus();
    absl::Status applied = owned_->ApplyImputation(kept);
    if (!applied.ok()) return absl::FailedPreconditionError(applied.message());
    return absl::OkStatus();
  }
  if (spec_.impute == ImputeMode::kNone) return absl::OkStatus();
  // auto: the median, when anything is missing.
  const bool automatic = spec_.impute == ImputeMode::kAuto;
  if (automatic && total == 0) return absl::OkStatus();
  const ImputeMode mode = automatic ? ImputeMode::kMedian : spec_.impute;
  owned_->Impute(mode);
  std::string why =
      total == 0 ? "no feature value is missing; the statistics are kept for "
                   "the files tested and predicted later"
                 : StrCat(total, " missing values in ", features,
                          features == 1 ? " feature" : " features",
                          " filled with the training subset's ",
                          ImputeModeName(mode),
                          " of each feature's present values",
                          automatic ? " (the default; --impute mean takes "
                                      "the mean, --impute none refuses "
                                      "missing values)"
                                    : "");
  decisions_.push_back({StrCat("impute ", ImputeModeName(mode)), why});
  return absl::OkStatus();
}

absl::Status Run::Standardize() {
  if (owned_ == std::nullopt) return absl::OkStatus();  // the caller's data
  if (spec_.snapshot != nullptr) {
    // The snapshot's statistics apply, whatever was asked.
    absl::Status applied =
        owned_->ApplyStandardization(spec_.snapshot->standardization);
    if (applied.ok()) {
      applied = owned_->ApplyInputStandardizations(
          spec_.snapshot->input_standardization);
    }
    if (!applied.ok()) return absl::FailedPreconditionError(applied.message());
    for (const auto& [output, s] : spec_.snapshot->target_standardization) {
      const std::optional<size_t> k = TargetsOf(output);
      if (!k) {
        return absl::FailedPreconditionError(
            StrCat("the snapshot standardizes the targets of '", output,
                   "', which the data does not have"));
      }
      applied = owned_->ApplyTargetStandardization(*k, s);
      if (!applied.ok()) {
        return absl::FailedPreconditionError(applied.message());
      }
    }
    return absl::OkStatus();
  }
  for (Decision& d :
       AdviseStandardization(*owned_, spec_.standardize, *spec_.dag)) {
    decisions_.push_back(std::move(d));
  }
  return absl::OkStatus();
}

std::optional<size_t> Run::TargetsOf(const std::string& output) const {
  const std::vector<Targets>& targets = data_->targets();
  for (size_t k = 0; k < targets.size(); ++k) {
    const std::string& name =
        targets[k].output.empty() && !spec_.dag->outputs.empty()
            ? spec_.dag->outputs[0].name
            : targets[k].output;
    if (name == output) return k;
  }
  return std::nullopt;
}

absl::StatusOr<TrainResult> Run::Train(const TrainCallbacks& callbacks) {
  return Train(callbacks, nullptr);
}

absl::StatusOr<TrainResult> Run::Train(const TrainCallbacks& callbacks,
                                       Collective* collective) {
  if (spec_.purpose != RunPurpose::kTrain || backend_ == nullptr) {
    return absl::FailedPreconditionError(
        "this run was not prepared to train (a backend and kTrain)");
  }
  if (callbacks.decision) {
    for (const Decision& d : decisions_) callbacks.decision(d);
  }
  const TrainState* resume =
      spec_.snapshot != nullptr ? &spec_.snapshot->state : nullptr;
  if (callbacks.warning && resume == nullptr) {  // a resumed run told them
    for (const std::string& w : spec_.model_warnings) callbacks.warning(w);
    for (const std::string& w : warnings_) callbacks.warning(w);
  }
  ASSIGN_OR_RETURN(TrainResult result,
                   train::Train(*spec_.dag, *data_, hyper_, *backend_,
                                callbacks, resume, collective));
  result.decisions.insert(result.decisions.begin(), decisions_.begin(),
                          decisions_.end());
  result.warnings.insert(result.warnings.begin(), warnings_.begin(),
                         warnings_.end());
  result.warnings.insert(result.warnings.begin(), spec_.model_warnings.begin(),
                         spec_.model_warnings.end());
  if (callbacks.test && result.test.samples > 0) callbacks.test(result.test);
  return result;
}

absl::StatusOr<Evaluation> Run::Test() {
  if (spec_.snapshot == nullptr) {
    return absl::FailedPreconditionError("no snapshot to test");
  }
  return Test(spec_.snapshot->state.best);
}

absl::StatusOr<Evaluation> Run::Test(const Params& parameters) {
  if (backend_ == nullptr) {
    return absl::FailedPreconditionError(
        "this run was prepared without a "
        "backend");
  }
  return train::Test(*spec_.dag, *data_, parameters, hyper_, *backend_,
                     spec_.snapshot != nullptr
                         ? spec_.snapshot->state.tuned_losses
                         : std::vector<TunedLoss>{});
}

absl::StatusOr<Preview> Run::PreviewTraining() const {
  ASSIGN_OR_RETURN(Preview preview,
                   train::PreviewTraining(*spec_.dag, hyper_, data_));
  preview.decisions.insert(preview.decisions.begin(), decisions_.begin(),
                           decisions_.end());
  preview.warnings.insert(preview.warnings.begin(), warnings_.begin(),
                          warnings_.end());
  return preview;
}

ModelSnapshot Run::Snapshot(const TrainState& state) const {
  ModelSnapshot s;
  s.model_name = spec_.dag->name;
  s.model_file = spec_.model_file;
  s.model_source = spec_.model_source;
  s.dataset =
      spec_.dataset_ref.empty() ? spec_.dataset_name : spec_.dataset_ref;
  s.classes = data_->classes();
  s.split = split_;
  s.data_fingerprint = fingerprint_;
  s.label_column = data_->label_column();
  s.text_encoding = data_->text_encoding();
  s.standardization = data_->standardization();
  s.input_standardization = data_->InputStandardizations();
  s.imputation = data_->imputation();
  for (const dag::Endpoint& e : spec_.dag->outputs) {
    const std::optional<size_t> k = TargetsOf(e.name);
    if (k && !data_->targets()[*k].standardization.empty()) {
      s.target_standardization[e.name] = data_->targets()[*k].standardization;
    }
  }
  s.shapes = ParameterShapes(*spec_.dag);
  s.state = state;
  s.state.decisions.insert(s.state.decisions.begin(), decisions_.begin(),
                           decisions_.end());
  return s;
}

}  // namespace webnnm::train
