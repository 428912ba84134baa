#include "engine/train/evaluator.h"

#include <algorithm>
#include <cmath>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "engine/train/sequence.h"

namespace webnnm::train {

absl::StatusOr<Evaluator> Evaluator::Make(const dag::Dag& dag,
                                          const Dataset& data,
                                          const std::vector<OutputSpec>& specs,
                                          int64_t batch, int threads,
                                          backends::Backend& backend) {
  ASSIGN_OR_RETURN(const int64_t sequence, SequenceLength(dag, data));
  ASSIGN_OR_RETURN(ir::Graph graph, BuildEvaluationGraph(dag, batch, sequence,
                                                         data.ragged(), specs));
  backends::CompileOptions options;
  options.threads = threads;
  Evaluator e;
  ASSIGN_OR_RETURN(e.exe_, backend.Compile(graph, options));
  e.specs_ = specs;
  for (const OutputSpec& spec : specs) e.weights_.push_back(spec.weight);
  e.offsets_.assign(specs.size(), 0.0);
  e.batch_ = batch;
  e.feeder_ = std::make_unique<Feeder>(dag, data, specs, batch);
  RETURN_IF_ERROR(e.feeder_->Bind(*e.exe_));
  ASSIGN_OR_RETURN(std::vector<size_t> match, MatchTargets(data, specs));
  for (size_t k = 0; k < specs.size(); ++k) {
    const OutputSpec& spec = specs[k];
    Metered m;
    m.value_out = e.exe_->FindOutput("value:" + spec.name);
    m.scored_out = e.exe_->FindOutput("scored:" + spec.name);
    m.targets = match[k];
    m.classification = IsClassification(spec.loss);
    m.rule = ClassRuleOf(dag, spec);
    // Classes are measured where each unit is a class (or one unit two).
    const size_t classes = data.targets()[m.targets].classes.size();
    if (m.classification && m.rule.units > 1 &&
        classes != static_cast<size_t>(m.rule.units)) {
      m.value_out = -1;
    }
    e.metered_.push_back(m);
  }
  return e;
}

void Evaluator::ShiftRegressions(const Dataset& data,
                                 const std::vector<int64_t>& samples,
                                 std::vector<RegressionAccumulator>& r) const {
  for (size_t k = 0; k < metered_.size(); ++k) {
    const Metered& m = metered_[k];
    if (m.value_out < 0 || m.classification) continue;
    const Targets& t = data.targets()[m.targets];
    const int64_t width = m.rule.units;
    const Standardization& ts = t.standardization;
    // The first real step of the subset's first sample that has one: what
    // a replica measuring every batch would add first.
    for (int64_t sample : samples) {
      if (t.sequenced && data.RealSteps(sample, t.steps) == 0) continue;
      const float* y = data.target(sample, m.targets);
      std::vector<float> actual(y, y + width);
      if (!ts.empty() && static_cast<int64_t>(ts.mean.size()) == width) {
        for (int64_t u = 0; u < width; ++u) {
          actual[u] = y[u] * ts.stddev[u] + ts.mean[u];
        }
      }
      r[k].SetShift(actual.data());
      break;
    }
  }
}

absl::Status Evaluator::Measure(const Dataset& data,
                                const std::vector<int64_t>& samples,
                                size_t begin,
                                std::vector<ClassificationAccumulator>& c,
                                std::vector<RegressionAccumulator>& r) const {
  const size_t rows =
      std::min<size_t>(static_cast<size_t>(batch_), samples.size() - begin);
  for (size_t k = 0; k < metered_.size(); ++k) {
    const Metered& m = metered_[k];
    if (m.value_out < 0) continue;  // not measured
    std::span<const std::byte> bytes = exe_->output(m.value_out);
    const float* values = reinterpret_cast<const float*>(bytes.data());
    const Targets& t = data.targets()[m.targets];
    // A row holds `steps` steps of `width` values (steps 1 unless the
    // output is sequenced); each real step is scored as a sample is.
    const int64_t row_values = static_cast<int64_t>(bytes.size() / 4) / batch_;
    const int64_t steps = t.sequenced ? t.steps : 1;
    const int64_t width = row_values / steps;
    // Regression figures in the targets' original units.
    const Standardization& ts = t.standardization;
    std::vector<float> predicted(width), actual(width);
    for (size_t row = 0; row < rows; ++row) {
      const int64_t sample = samples[begin + row];
      const int64_t real = t.sequenced ? data.RealSteps(sample, steps) : 1;
      for (int64_t step = 0; step < real; ++step) {
        const float* v = values + row * row_values + step * width;
        if (m.classification) {
          c[k].Add(v, data.label(sample, m.targets, step));
          continue;
        }
        const float* y = data.target(sample, m.targets) + step * width;
        if (ts.empty() || static_cast<int64_t>(ts.mean.size()) != width) {
          r[k].Add(v, y);
          continue;
        }
        for (int64_t u = 0; u < width; ++u) {
          predicted[u] = v[u] * ts.stddev[u] + ts.mean[u];
          actual[u] = y[u] * ts.stddev[u] + ts.mean[u];
        }
        r[k].Add(predicted.data(), actual.data());
      }
    }
  }
  return absl::OkStatus();
}

void Evaluator::SetParameters(const Params& params) {
  for (const auto& [name, values] : params) {
    int i = exe_->FindInput(name);
    if (i >= 0) WriteFloats(*exe_, i, values.data(), values.size());
  }
  for (size_t k = 0; k < specs_.size(); ++k) {
    auto s = params.find("uncertainty:" + specs_[k].name);
    if (s != params.end() && s->second.size() == 1) {
      weights_[k] = std::exp(-static_cast<double>(s->second[0])) / 2;
      offsets_[k] = static_cast<double>(s->second[0]) / 2;
    }
  }
}

absl::StatusOr<Evaluation> Evaluator::Run(const Dataset& data, Subset subset,
                                          bool metrics,
                                          Collective* collective) {
  const std::vector<int64_t>& samples = data.subset(subset);
  std::vector<ClassificationAccumulator> classes;
  std::vector<RegressionAccumulator> regressions;
  for (const Metered& m : metered_) {
    const Targets& t = data.targets()[m.targets];
    classes.emplace_back(t.classes, m.rule);
    regressions.emplace_back(m.rule.units);
  }
  const size_t n = specs_.size();
  std::vector<int> sum_out(n), count_out(n), correct_out(n);
  for (size_t k = 0; k < n; ++k) {
    sum_out[k] = exe_->FindOutput("lossSum:" + specs_[k].name);
    count_out[k] = exe_->FindOutput("lossCount:" + specs_[k].name);
    correct_out[k] = exe_->FindOutput("correct:" + specs_[k].name);
  }
  std::vector<double> sum(n, 0), count(n, 0), correct(n, 0), scored(n, 0);
  if (metrics) ShiftRegressions(data, samples, regressions);
  const size_t stride = collective ? collective->size() : 1;
  const size_t first = collective ? collective->rank() : 0;
  for (size_t begin = first * batch_; begin < samples.size();
       begin += stride * batch_) {
    RETURN_IF_ERROR(feeder_->Fill(*exe_, samples, begin));
    RETURN_IF_ERROR(exe_->Run());
    for (size_t k = 0; k < n; ++k) {
      sum[k] += ReadScalar(*exe_, sum_out[k]);
      count[k] += ReadScalar(*exe_, count_out[k]);
      if (correct_out[k] >= 0) correct[k] += ReadScalar(*exe_, correct_out[k]);
      if (metered_[k].scored_out >= 0) {
        scored[k] += ReadScalar(*exe_, metered_[k].scored_out);
      }
    }
    if (metrics) {
      RETURN_IF_ERROR(Measure(data, samples, begin, classes, regressions));
    }
  }
  if (collective) {
    // The replicas' sums, and their metrics' counts and sums, summed.
    std::vector<double> sums;
    for (const std::vector<double>* v : {&sum, &count, &correct, &scored}) {
      sums.insert(sums.end(), v->begin(), v->end());
    }
    for (size_t k = 0; metrics && k < n; ++k) {
      const std::vector<double> p = metered_[k].classification
                                        ? classes[k].Pack()
                                        : regressions[k].Pack();
      sums.insert(sums.end(), p.begin(), p.end());
    }
    RETURN_IF_ERROR(collective->AllReduceSum(std::span<double>(sums)));
    size_t at = 0;
    for (std::vector<double>* v : {&sum, &count, &correct, &scored}) {
      for (double& x : *v) x = sums[at++];
    }
    for (size_t k = 0; metrics && k < n; ++k) {
      const size_t size = metered_[k].classification
                              ? classes[k].Pack().size()
                              : regressions[k].Pack().size();
      if (metered_[k].classification) {
        classes[k].Unpack(sums.data() + at);
      } else {
        regressions[k].Unpack(sums.data() + at);
      }
      at += size;
    }
  }
  Evaluation e;
  e.samples = static_cast<int64_t>(samples.size());
  double accuracy_sum = 0;
  int classified = 0;
  for (size_t k = 0; k < n; ++k) {
    OutputScore score;
    score.loss = count[k] > 0 ? sum[k] / count[k] : 0;
    // Right rows (or steps) of those scored.
    const double of = metered_[k].scored_out >= 0
                          ? scored[k]
                          : static_cast<double>(e.samples);
    if (correct_out[k] >= 0 && of > 0) {
      score.accuracy = correct[k] / of;
      accuracy_sum += *score.accuracy;
      ++classified;
    }
    e.loss += n == 1 ? score.loss : weights_[k] * score.loss + offsets_[k];
    e.outputs[specs_[k].name] = score;
  }
  if (classified > 0) e.accuracy = accuracy_sum / classified;
  for (size_t k = 0; metrics && k < n; ++k) {
    if (metered_[k].value_out < 0) continue;
    OutputMetrics& m = e.metrics[specs_[k].name];
    m.classification = metered_[k].classification;
    if (m.classification) {
      m.classes = classes[k].Finish();
    } else {
      m.regression = regressions[k].Finish();
    }
  }
  return e;
}

}  // namespace webnnm::train
