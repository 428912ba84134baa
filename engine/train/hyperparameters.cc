#include "engine/train/hyperparameters.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "engine/base/strings.h"

namespace webnnm::train {
namespace {

// Accessors for the table: one pair of lambdas per kind of member.
#define WEBNNM_ACCESS(member, get_value, set_value)                  \
  .get = [](const Hyperparameters& h) -> std::optional<HyperValue> { \
    return get_value;                                                \
  },                                                                 \
  .set = [](Hyperparameters& h, const HyperValue& v) { set_value; }
#define WEBNNM_INT(member)                             \
  WEBNNM_ACCESS(member, HyperValue(int64_t{h.member}), \
                h.member = static_cast<int>(std::get<int64_t>(v)))
// An integer whose 0 in the struct means 'auto' (the expert system's).
#define WEBNNM_AUTO_INT(member)                                     \
  WEBNNM_ACCESS(member,                                             \
                h.member == 0 ? std::nullopt                        \
                              : std::optional<HyperValue>(          \
                                    HyperValue(int64_t{h.member})), \
                h.member = static_cast<int>(std::get<int64_t>(v)))
#define WEBNNM_REAL(member) \
  WEBNNM_ACCESS(member, HyperValue(h.member), h.member = std::get<double>(v))
#define WEBNNM_OPTIONAL_REAL(member)                                          \
  WEBNNM_ACCESS(                                                              \
      member, h.member ? std::optional<HyperValue>(*h.member) : std::nullopt, \
      h.member = std::get<double>(v))
// A choice, held as its index in `choices` (the enum's value).
#define WEBNNM_CHOICE(member, Enum)                                 \
  WEBNNM_ACCESS(member, HyperValue(static_cast<int64_t>(h.member)), \
                h.member = static_cast<Enum>(std::get<int64_t>(v)))

// The table (namespace scope, initialized before main).
const std::vector<HyperparameterInfo> kTable = {
    {.name = "epochs",
     .type = HyperType::kInteger,
     .default_text = "auto",
     .min = 1,
     .max = 1e7,
     .doc = "the maximum number of epochs; auto: a budget of steps that fits "
            "the training set (and timeBudget)",
     .optional = true,
     WEBNNM_AUTO_INT(epochs)},
    {.name = "lr",
     .type = HyperType::kReal,
     .default_text = "auto",
     .max = 1e6,
     .min_exclusive = true,
     .doc = "the maximum learning rate (warmup, then cosine annealing); "
            "auto: a range test from the scouted start",
     .optional = true,
     WEBNNM_OPTIONAL_REAL(lr)},
    {.name = "warmupEpochs",
     .type = HyperType::kInteger,
     .default_text = "0",
     .max = 1e7,
     .doc = "epochs of linear warmup; 0: 5% of epochs, at least 1",
     WEBNNM_INT(warmup_epochs)},
    {.name = "seeds",
     .type = HyperType::kInteger,
     .default_text = "100",
     .min = 1,
     .max = 1e5,
     .doc = "starting points to scout before training",
     WEBNNM_INT(seeds)},
    {.name = "patience",
     .type = HyperType::kInteger,
     .default_text = "auto",
     .min = 1,
     .max = 1e7,
     .doc = "epochs without a better validation loss before stopping; auto: "
            "500 with given epochs, else a quarter of the budget's",
     .optional = true,
     WEBNNM_AUTO_INT(patience)},
    {.name = "lossWeights",
     .type = HyperType::kWeights,
     .default_text = "auto",
     .doc = "'auto' (learned uncertainty weights) or one weight per output",
     WEBNNM_ACCESS(
         loss_weights, HyperValue(LossWeightsText(h.loss_weights)),
         h.loss_weights = *ParseLossWeights(std::get<std::string>(v)))},
    {.name = "optimizer",
     .type = HyperType::kChoice,
     .default_text = "auto",
     .choices = {"auto", "lion", "rlion", "nesterov", "sgdm", "adam", "adamw"},
     .doc = "the learning-rate optimizer; auto: the recipe for the model's "
            "architecture (adam and adamw are beyond the specification)",
     WEBNNM_CHOICE(optimizer, OptimizerKind)},
    {.name = "weightDecay",
     .type = HyperType::kReal,
     .default_text = "the optimizer's",
     .max = 100,
     .doc = "weight decay of every optimizer",
     .optional = true,
     WEBNNM_OPTIONAL_REAL(weight_decay)},
    {.name = "momentumFactor",
     .type = HyperType::kReal,
     .default_text = "the optimizer's",
     .max = 1,
     .doc = "momentum of sgdm and nesterov",
     .optional = true,
     WEBNNM_OPTIONAL_REAL(momentum_factor)},
    {.name = "beta1",
     .type = HyperType::kReal,
     .default_text = "the optimizer's",
     .max = 1,
     .doc = "interpolation of lion and rlion; the first moment's decay of "
            "adam and adamw",
     .optional = true,
     WEBNNM_OPTIONAL_REAL(beta1)},
    {.name = "beta2",
     .type = HyperType::kReal,
     .default_text = "the optimizer's",
     .max = 1,
     .doc = "momentum decay of lion and rlion; the second moment's decay of "
            "adam and adamw",
     .optional = true,
     WEBNNM_OPTIONAL_REAL(beta2)},
    {.name = "freeze",
     .type = HyperType::kReal,
     .default_text = "0",
     .max = 1,
     .doc = "the proportion of layers to freeze, from the inputs",
     WEBNNM_REAL(freeze)},
    {.name = "regularization",
     .type = HyperType::kChoice,
     .default_text = "auto",
     .choices = {"auto", "L1", "L2", "L1+L2", "off"},
     .doc = "weight penalties; 'auto': the expert system decides",
     WEBNNM_CHOICE(regularization, Regularization)},
    {.name = "lambda1",
     .type = HyperType::kReal,
     .default_text = "0",
     .max = 100,
     .doc = "the weight of the L1 penalty",
     WEBNNM_REAL(lambda1)},
    {.name = "lambda2",
     .type = HyperType::kReal,
     .default_text = "0",
     .max = 100,
     .doc = "the weight of the L2 penalty",
     WEBNNM_REAL(lambda2)},
    {.name = "optimizeFor",
     .type = HyperType::kChoice,
     .default_text = "size",
     .choices = {"size", "edge"},
     .doc = "what the expert system optimizes the model for",
     WEBNNM_CHOICE(optimize_for, OptimizeFor)},
    {.name = "gradientScaling",
     .type = HyperType::kChoice,
     .default_text = "auto",
     .choices = {"auto", "on", "off"},
     .doc = "dynamic loss scaling",
     WEBNNM_CHOICE(gradient_scaling, GradientScaling)},
    {.name = "gradientClipping",
     .type = HyperType::kChoice,
     .default_text = "auto",
     .choices = {"auto", "global", "agc", "off"},
     .doc = "global-norm clipping, adaptive clipping (AGC) or none",
     WEBNNM_CHOICE(gradient_clipping, GradientClipping)},
    {.name = "scale",
     .type = HyperType::kReal,
     .default_text = "1000",
     .max = 1e30,
     .min_exclusive = true,
     .doc = "the initial gradient scale of dynamic loss scaling",
     WEBNNM_REAL(scale)},
    {.name = "growthInterval",
     .type = HyperType::kInteger,
     .default_text = "1000",
     .min = 1,
     .max = 1 << 30,
     .doc = "clean batches before the gradient scale doubles",
     WEBNNM_INT(growth_interval)},
    {.name = "seed",
     .type = HyperType::kSeed,
     .default_text = "1",
     .doc = "the seed of every random choice (split, init, scouting, "
            "shuffling, dropout)",
     WEBNNM_ACCESS(seed, HyperValue(h.seed), h.seed = std::get<uint64_t>(v))},
    {.name = "threads",
     .type = HyperType::kInteger,
     .default_text = "1",
     .min = 1,
     .max = 256,
     .doc = "compute threads: a heavy step's batch is shared among them "
            "(the daemon caps them)",
     WEBNNM_INT(threads)},
    {.name = "replicas",
     .type = HyperType::kInteger,
     .default_text = "1",
     .min = 1,
     .max = 64,
     .doc = "data-parallel replicas sharing every batch: processes (train "
            "--local) or daemons (cluster mode), summing gradients with Gloo",
     WEBNNM_INT(replicas)},
    {.name = "batchSize",
     .type = HyperType::kInteger,
     .default_text = "auto",
     .min = 1,
     .max = 1 << 20,
     .doc = "samples per training step; auto: from the training set's size",
     .optional = true,
     WEBNNM_AUTO_INT(batch_size)},
    {.name = "clipAlpha",
     .type = HyperType::kReal,
     .default_text = "0.99",
     .max = 1,
     .doc = "decay of the clipping statistics (rolling mean and deviation)",
     WEBNNM_REAL(clip_alpha)},
    {.name = "agcLambda",
     .type = HyperType::kReal,
     .default_text = "0.01",
     .max = 100,
     .min_exclusive = true,
     .doc = "AGC's threshold on gradient to weight norms",
     WEBNNM_REAL(agc_lambda)},
    {.name = "timeBudget",
     .type = HyperType::kReal,
     .default_text = "none",
     .max = 1e7,
     .min_exclusive = true,
     .doc = "seconds of training: the automatic length plans within it, and "
            "training stops at the first epoch boundary after it",
     .optional = true,
     WEBNNM_OPTIONAL_REAL(time_budget)},
    {.name = "epsilon",
     .type = HyperType::kReal,
     .default_text = "the optimizer's",
     .max = 1,
     .min_exclusive = true,
     .doc = "the term adam and adamw add to the second moment's root",
     .optional = true,
     WEBNNM_OPTIONAL_REAL(epsilon)},
};

#undef WEBNNM_ACCESS
#undef WEBNNM_INT
#undef WEBNNM_AUTO_INT
#undef WEBNNM_REAL
#undef WEBNNM_OPTIONAL_REAL
#undef WEBNNM_CHOICE

absl::Status Bad(const HyperparameterInfo& info, std::string_view why) {
  return absl::InvalidArgumentError(
      StrCat("hyperparameter ", info.name, ": ", why));
}

// A value as messages echo it: at most 200 characters.
std::string Clip(std::string_view text) {
  if (text.size() <= 200) return std::string(text);
  return StrCat(text.substr(0, 200), "…");
}

std::string Number(double v) { return FormatHyperValue(v); }

std::string RangeText(const HyperparameterInfo& info) {
  if (info.type == HyperType::kInteger) {
    return StrCat(static_cast<int64_t>(info.min), "..",
                  static_cast<int64_t>(info.max));
  }
  return StrCat(info.min_exclusive ? "(" : "[", Number(info.min), ", ",
                Number(info.max), "]");
}

std::string ChoicesText(const HyperparameterInfo& info) {
  std::string list;
  for (std::string_view c : info.choices) {
    list += StrCat(list.empty() ? "" : ", ", c);
  }
  return list;
}

const char* TypeName(HyperType type) {
  switch (type) {
    case HyperType::kInteger:
      return "integer";
    case HyperType::kSeed:
      return "seed";
    case HyperType::kReal:
      return "number";
    case HyperType::kChoice:
      return "choice";
    case HyperType::kWeights:
      return "weights";
  }
  return "";
}

// The kind of value an entry holds, as the messages name it.
const char* ValueKind(HyperType type) {
  switch (type) {
    case HyperType::kInteger:
      return "an integer";
    case HyperType::kSeed:
      return "a non-negative integer";
    case HyperType::kReal:
      return "a number";
    case HyperType::kChoice:
    case HyperType::kWeights:
      return "a text";
  }
  return "a value";
}

// The name of choice `index` of the entry `name`.
const char* ChoiceName(std::string_view name, int index) {
  const HyperparameterInfo* info = FindHyperparameter(name);
  return info->choices[static_cast<size_t>(index)].data();
}

}  // namespace

std::span<const HyperparameterInfo> HyperparameterTable() { return kTable; }

const HyperparameterInfo* FindHyperparameter(std::string_view name) {
  for (const HyperparameterInfo& info : kTable) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string FlagName(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') {
      out += '-';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

std::string ProtoFieldName(std::string_view name) {
  std::string out = FlagName(name);
  for (char& c : out) c = c == '-' ? '_' : c;
  return out;
}

std::optional<HyperValue> GetHyperparameter(const Hyperparameters& h,
                                            const HyperparameterInfo& info) {
  std::optional<HyperValue> v = info.get(h);
  if (v && info.type == HyperType::kChoice) {
    return HyperValue(
        std::string(info.choices[static_cast<size_t>(std::get<int64_t>(*v))]));
  }
  return v;
}

absl::Status CheckHyperparameter(const HyperparameterInfo& info,
                                 const HyperValue& value) {
  switch (info.type) {
    case HyperType::kInteger: {
      const int64_t* v = std::get_if<int64_t>(&value);
      if (!v) return Bad(info, StrCat("must be ", ValueKind(info.type)));
      if (*v < info.min || *v > info.max) {
        return Bad(info, StrCat(*v, " is outside ", RangeText(info)));
      }
      return absl::OkStatus();
    }
    case HyperType::kSeed:
      if (!std::holds_alternative<uint64_t>(value)) {
        return Bad(info, StrCat("must be ", ValueKind(info.type)));
      }
      return absl::OkStatus();
    case HyperType::kReal: {
      const double* v = std::get_if<double>(&value);
      if (!v) return Bad(info, StrCat("must be ", ValueKind(info.type)));
      if (!std::isfinite(*v)) return Bad(info, "must be a finite number");
      const bool low =
          info.min_exclusive ? !(*v > info.min) : !(*v >= info.min);
      if (low || *v > info.max) {
        return Bad(info, StrCat(Number(*v), " is outside ", RangeText(info)));
      }
      return absl::OkStatus();
    }
    case HyperType::kChoice: {
      const std::string* v = std::get_if<std::string>(&value);
      if (!v) return Bad(info, StrCat("must be one of ", ChoicesText(info)));
      for (std::string_view c : info.choices) {
        if (*v == c) return absl::OkStatus();
      }
      return Bad(info,
                 StrCat("'", Clip(*v), "' is not one of ", ChoicesText(info)));
    }
    case HyperType::kWeights: {
      const std::string* v = std::get_if<std::string>(&value);
      if (!v || !ParseLossWeights(*v)) {
        return Bad(info, StrCat("takes 'auto' or one non-negative weight per "
                                "output, comma-separated; not '",
                                v ? Clip(*v) : std::string(), "'"));
      }
      return absl::OkStatus();
    }
  }
  return absl::InternalError("unknown hyperparameter type");
}

absl::Status SetHyperparameter(Hyperparameters& h,
                               const HyperparameterInfo& info,
                               const HyperValue& value) {
  absl::Status ok = CheckHyperparameter(info, value);
  if (!ok.ok()) return ok;
  if (info.type == HyperType::kChoice) {
    for (size_t i = 0; i < info.choices.size(); ++i) {
      if (std::get<std::string>(value) == info.choices[i]) {
        info.set(h, HyperValue(static_cast<int64_t>(i)));
      }
    }
    return absl::OkStatus();
  }
  info.set(h, value);
  return absl::OkStatus();
}

absl::StatusOr<HyperValue> ParseHyperValue(const HyperparameterInfo& info,
                                           std::string_view text) {
  const std::string t(text);
  auto not_a = [&] {
    return Bad(info, StrCat("'", Clip(t), "' is not ", ValueKind(info.type)));
  };
  switch (info.type) {
    case HyperType::kInteger: {
      int64_t v = 0;
      auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (t.empty() || error != std::errc() || end != t.data() + t.size()) {
        return not_a();
      }
      return HyperValue(v);
    }
    case HyperType::kSeed: {
      uint64_t v = 0;
      auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (t.empty() || error != std::errc() || end != t.data() + t.size()) {
        return not_a();
      }
      return HyperValue(v);
    }
    case HyperType::kReal: {
      char* end = nullptr;
      double v = std::strtod(t.c_str(), &end);
      if (t.empty() || end != t.c_str() + t.size()) return not_a();
      return HyperValue(v);
    }
    case HyperType::kChoice:
    case HyperType::kWeights:
      return HyperValue(t);
  }
  return absl::InternalError("unknown hyperparameter type");
}

absl::Status SetHyperparameterText(Hyperparameters& h,
                                   const HyperparameterInfo& info,
                                   std::string_view text) {
  absl::StatusOr<HyperValue> value = ParseHyperValue(info, text);
  if (!value.ok()) return value.status();
  return SetHyperparameter(h, info, *value);
}

absl::StatusOr<Hyperparameters> ResolveHyperparameters(
    const HyperparameterValues& given) {
  Hyperparameters h;
  // In the table's order, so that the first refusal is always the same.
  for (const HyperparameterInfo& info : kTable) {
    auto it = given.find(std::string(info.name));
    if (it == given.end()) continue;
    absl::Status set = SetHyperparameter(h, info, it->second);
    if (!set.ok()) return set;
  }
  for (const auto& [name, value] : given) {
    if (FindHyperparameter(name) == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("unknown hyperparameter '", Clip(name), "'"));
    }
  }
  return h;
}

absl::Status ValidateHyperparameters(const Hyperparameters& h) {
  for (const HyperparameterInfo& info : kTable) {
    std::optional<HyperValue> v = GetHyperparameter(h, info);
    if (!v) continue;
    absl::Status ok = CheckHyperparameter(info, *v);
    if (!ok.ok()) return ok;
  }
  return absl::OkStatus();
}

std::string FormatHyperValue(const HyperValue& value) {
  if (const int64_t* v = std::get_if<int64_t>(&value)) return StrCat(*v);
  if (const uint64_t* v = std::get_if<uint64_t>(&value)) return StrCat(*v);
  if (const double* v = std::get_if<double>(&value)) {
    char buffer[40];
    if (*v == std::floor(*v) && std::fabs(*v) < 1e15) {
      std::snprintf(buffer, sizeof buffer, "%.0f", *v);  // 1000, not 1e+03
      return buffer;
    }
    // The shortest text that reads back as the same double.
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(buffer, sizeof buffer, "%.*g", digits, *v);
      if (std::strtod(buffer, nullptr) == *v) break;
    }
    return buffer;
  }
  return std::get<std::string>(value);
}

const char* OptimizerName(OptimizerKind kind) {
  return ChoiceName("optimizer", static_cast<int>(kind));
}
const char* RegularizationName(Regularization r) {
  return ChoiceName("regularization", static_cast<int>(r));
}
const char* OptimizeForName(OptimizeFor o) {
  return ChoiceName("optimizeFor", static_cast<int>(o));
}
const char* GradientScalingName(GradientScaling s) {
  return ChoiceName("gradientScaling", static_cast<int>(s));
}
const char* GradientClippingName(GradientClipping c) {
  return ChoiceName("gradientClipping", static_cast<int>(c));
}

std::optional<OptimizerKind> ParseOptimizer(std::string_view name) {
  const HyperparameterInfo* info = FindHyperparameter("optimizer");
  for (size_t i = 0; i < info->choices.size(); ++i) {
    if (name == info->choices[i]) return static_cast<OptimizerKind>(i);
  }
  return std::nullopt;
}

std::optional<std::vector<double>> ParseLossWeights(std::string_view text) {
  if (text == "auto") return std::vector<double>{};
  if (text.empty() || text.back() == ',') return std::nullopt;
  std::vector<double> weights;
  std::stringstream in{std::string(text)};
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    double w = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(w >= 0) || !std::isfinite(w)) {
      return std::nullopt;
    }
    weights.push_back(w);
  }
  return weights;
}

std::string LossWeightsText(const std::vector<double>& weights) {
  if (weights.empty()) return "auto";
  std::string out;
  for (double w : weights) {
    out += StrCat(out.empty() ? "" : ",", FormatHyperValue(w));
  }
  return out;
}

std::string HyperparameterTableMarkdown() {
  std::string out =
      "| hyperparameter | flag | type | default | range or choices | what |\n"
      "|---|---|---|---|---|---|\n";
  for (const HyperparameterInfo& info : kTable) {
    std::string range;
    switch (info.type) {
      case HyperType::kInteger:
      case HyperType::kReal:
        range = RangeText(info);
        break;
      case HyperType::kSeed:
        range = StrCat("0..", UINT64_MAX);
        break;
      case HyperType::kChoice:
        range = ChoicesText(info);
        break;
      case HyperType::kWeights:
        range = "auto, or one weight >= 0 per output: 1,0.5";
        break;
    }
    out += StrCat("| `", info.name, "` | `--", FlagName(info.name), "` | ",
                  TypeName(info.type), " | ", info.default_text, " | ", range,
                  " | ", info.doc, " |\n");
  }
  return out;
}

}  // namespace webnnm::train
