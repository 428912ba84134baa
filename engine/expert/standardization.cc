// Standardization as the expert system decides it, and the features' scale
// (expert.h: FeatureRms, AdviseStandardization).
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/base/strings.h"
#include "engine/expert/expert.h"
#include "engine/expert/format.h"
#include "engine/ir/op_def.h"
#include "engine/train/feeder.h"

namespace webnnm::train {

std::optional<double> FeatureRms(const Dataset& data) {
  const std::vector<int64_t>& train = data.subset(Subset::kTraining);
  if (train.empty() || data.width() == 0) return std::nullopt;
  double sum = 0;
  int64_t n = 0;
  for (size_t i = 0; i < train.size() && i < 1000; ++i) {
    const float* f = data.features(train[i]);
    for (int64_t k = 0; k < data.width(); ++k) sum += double{f[k]} * f[k];
    n += data.width();
  }
  return std::sqrt(sum / static_cast<double>(n));
}

namespace {

// The op of the last layer of an output's section ("" when it has none).
std::string LastOp(const dag::Dag& dag, const std::string& output) {
  for (auto it = dag.layers.rbegin(); it != dag.layers.rend(); ++it) {
    if (it->section == output) return it->op;
  }
  return "";
}

// Whether an output's values are unbounded: its last layer is linear (or
// piecewise linear both ways), so standardized targets suit it.
bool Unbounded(const dag::Dag& dag, const std::string& output) {
  static const std::set<std::string> kLinear = {
      "",       "identity",       "add",       "sub",   "mul",     "matmul",
      "gemm",   "linear",         "leakyRelu", "prelu", "reshape", "concat",
      "conv2d", "convTranspose2d"};
  return kLinear.count(LastOp(dag, output)) > 0;
}

// The features' distance from unit scale on the training subset: the mean
// of |μ| over features, and the RMS of σ over the features that vary.
// `values` holds width values a sample.
std::pair<double, double> Scale(const Dataset& data, const float* values,
                                int64_t width) {
  const std::vector<int64_t>& train = data.subset(Subset::kTraining);
  std::vector<double> sum(width, 0), squares(width, 0);
  for (int64_t i : train) {
    const float* f = values + i * width;
    for (int64_t k = 0; k < width; ++k) {
      sum[k] += f[k];
      squares[k] += double{f[k]} * f[k];
    }
  }
  const double n = std::max<double>(1, static_cast<double>(train.size()));
  double mean = 0, variance = 0;
  int varying = 0;
  for (int64_t k = 0; k < width; ++k) {
    const double m = sum[k] / n;
    const double v = std::max(0.0, squares[k] / n - m * m);
    mean += std::fabs(m);
    if (v > 1e-12) {
      variance += v;
      ++varying;
    }
  }
  return {width > 0 ? mean / static_cast<double>(width) : 0,
          varying > 0 ? std::sqrt(variance / varying) : 1};
}

// Whether the model input `name` has a sequence dimension.
bool Sequenced(const dag::Dag& dag, const std::string& name) {
  for (const dag::Endpoint& e : dag.inputs) {
    if (e.name != name) continue;
    for (int64_t d :
         dag.graph.value(dag.graph.node(e.node).outputs[0]).type.shape) {
      if (d == ir::kSequenceDim) return true;
    }
  }
  return false;
}

// The data type of the model input `name` (float32 when not found).
ir::DType InputType(const dag::Dag& dag, const std::string& name) {
  for (const dag::Endpoint& e : dag.inputs) {
    if (e.name == name) {
      return dag.graph.value(dag.graph.node(e.node).outputs[0]).type.dtype;
    }
  }
  return ir::DType::kFloat32;
}

// Whether to standardize one input's features (`values`, width a sample)
// as `mode` asks, with the decision; `named`: the input's name to say
// (models with several inputs), else "".
bool ShouldStandardize(const Dataset& data, StandardizeMode mode,
                       ir::DType type, const float* values, int64_t width,
                       const std::string& named,
                       std::vector<Decision>& decisions) {
  const std::string features =
      named.empty() ? "features" : StrCat("features of '", named, "'");
  if (type != ir::DType::kFloat32 && type != ir::DType::kFloat16) {
    decisions.push_back({StrCat(features, " left as they are"),
                         StrCat("the input takes integers (token ids or "
                                "pixels), which are never standardized")});
    return false;
  }
  if (mode == StandardizeMode::kOn) return true;
  const auto [mean, spread] = Scale(data, values, width);
  if (!std::isfinite(mean) || !std::isfinite(spread)) {
    decisions.push_back({StrCat(features, " left as they are"),
                         "they hold values that are not finite (missing "
                         "values are imputed in the first input only)"});
    return false;
  }
  if (mean <= 1 && spread >= 0.25 && spread <= 4) {
    decisions.push_back(
        {StrCat(features, " left as they are"),
         StrCat("they are near mean 0 and spread 1 already on the training "
                "subset, as training wants them (their means average ",
                Fixed(mean), " in size, their spreads ", Fixed(spread),
                "; mean |μ| and RMS of σ); --standardize rescales them "
                "anyway")});
    return false;
  }
  decisions.push_back(
      {StrCat("standardize the ", features),
       StrCat("rescale each feature to mean 0 and spread 1, which trains "
              "faster and better: on the training subset these are far from "
              "that (their means average ",
              Fixed(mean), " in size, their spreads ", Fixed(spread),
              "; mean |μ| and RMS of σ); the training subset's means and "
              "spreads are kept with the model and applied again to what "
              "it tests and predicts; --no-standardize keeps the raw "
              "values")});
  return true;
}

}  // namespace

std::vector<Decision> AdviseStandardization(Dataset& data, StandardizeMode mode,
                                            const dag::Dag& dag) {
  std::vector<Decision> decisions;
  if (mode == StandardizeMode::kOff) return decisions;
  const bool several = !data.more_inputs().empty();
  const std::string first = !data.first_input().empty() ? data.first_input()
                            : dag.inputs.empty()        ? ""
                                                        : dag.inputs[0].name;
  if (data.count() > 0 &&
      ShouldStandardize(data, mode, InputType(dag, first), data.features(0),
                        data.width(), several ? first : "", decisions)) {
    data.Standardize();
  }
  for (size_t k = 0; k < data.more_inputs().size(); ++k) {
    const Features& f = data.more_inputs()[k];
    if (data.ragged() && Sequenced(dag, f.input)) {
      // Its padding would count in the statistics and stop being zeros.
      decisions.push_back(
          {StrCat("features of '", f.input, "' left as they are"),
           "a ragged dataset standardizes its first input's sequence only "
           "(the lengths say where that one's padding begins)"});
      continue;
    }
    if (ShouldStandardize(data, mode, InputType(dag, f.input), f.values.data(),
                          f.width, f.input, decisions)) {
      if (absl::Status s = data.StandardizeInput(k); !s.ok()) {
        decisions.back() = {
            StrCat("features of '", f.input, "' left as they are"),
            std::string(s.message())};
      }
    }
  }
  // Regression targets of unbounded outputs train standardized.
  for (size_t k = 0; k < data.targets().size(); ++k) {
    const Targets& t = data.targets()[k];
    const std::string output = t.output.empty() && !dag.outputs.empty()
                                   ? dag.outputs[0].name
                                   : t.output;
    if (t.classification || !Unbounded(dag, output)) continue;
    data.StandardizeTargets(k);
    const Standardization& s = data.targets()[k].standardization;
    decisions.push_back(
        {StrCat("standardize the targets of '", output, "'"),
         StrCat("a regression output without a bounding activation trains "
                "best on targets of unit scale (mean ",
                Fixed(s.mean.empty() ? 0 : s.mean[0]), ", σ ",
                Fixed(s.stddev.empty() ? 1 : s.stddev[0]),
                s.mean.size() > 1 ? ", first unit" : "",
                "); its predictions are mapped back to the original units")});
  }
  return decisions;
}

}  // namespace webnnm::train
