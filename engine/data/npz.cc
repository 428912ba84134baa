#include "engine/data/npz.h"

#include <zip.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "engine/base/float16.h"
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/ir/tensor_type.h"

namespace webnnm::train {
namespace {

// The archive's .npy entries, by array name (the entry without ".npy").
struct Archive {
  std::map<std::string, std::string> arrays;  // name -> bytes
  std::vector<std::string> names;             // as listed
};

absl::StatusOr<Archive> ReadArchive(const std::string& path,
                                    int64_t max_bytes) {
  if (!std::filesystem::exists(path)) {
    return absl::NotFoundError(StrCat("cannot read ", path));
  }
  int error = 0;
  std::unique_ptr<zip_t, int (*)(zip_t*)> zip(
      zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &error), zip_close);
  if (!zip) {
    zip_error_t e;
    zip_error_init_with_code(&e, error);
    std::string what = zip_error_strerror(&e);
    zip_error_fini(&e);
    return absl::InvalidArgumentError(
        StrCat(path, ": not a NumPy .npz archive (", what, ")"));
  }
  Archive a;
  const zip_int64_t entries = zip_get_num_entries(zip.get(), 0);
  int64_t total = 0;
  for (zip_int64_t i = 0; i < entries; ++i) {
    zip_stat_t st;
    if (zip_stat_index(zip.get(), i, 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_NAME)) {
      return absl::InvalidArgumentError(
          StrCat(path, ": a corrupt archive (entry ", i, ")"));
    }
    std::string entry = st.name;
    if (!entry.ends_with(".npy")) continue;
    const std::string name = entry.substr(0, entry.size() - 4);
    // Sizes as declared, checked before anything is allocated.
    total +=
        static_cast<int64_t>(std::min<zip_uint64_t>(st.size, INT64_MAX / 2));
    if (static_cast<int64_t>(st.size) > max_bytes || total > max_bytes) {
      return absl::InvalidArgumentError(
          StrCat(path, ": the arrays hold more than ", max_bytes,
                 " bytes decompressed (the dataset limit); '", name, "' alone ",
                 st.size));
    }
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(
        zip_fopen_index(zip.get(), i, 0), zip_fclose);
    if (!file) {
      return absl::InvalidArgumentError(StrCat(
          path, ": cannot read '", entry, "' (", zip_strerror(zip.get()), ")"));
    }
    std::string bytes(st.size, '\0');
    const zip_int64_t got = zip_fread(file.get(), bytes.data(), st.size);
    if (got < 0 || static_cast<zip_uint64_t>(got) != st.size) {
      return absl::InvalidArgumentError(
          StrCat(path, ": '", entry, "' is corrupt (",
                 zip_file_strerror(file.get()), ")"));
    }
    // Its data must end where its size says (reading on also has libzip
    // check the CRC): one that inflates past it is a damaged archive.
    char extra;
    const zip_int64_t more = zip_fread(file.get(), &extra, 1);
    if (more != 0) {
      return absl::InvalidArgumentError(StrCat(
          path, ": '", entry, "' is damaged: ",
          more > 0 ? StrCat("it inflates past its declared ", st.size, " bytes")
                   : std::string(zip_file_strerror(file.get()))));
    }
    a.names.push_back(name);
    a.arrays[name] = std::move(bytes);
  }
  return a;
}

// The first of `names` the archive holds, parsed.
absl::StatusOr<NpyArray> Find(const Archive& a, const std::string& path,
                              const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    auto it = a.arrays.find(name);
    if (it != a.arrays.end()) {
      return ParseNpy(it->second, StrCat(path, ": ", it->first));
    }
  }
  std::string wanted, known;
  for (const std::string& n : names) {
    wanted += StrCat(wanted.empty() ? "" : " or ", "'", n, "'");
  }
  for (const std::string& n : a.names) known += (known.empty() ? "" : ", ") + n;
  return absl::InvalidArgumentError(
      StrCat(path, ": no array ", wanted,
             " (arrays: ", known.empty() ? "none" : known, ")"));
}

// Values per sample of an array of N samples.
absl::StatusOr<int64_t> PerSample(const NpyArray& a, const std::string& what,
                                  std::optional<int64_t>& samples) {
  if (a.shape.empty()) {
    return absl::InvalidArgumentError(
        StrCat(what, " is a scalar, not [N, ...]"));
  }
  if (samples && *samples != a.shape[0]) {
    return absl::InvalidArgumentError(
        StrCat(what, " has ", a.shape[0], " samples, the others ", *samples));
  }
  samples = a.shape[0];
  int64_t per = 1;
  for (size_t i = 1; i < a.shape.size(); ++i) per *= a.shape[i];
  return per;
}

// Float32 values of an array, refusing integers float32 cannot hold.
absl::StatusOr<std::vector<float>> Floats(const NpyArray& a,
                                          const std::string& what) {
  std::vector<float> out(a.values.size());
  constexpr double kExact = 16777216.0;  // 2^24
  for (size_t i = 0; i < a.values.size(); ++i) {
    const double v = a.values[i];
    if (a.kind != NpyArray::Kind::kFloat && std::fabs(v) > kExact) {
      return absl::InvalidArgumentError(
          StrCat(what, " holds ", v, " at element ", i,
                 ": integers beyond 2^24 do not stay exact"));
    }
    out[i] = static_cast<float>(v);
  }
  return out;
}

// InvalidArgument naming the first value of `values` (`width` a sample)
// that is not a finite number (or an infinity, when NaN is allowed).
absl::Status AllFinite(const std::vector<float>& values, int64_t width,
                       const std::string& what, bool nan_allowed = false) {
  for (size_t i = 0; i < values.size(); ++i) {
    const float v = values[i];
    if (std::isfinite(v) || (nan_allowed && std::isnan(v))) continue;
    const int64_t w = std::max<int64_t>(1, width);
    return absl::InvalidArgumentError(StrCat(
        what, " holds ", std::isnan(v) ? "NaN" : (v > 0 ? "inf" : "-inf"),
        " at sample ", static_cast<int64_t>(i) / w + 1, ", value ",
        static_cast<int64_t>(i) % w + 1, " (element ", i,
        "): an .npz array's values must be finite numbers (fill or drop the "
        "missing ones before saving it, or give the data as a CSV file, "
        "which takes --impute)"));
  }
  return absl::OkStatus();
}

// A classification output's labels: class indices and the class names.
// Values where `padding` (empty, or one per value) is true are a ragged
// sequence's padding: no class, stored as 0.
absl::StatusOr<Targets> Labels(const NpyArray& a, const std::string& what,
                               int64_t units,
                               const std::vector<bool>& padding) {
  Targets t;
  t.classification = true;
  std::set<double> distinct;
  bool fractional = false, unit_interval = true;
  // Integer labels are class ids kept exact (as doubles) up to 2^53; past
  // it two labels could become one class.
  constexpr double kDistinct = 9007199254740992.0;  // 2^53
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (!padding.empty() && padding[i]) continue;
    const double v = a.values[i];
    if (a.kind != NpyArray::Kind::kFloat && std::fabs(v) > kDistinct) {
      return absl::InvalidArgumentError(
          StrCat(what, " holds the label ", v, " at element ", i,
                 ": integer labels beyond 2^53 do not stay distinct; number "
                 "the classes from 0"));
    }
    fractional |= v != std::nearbyint(v);
    unit_interval &= v >= 0 && v <= 1;
    distinct.insert(v);
  }
  if (fractional && units == 1 && unit_interval && padding.empty()) {
    // A one-unit output's soft labels: the second class's probability.
    t.form = LabelForm::kProbabilities;
    t.classes = {"0", "1"};
    t.values.assign(a.values.begin(), a.values.end());
    return t;
  }
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (!padding.empty() && padding[i]) continue;
    const double v = a.values[i];
    // One unit: fractions are probabilities, and it is the one outside
    // [0, 1] that is wrong.
    const bool wrong = units == 1 && padding.empty() ? !(v >= 0 && v <= 1)
                                                     : v != std::nearbyint(v);
    if (wrong) {
      return absl::InvalidArgumentError(
          StrCat(what, " holds ", v,
                 ": a classification output takes integer or "
                 "bool labels",
                 units == 1 ? " (or probabilities in [0, 1])" : ""));
    }
  }
  std::vector<double> classes(distinct.begin(), distinct.end());
  const int64_t k = std::max<int64_t>(2, units);
  if (!classes.empty() && classes.front() >= 0 && classes.back() < k) {
    classes.clear();
    for (int64_t c = 0; c < k; ++c) classes.push_back(static_cast<double>(c));
  }
  std::map<double, int64_t> index;
  for (size_t c = 0; c < classes.size(); ++c) {
    index[classes[c]] = static_cast<int64_t>(c);
    t.classes.push_back(StrCat(static_cast<int64_t>(classes[c])));
  }
  for (size_t i = 0; i < a.values.size(); ++i) {
    const bool pad = !padding.empty() && padding[i];
    t.values.push_back(pad ? 0.0f : static_cast<float>(index[a.values[i]]));
  }
  return t;
}

// A classification output's labels given as rows of its `units` classes
// ([N, units]): one-hot rows become class ids, probability rows (in
// [0, 1], summing to 1) stay probabilities; anything else is refused,
// naming the row.
absl::StatusOr<Targets> LabelRows(const NpyArray& a, const std::string& what,
                                  int64_t per, int64_t units) {
  if (per != units || units < 2) {
    return absl::InvalidArgumentError(
        StrCat(what, " has ", per, " values a sample (shape ",
               ir::ShapeToString(a.shape), "): a classification output of ",
               units, " unit", units == 1 ? "" : "s",
               " takes a label a sample ([N] or "
               "[N, 1])",
               units >= 2 ? StrCat(", or rows of its ", units,
                                   " classes "
                                   "([N, ",
                                   units,
                                   "]: one-hot or "
                                   "probabilities)")
                          : std::string()));
  }
  Targets t;
  t.classification = true;
  for (int64_t c = 0; c < units; ++c) t.classes.push_back(StrCat(c));
  bool one_hot = true;
  const auto samples = static_cast<int64_t>(a.values.size()) / units;
  for (int64_t i = 0; i < samples; ++i) {
    double sum = 0;
    for (int64_t c = 0; c < units; ++c) {
      const double v = a.values[i * units + c];
      if (!(v >= 0 && v <= 1)) {
        return absl::InvalidArgumentError(
            StrCat(what, " holds ", v, " in row ", i,
                   ": rows of classes are one-hot "
                   "or probabilities in [0, 1]"));
      }
      one_hot &= v == 0 || v == 1;
      sum += v;
    }
    if (std::fabs(sum - 1) > 1e-3) {
      return absl::InvalidArgumentError(
          StrCat(what, "'s row ", i, " sums to ", sum,
                 ": rows of classes are "
                 "one-hot or probabilities that sum to 1"));
    }
  }
  if (one_hot) {
    t.form = LabelForm::kOneHot;
    for (int64_t i = 0; i < samples; ++i) {
      const double* row = a.values.data() + i * units;
      t.values.push_back(
          static_cast<float>(std::max_element(row, row + units) - row));
    }
    return t;
  }
  t.form = LabelForm::kProbabilities;
  t.width = units;
  t.values.assign(a.values.begin(), a.values.end());
  return t;
}

// A sequenced input's per-sample lengths (`<name>_lengths`, or `x_lengths`
// beside `x`), if the archive has them: integers within 1..steps.
absl::StatusOr<std::optional<std::vector<int64_t>>> Lengths(
    const Archive& archive, const std::string& path,
    const std::vector<std::string>& names, int64_t samples, int64_t steps) {
  for (const std::string& name : names) {
    auto it = archive.arrays.find(name + "_lengths");
    if (it == archive.arrays.end()) continue;
    const std::string what = StrCat(path, ": '", it->first, "'");
    ASSIGN_OR_RETURN(NpyArray a, ParseNpy(it->second, what));
    if (a.shape.size() != 1 || a.shape[0] != samples) {
      return absl::InvalidArgumentError(StrCat(what, " must be [", samples,
                                               "] (a length per sample), not ",
                                               ir::ShapeToString(a.shape)));
    }
    std::vector<int64_t> lengths;
    for (size_t i = 0; i < a.values.size(); ++i) {
      const double v = a.values[i];
      if (v != std::nearbyint(v) || v < 1 || v > static_cast<double>(steps)) {
        return absl::InvalidArgumentError(StrCat(what, " holds ", v,
                                                 " for sample ", i,
                                                 ": lengths are whole "
                                                 "numbers of steps within 1..",
                                                 steps));
      }
      lengths.push_back(static_cast<int64_t>(v));
    }
    return std::optional<std::vector<int64_t>>(std::move(lengths));
  }
  return std::optional<std::vector<int64_t>>();
}

// Zeroes each sample's steps past its length (step_values a step).
void ZeroPadding(std::vector<float>& values, int64_t width, int64_t step_values,
                 const std::vector<int64_t>& lengths) {
  for (size_t i = 0; i < lengths.size(); ++i) {
    std::fill(values.begin() + static_cast<int64_t>(i) * width +
                  lengths[i] * step_values,
              values.begin() + static_cast<int64_t>(i + 1) * width, 0.0f);
  }
}

// The targets of a sequenced output: an array [N, T] (a label or value a
// step) or [N, T, units], T the sequenced inputs' length (`sequenced`:
// their indices in the inputs and steps). A ragged sample's steps past its
// length are padding: ignored, stored as zeros.
absl::StatusOr<Targets> SequencedTargets(
    const NpyArray& a, const std::string& what, const NpzSpec::Output& out,
    const std::vector<std::pair<size_t, int64_t>>& sequenced,
    const std::optional<std::vector<int64_t>>& lengths) {
  const int64_t per_step = out.classification ? 1 : out.units;
  const bool fits = a.shape.size() == 2   ? per_step == 1
                    : a.shape.size() == 3 ? a.shape[2] == per_step
                                          : false;
  if (!fits) {
    return absl::InvalidArgumentError(
        StrCat(what, " has shape ", ir::ShapeToString(a.shape),
               ", but the output "
               "is a sequence: it takes ",
               out.classification
                   ? "a label a step ([N, T] or [N, T, 1])"
                   : StrCat(per_step, " value", per_step == 1 ? "" : "s",
                            " a step ([N, T", per_step == 1 ? "" : ", ",
                            per_step == 1 ? "" : StrCat(per_step), "])")));
  }
  const int64_t steps = a.shape[1];
  if (sequenced.empty()) {
    return absl::InvalidArgumentError(
        StrCat(what, " is a sequence of ", steps,
               " steps, but no model input is "
               "sequenced to give it its length"));
  }
  if (sequenced.front().second != steps) {
    return absl::InvalidArgumentError(StrCat(
        what, " has ", steps, " steps a sample, but the sequenced inputs ",
        sequenced.front().second,
        "; a sample's outputs and inputs share "
        "one length"));
  }
  std::vector<bool> padding;
  if (lengths) {
    padding.assign(a.values.size(), false);
    for (size_t i = 0; i < lengths->size(); ++i) {
      for (int64_t step = (*lengths)[i]; step < steps; ++step) {
        for (int64_t u = 0; u < per_step; ++u) {
          padding[(static_cast<int64_t>(i) * steps + step) * per_step + u] =
              true;
        }
      }
    }
  }
  Targets t;
  if (out.classification) {
    ASSIGN_OR_RETURN(t, Labels(a, what, out.units, padding));
  } else {
    ASSIGN_OR_RETURN(t.values, Floats(a, what));
    for (size_t i = 0; i < padding.size(); ++i) {
      if (padding[i]) t.values[i] = 0.0f;
    }
    RETURN_IF_ERROR(AllFinite(t.values, steps * per_step, what));
    t.width = per_step;
  }
  t.sequenced = true;
  t.steps = steps;
  return t;
}

}  // namespace

absl::StatusOr<Dataset> LoadNpz(const std::string& path, const NpzSpec& spec) {
  if (spec.inputs.empty() || spec.outputs.empty()) {
    return absl::InvalidArgumentError("the model has no inputs or outputs");
  }
  ASSIGN_OR_RETURN(Archive archive, ReadArchive(path, spec.max_bytes));
  std::optional<int64_t> samples;
  std::vector<Features> inputs;
  // Ragged sequences: the lengths, the input that gave them and its steps;
  // each sequenced input's index in `inputs` and steps.
  std::optional<std::vector<int64_t>> lengths;
  std::string ragged_input;
  int64_t ragged_steps = 0;
  std::vector<std::pair<size_t, int64_t>> sequenced;
  for (const NpzSpec::Input& in : spec.inputs) {
    std::vector<std::string> names = {in.name};
    if (spec.inputs.size() == 1) names.push_back("x");
    ASSIGN_OR_RETURN(NpyArray a, Find(archive, path, names));
    const std::string what = StrCat(path, ": the input '", in.name, "'");
    ASSIGN_OR_RETURN(const int64_t per, PerSample(a, what, samples));
    if (in.sequenced ? (per == 0 || per % in.step_values != 0)
                     : per != in.step_values) {
      return absl::InvalidArgumentError(
          StrCat(what, " has ", per, " values a sample (shape ",
                 ir::ShapeToString(a.shape), "), but the model takes ",
                 in.sequenced ? "steps of " : "", in.step_values));
    }
    ASSIGN_OR_RETURN(std::vector<float> values, Floats(a, what));
    if (!in.sequenced) {
      for (const std::string& n : names) {
        if (archive.arrays.count(n + "_lengths")) {
          return absl::InvalidArgumentError(
              StrCat(path, ": '", n, "_lengths' gives lengths, but the input '",
                     in.name, "' is no sequence ({sequence, ...})"));
        }
      }
    }
    if (in.sequenced) {
      const int64_t steps = per / in.step_values;
      ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> these,
                       Lengths(archive, path, names, *samples, steps));
      if (these) {
        if (lengths && (*lengths != *these || steps != ragged_steps)) {
          return absl::InvalidArgumentError(
              StrCat(what, ": its lengths differ from '", ragged_input,
                     "''s; the sequenced inputs of a sample share one length"));
        }
        lengths = std::move(these);
        ragged_steps = steps;
        ragged_input = in.name;
      }
      sequenced.push_back({inputs.size(), steps});
    }
    inputs.push_back(
        {.input = in.name, .width = per, .values = std::move(values)});
  }
  if (lengths) {
    for (const auto& [index, steps] : sequenced) {
      if (steps != ragged_steps) {
        return absl::InvalidArgumentError(
            StrCat(path, ": the input '", inputs[index].input, "' has ", steps,
                   " steps and '", ragged_input, "' ", ragged_steps,
                   "; ragged sequences share one padded length"));
      }
      ZeroPadding(inputs[index].values, inputs[index].width,
                  inputs[index].width / steps, *lengths);
    }
  }
  // Every input finite (a ragged one's padding, zeroed above, aside; a
  // model that imputes its first input's missing values fills its NaNs).
  for (size_t k = 0; k < inputs.size(); ++k) {
    RETURN_IF_ERROR(
        AllFinite(inputs[k].values, inputs[k].width,
                  StrCat(path, ": the input '", inputs[k].input, "'"),
                  k == 0 && spec.keep_missing));
  }
  std::vector<Targets> targets;
  for (const NpzSpec::Output& out : spec.outputs) {
    // An output named as an input (one block both) reads <name>_target.
    bool shared = false;
    for (const NpzSpec::Input& in : spec.inputs) shared |= in.name == out.name;
    std::vector<std::string> names = {shared ? out.name + "_target" : out.name};
    if (spec.outputs.size() == 1) names.push_back("y");
    if (spec.targets_optional &&
        std::none_of(names.begin(), names.end(), [&](const std::string& n) {
          return archive.arrays.count(n) > 0;
        })) {
      Targets zeros{.output = out.name, .width = out.units};
      if (out.sequenced && !sequenced.empty()) {
        zeros.sequenced = true;
        zeros.steps = sequenced.front().second;
      }
      zeros.values.assign(*samples * zeros.sample_values(), 0.0f);
      targets.push_back(std::move(zeros));
      continue;
    }
    ASSIGN_OR_RETURN(NpyArray a, Find(archive, path, names));
    const std::string what = StrCat(path, ": the output '", out.name, "'");
    ASSIGN_OR_RETURN(const int64_t per, PerSample(a, what, samples));
    Targets t;
    if (out.sequenced) {
      ASSIGN_OR_RETURN(t, SequencedTargets(a, what, out, sequenced, lengths));
    } else if (out.classification) {
      if (per != 1) {
        ASSIGN_OR_RETURN(t, LabelRows(a, what, per, out.units));
      } else {
        ASSIGN_OR_RETURN(t, Labels(a, what, out.units, {}));
      }
    } else {
      if (per != out.units) {
        return absl::InvalidArgumentError(
            StrCat(what, " has ", per, " values a sample, but the output has ",
                   out.units, " units"));
      }
      ASSIGN_OR_RETURN(t.values, Floats(a, what));
      RETURN_IF_ERROR(AllFinite(t.values, per, what));
      t.width = per;
    }
    t.output = out.name;
    targets.push_back(std::move(t));
  }
  Targets& first = targets[0];
  const bool first_sequenced = first.sequenced;
  const int64_t first_steps = first.steps;
  const LabelForm first_form = first.form;
  Dataset d = Dataset::Make(path, inputs[0].width, std::move(inputs[0].values),
                            first.width, std::move(first.values),
                            first.classification, std::move(first.classes));
  if (first_sequenced) RETURN_IF_ERROR(d.SetFirstTargetsSteps(first_steps));
  RETURN_IF_ERROR(d.SetFirstTargetsForm(first_form));
  d.SetFirstInput(spec.inputs[0].name);
  d.SetFirstOutput(spec.outputs[0].name);
  for (size_t i = 1; i < inputs.size(); ++i) {
    RETURN_IF_ERROR(d.AddFeatures(std::move(inputs[i])));
  }
  for (size_t k = 1; k < targets.size(); ++k) {
    RETURN_IF_ERROR(d.AddTargets(std::move(targets[k])));
  }
  if (lengths) {
    RETURN_IF_ERROR(d.SetLengths(std::move(*lengths), ragged_steps,
                                 spec.inputs[0].sequenced));
  }
  return d;
}

absl::StatusOr<std::vector<std::pair<std::string, NpyArray>>> ReadNpzArrays(
    const std::string& path, int64_t max_bytes) {
  ASSIGN_OR_RETURN(Archive a, ReadArchive(path, max_bytes));
  std::vector<std::pair<std::string, NpyArray>> out;
  for (const std::string& name : a.names) {
    ASSIGN_OR_RETURN(NpyArray array,
                     ParseNpy(a.arrays.at(name), StrCat(path, ": ", name)));
    out.emplace_back(name, std::move(array));
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, std::vector<int64_t>>>>
NpzShapes(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    return absl::NotFoundError(StrCat("cannot read ", path));
  }
  int error = 0;
  std::unique_ptr<zip_t, int (*)(zip_t*)> zip(
      zip_open(path.c_str(), ZIP_RDONLY, &error), zip_close);
  if (!zip) {
    return absl::InvalidArgumentError(
        StrCat(path, ": not a NumPy .npz archive"));
  }
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  const zip_int64_t entries = zip_get_num_entries(zip.get(), 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    const char* entry = zip_get_name(zip.get(), i, 0);
    if (entry == nullptr || !std::string_view(entry).ends_with(".npy"))
      continue;
    const std::string name(entry, std::strlen(entry) - 4);
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(
        zip_fopen_index(zip.get(), i, 0), zip_fclose);
    if (!file) {
      return absl::InvalidArgumentError(
          StrCat(path, ": cannot read '", entry, "'"));
    }
    // A header is at most 64 KiB in format 1 (and in practice in 2 and 3).
    std::string head(65536 + 12, '\0');
    const zip_int64_t got = zip_fread(file.get(), head.data(), head.size());
    if (got < 0) {
      return absl::InvalidArgumentError(
          StrCat(path, ": '", entry, "' is corrupt"));
    }
    head.resize(static_cast<size_t>(got));
    ASSIGN_OR_RETURN(NpyArray header,
                     ParseNpyHeader(head, StrCat(path, ": ", name)));
    out.emplace_back(name, header.shape);
  }
  return out;
}

}  // namespace webnnm::train
