#include "engine/train/checkpoint.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/hyperparameters_proto.h"
#include "engine/train/loss.h"
#include "engine/train/optimizer.h"
#include "engine/train/snapshot.h"

namespace webnnm::train {
namespace {

constexpr std::string_view kParam = "param:";
constexpr std::string_view kMomentum = "momentum:";
constexpr std::string_view kBest = "best:";
constexpr std::string_view kMean = "standardize:mean";
constexpr std::string_view kStddev = "standardize:stddev";
constexpr std::string_view kImpute = "impute:values";
// "targetStandardize:<output>:mean" and ":stddev".
constexpr std::string_view kTarget = "targetStandardize:";
// "inputStandardize:<input>:mean" and ":stddev" (inputs after the first).
constexpr std::string_view kInput = "inputStandardize:";

void AddTensors(std::string_view prefix, const Params& params,
                const std::map<std::string, std::vector<int64_t>>& shapes,
                std::vector<SnapshotTensor>& out) {
  for (const auto& [name, values] : params) {
    SnapshotTensor t{StrCat(prefix, name), {}, values};
    auto it = shapes.find(name);
    int64_t count = 1;
    if (it != shapes.end()) {
      for (int64_t d : it->second) count *= d;
    }
    if (it != shapes.end() && count == static_cast<int64_t>(values.size())) {
      t.shape = it->second;
    } else {
      t.shape = {static_cast<int64_t>(values.size())};
    }
    out.push_back(std::move(t));
  }
}

}  // namespace

std::map<std::string, std::vector<int64_t>> ParameterShapes(
    const dag::Dag& dag) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (ir::NodeId id : dag.parameters) {
    const ir::Node& node = dag.graph.node(id);
    shapes[node.name] = dag.graph.value(node.outputs[0]).type.shape;
  }
  return shapes;
}

absl::StatusOr<std::string> EncodeModelSnapshot(const ModelSnapshot& s) {
  SnapshotFile file;
  v1::SnapshotHeader& h = file.header;
  const TrainState& st = s.state;
  h.set_model_name(s.model_name);
  h.set_model_file(s.model_file);
  h.set_model_source(s.model_source);
  *h.mutable_hyperparameters() = HyperparametersToProto(st.hyper);
  h.set_epoch(st.epoch);
  h.set_step(st.step);
  h.set_loss_scale(st.loss_scale);
  h.set_clean_steps(st.clean_steps);
  h.set_optimizer_updates(st.optimizer_updates);
  h.set_clip_mu(st.clip_mu);
  h.set_clip_sigma(st.clip_sigma);
  h.set_clip_first(st.clip_first);
  h.set_best_score(st.best_score);
  h.set_best_epoch(st.best_epoch);
  h.set_epochs_since_best(st.since_best);
  if (st.best_validation_loss) {
    h.set_best_validation_loss(*st.best_validation_loss);
  }
  for (int k : st.scout_ranking) h.add_scout_ranking(k);
  h.set_restarts(st.restarts);
  h.set_init_scale(st.init_scale);
  h.set_divergences(st.divergences);
  h.set_cycle_step(st.cycle_step);
  h.set_cycle_epoch(st.cycle_epoch);
  h.set_elapsed_seconds(st.elapsed_seconds);
  h.set_final_train_loss(st.final_train_loss);
  h.set_train_seconds(st.train_seconds);
  h.set_trained_samples(st.trained_samples);
  h.set_dataset(s.dataset);
  for (const std::string& c : s.classes) h.add_classes(c);
  h.set_split(s.split);
  h.set_data_fingerprint(s.data_fingerprint);
  h.set_label_column(s.label_column);
  for (const TextColumn& c : s.text_encoding.columns) {
    v1::SnapshotTextColumn* out = h.add_text_columns();
    out->set_name(c.name);
    for (const std::string& category : c.categories) {
      out->add_categories(category);
    }
  }
  for (const std::string& d : s.text_encoding.dropped) {
    h.add_dropped_columns(d);
  }
  if (!s.imputation.empty()) h.set_impute(ImputeModeName(s.imputation.mode));
  for (const Decision& d : st.decisions) {
    v1::SnapshotDecision* out = h.add_decisions();
    out->set_what(d.what);
    out->set_why(d.why);
  }
  for (const std::string& w : st.warnings) h.add_warnings(w);
  for (const TunedLoss& t : st.tuned_losses) {
    v1::SnapshotLoss* out = h.add_tuned_losses();
    out->set_output(t.output);
    out->set_loss(t.loss);
    out->set_delta(t.delta);
    out->set_gamma(t.gamma);
  }
  AddTensors(kParam, st.params, s.shapes, file.tensors);
  // The optimizer's state: MomentumSlots tensors of each parameter's
  // shape, stacked on a first axis when more than one (adam's m and v).
  std::map<std::string, std::vector<int64_t>> state_shapes = s.shapes;
  if (const int slots = MomentumSlots(st.hyper.optimizer); slots > 1) {
    for (auto& [name, shape] : state_shapes) shape.insert(shape.begin(), slots);
  }
  AddTensors(kMomentum, st.momenta, state_shapes, file.tensors);
  AddTensors(kBest, st.best, s.shapes, file.tensors);
  for (const auto& [output, t] : s.target_standardization) {
    const auto n = static_cast<int64_t>(t.mean.size());
    file.tensors.push_back({StrCat(kTarget, output, ":mean"), {n}, t.mean});
    file.tensors.push_back({StrCat(kTarget, output, ":stddev"), {n}, t.stddev});
  }
  for (const auto& [input, t] : s.input_standardization) {
    const auto n = static_cast<int64_t>(t.mean.size());
    file.tensors.push_back({StrCat(kInput, input, ":mean"), {n}, t.mean});
    file.tensors.push_back({StrCat(kInput, input, ":stddev"), {n}, t.stddev});
  }
  if (!s.imputation.empty()) {
    const auto n = static_cast<int64_t>(s.imputation.values.size());
    file.tensors.push_back({std::string(kImpute), {n}, s.imputation.values});
  }
  if (!s.standardization.empty()) {
    const auto n = static_cast<int64_t>(s.standardization.mean.size());
    file.tensors.push_back({std::string(kMean), {n}, s.standardization.mean});
    file.tensors.push_back(
        {std::string(kStddev), {n}, s.standardization.stddev});
  }
  return EncodeSnapshot(file);
}

// Files the snapshot's tensors into `s` by their names' prefixes;
// DataLoss for a name no snapshot writes.
absl::Status ReadTensors(std::vector<SnapshotTensor>& tensors,
                         ModelSnapshot& s) {
  TrainState& st = s.state;
  for (SnapshotTensor& t : tensors) {
    std::string_view name = t.name;
    if (name.starts_with(kParam)) {
      s.shapes[std::string(name.substr(kParam.size()))] = t.shape;
      st.params[std::string(name.substr(kParam.size()))] = std::move(t.values);
    } else if (name.starts_with(kMomentum)) {
      st.momenta[std::string(name.substr(kMomentum.size()))] =
          std::move(t.values);
    } else if (name.starts_with(kBest)) {
      st.best[std::string(name.substr(kBest.size()))] = std::move(t.values);
    } else if (name == kMean) {
      s.standardization.mean = std::move(t.values);
    } else if (name == kStddev) {
      s.standardization.stddev = std::move(t.values);
    } else if (name == kImpute) {
      s.imputation.values = std::move(t.values);
    } else if (name.starts_with(kTarget) && name.ends_with(":mean")) {
      std::string output(
          name.substr(kTarget.size(), name.size() - kTarget.size() - 5));
      s.target_standardization[output].mean = std::move(t.values);
    } else if (name.starts_with(kTarget) && name.ends_with(":stddev")) {
      std::string output(
          name.substr(kTarget.size(), name.size() - kTarget.size() - 7));
      s.target_standardization[output].stddev = std::move(t.values);
    } else if (name.starts_with(kInput) && name.ends_with(":mean")) {
      std::string input(
          name.substr(kInput.size(), name.size() - kInput.size() - 5));
      s.input_standardization[input].mean = std::move(t.values);
    } else if (name.starts_with(kInput) && name.ends_with(":stddev")) {
      std::string input(
          name.substr(kInput.size(), name.size() - kInput.size() - 7));
      s.input_standardization[input].stddev = std::move(t.values);
    } else {
      return absl::DataLossError(
          StrCat("not a valid snapshot: unknown tensor '", name, "'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ModelSnapshot> DecodeModelSnapshot(std::string_view bytes) {
  ASSIGN_OR_RETURN(SnapshotFile file, DecodeSnapshot(bytes));
  const v1::SnapshotHeader& h = file.header;
  ModelSnapshot s;
  TrainState& st = s.state;
  s.model_name = h.model_name();
  s.model_file = h.model_file();
  s.model_source = h.model_source();
  // Old snapshots left zero values off the wire: absent means zero.
  absl::StatusOr<Hyperparameters> hyper =
      HyperparametersFromProto(h.hyperparameters(), AbsentField::kZero);
  if (!hyper.ok()) {
    return absl::DataLossError(
        StrCat("not a valid snapshot: ", hyper.status().message()));
  }
  st.hyper = *std::move(hyper);
  if (h.epoch() < 0 || h.step() < 0 || h.clean_steps() < 0 ||
      h.optimizer_updates() < 0 || h.best_epoch() < 0 ||
      h.epochs_since_best() < 0 || h.trained_samples() < 0 ||
      !(h.loss_scale() >= 1) || !std::isfinite(h.loss_scale())) {
    return absl::DataLossError(
        "not a valid snapshot: its progress counters are out of range");
  }
  st.epoch = h.epoch();
  st.step = h.step();
  st.loss_scale = h.loss_scale();
  st.clean_steps = h.clean_steps();
  st.optimizer_updates = h.optimizer_updates();
  st.clip_mu = h.clip_mu();
  st.clip_sigma = h.clip_sigma();
  st.clip_first = h.clip_first();
  st.best_score = h.best_score();
  st.best_epoch = h.best_epoch();
  st.since_best = h.epochs_since_best();
  if (h.has_best_validation_loss()) {
    st.best_validation_loss = h.best_validation_loss();
  }
  for (int k : h.scout_ranking()) {
    if (k < 0 || k >= st.hyper.seeds) {
      return absl::DataLossError(
          StrCat("not a valid snapshot: scouting candidate ", k,
                 " is not one of ", st.hyper.seeds));
    }
    st.scout_ranking.push_back(k);
  }
  if (h.restarts() < 0 ||
      (h.restarts() > 0 && h.restarts() >= h.scout_ranking_size())) {
    return absl::DataLossError(StrCat("not a valid snapshot: restart ",
                                      h.restarts(), " of ",
                                      h.scout_ranking_size(), " candidates"));
  }
  st.restarts = h.restarts();
  if (h.divergences() < 0 || h.divergences() > kMaxDivergences) {
    return absl::DataLossError(
        StrCat("not a valid snapshot: ", h.divergences(), " divergences"));
  }
  st.divergences = h.divergences();
  if (h.cycle_step() < 0 || h.cycle_step() > h.step() || h.cycle_epoch() < 0 ||
      h.cycle_epoch() > h.epoch()) {
    return absl::DataLossError(StrCat(
        "not a valid snapshot: the schedule's cycle begins at step ",
        h.cycle_step(), ", epoch ", h.cycle_epoch(), ", past the run's"));
  }
  st.cycle_step = h.cycle_step();
  st.cycle_epoch = h.cycle_epoch();
  st.elapsed_seconds = h.elapsed_seconds();
  if (h.has_init_scale()) {
    if (!(h.init_scale() > 0) || !std::isfinite(h.init_scale())) {
      return absl::DataLossError(
          "not a valid snapshot: the initial scale is not a positive number");
    }
    st.init_scale = h.init_scale();
  }
  st.final_train_loss = h.final_train_loss();
  st.train_seconds = h.train_seconds();
  st.trained_samples = h.trained_samples();
  s.dataset = h.dataset();
  s.classes.assign(h.classes().begin(), h.classes().end());
  s.split = h.split();
  s.data_fingerprint = h.data_fingerprint();
  s.label_column = h.label_column();
  for (const v1::SnapshotTextColumn& c : h.text_columns()) {
    TextColumn column{.name = c.name(),
                      .categories = {c.categories().begin(),
                                     c.categories().end()}};
    if (!std::is_sorted(column.categories.begin(), column.categories.end())) {
      return absl::DataLossError(StrCat(
          "not a valid snapshot: the categories of the text column '",
          c.name(), "' are not sorted"));
    }
    s.text_encoding.columns.push_back(std::move(column));
  }
  s.text_encoding.dropped = {h.dropped_columns().begin(),
                             h.dropped_columns().end()};
  for (const v1::SnapshotDecision& d : h.decisions()) {
    st.decisions.push_back({d.what(), d.why()});
  }
  st.warnings.assign(h.warnings().begin(), h.warnings().end());
  for (const v1::SnapshotLoss& t : h.tuned_losses()) {
    if (!ParseLoss(t.loss()) || !(t.delta() > 0) || !(t.gamma() >= 0) ||
        !std::isfinite(t.delta()) || !std::isfinite(t.gamma())) {
      return absl::DataLossError(StrCat(
          "not a valid snapshot: the loss of '", t.output(), "' is '", t.loss(),
          "' with delta ", t.delta(), " and gamma ", t.gamma()));
    }
    st.tuned_losses.push_back({t.output(), t.loss(), t.delta(), t.gamma()});
  }
  RETURN_IF_ERROR(ReadTensors(file.tensors, s));
  for (const auto& [input, t] : s.input_standardization) {
    if (t.mean.empty() || t.mean.size() != t.stddev.size()) {
      return absl::DataLossError(
          StrCat("not a valid snapshot: the standardization of the input '",
                 input, "' lacks its mean or standard deviation"));
    }
  }
  for (const auto& [output, t] : s.target_standardization) {
    if (t.mean.empty() || t.mean.size() != t.stddev.size()) {
      return absl::DataLossError(
          StrCat("not a valid snapshot: the target standardization of '",
                 output, "' lacks its mean or standard deviation"));
    }
  }
  const std::optional<ImputeMode> impute =
      h.impute().empty() ? std::optional<ImputeMode>(ImputeMode::kNone)
                         : ParseImputeMode(h.impute());
  if (!impute || (*impute == ImputeMode::kNone) != s.imputation.empty()) {
    return absl::DataLossError(StrCat(
        "not a valid snapshot: the imputation '", h.impute(),
        "' does not match its values (", s.imputation.values.size(), ")"));
  }
  s.imputation.mode = *impute;
  if (s.standardization.mean.size() != s.standardization.stddev.size()) {
    return absl::DataLossError(
        "not a valid snapshot: the standardization mean and standard "
        "deviation differ in length");
  }
  if (st.best.empty()) {
    return absl::DataLossError("not a valid snapshot: it has no parameters");
  }
  return s;
}

absl::Status SaveModelSnapshot(const std::string& path,
                               const ModelSnapshot& s) {
  ASSIGN_OR_RETURN(std::string bytes, EncodeModelSnapshot(s));
  return WriteFileAtomically(path, bytes);
}

absl::StatusOr<ModelSnapshot> LoadModelSnapshot(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  absl::StatusOr<ModelSnapshot> s = DecodeModelSnapshot(bytes);
  if (!s.ok()) {
    return absl::Status(s.status().code(),
                        StrCat(path, ": ", s.status().message()));
  }
  return s;
}

absl::Status CheckSnapshotFits(const ModelSnapshot& s, const dag::Dag& dag) {
  std::map<std::string, std::vector<int64_t>> shapes = ParameterShapes(dag);
  // Learned uncertainty weights of the outputs, when the run had them.
  std::map<std::string, std::vector<int64_t>> optional;
  for (const dag::Endpoint& o : dag.outputs) {
    optional[StrCat("uncertainty:", o.name)] = {};
  }
  auto check = [&](const Params& params, std::string_view what, bool all,
                   int slots = 1) -> absl::Status {
    for (const auto& [name, values] : params) {
      const std::vector<int64_t>* shape = nullptr;
      if (auto it = shapes.find(name); it != shapes.end()) {
        shape = &it->second;
      } else if (auto opt = optional.find(name); opt != optional.end()) {
        shape = &opt->second;
      } else {
        return absl::InvalidArgumentError(
            StrCat("the snapshot's ", what, " '", name,
                   "' is not a parameter of this model"));
      }
      int64_t count = slots;
      for (int64_t d : *shape) count *= d;
      if (count != static_cast<int64_t>(values.size())) {
        return absl::InvalidArgumentError(
            StrCat("the snapshot's ", what, " '", name, "' has ", values.size(),
                   " values; the model's has shape ", ir::ShapeToString(*shape),
                   slots > 1 ? StrCat(" (", slots, " such tensors)") : ""));
      }
    }
    if (all) {
      for (const auto& [name, shape] : shapes) {
        if (!params.count(name)) {
          return absl::InvalidArgumentError(
              StrCat("the snapshot lacks the model's parameter '", name, "'"));
        }
      }
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(check(s.state.best, "parameter", true));
  if (!s.state.params.empty()) {
    RETURN_IF_ERROR(check(s.state.params, "parameter", true));
  }
  return check(s.state.momenta, "momentum", false,
               MomentumSlots(s.state.hyper.optimizer));
}

}  // namespace webnnm::train
