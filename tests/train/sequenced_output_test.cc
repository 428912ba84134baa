// Sequenced outputs ({sequence, ...}: a label or values a step): the loss
// is the mean over the batch's real steps, so a padded, masked batch of
// ragged sequences gives the loss and the update of the loop over the
// unpadded sequences, each weighed by its length — whatever the padding
// and its targets hold; a model tags words by their context through the
// whole path (Train, Evaluator, metrics per step); and what does not fit
// is refused.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/check.h"
#include "engine/train/evaluator.h"
#include "engine/train/feeder.h"
#include "engine/train/graphs.h"
#include "engine/train/trainer.h"
#include "tests/train/step_helpers.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

using ::testing::HasSubstr;
using testing::InitialState;
using testing::RunStep;
using testing::Values;

constexpr int64_t kFeatures = 3, kTags = 2;

// `layer` returns a sequence; a dense layer gives each step two tags
// (softmax) or, for regression, two values.
std::string Model(const std::string& layer, bool classification) {
  return R"(
model:name tagging;
model:input shape={sequence, features: 3};
model:output shape={sequence, tags: 2};
model:layers
    )" + layer +
         R"(,
    dense(shape=[2], activation=)" +
         (classification ? "softmax" : "identity") + R"();
dense:layers matmul(w), add(b), activation();
)";
}

StepConfig Config(int64_t batch, int64_t sequence, bool step_mask,
                  LossKind loss) {
  StepConfig config;
  config.batch = batch;
  config.sequence = sequence;
  config.step_mask = step_mask;
  config.outputs = {OutputSpec{.name = "model", .loss = loss}};
  config.optimizer = OptimizerKind::kSgdm;
  config.optimizer_params = DefaultOptimizerParams(OptimizerKind::kSgdm);
  return config;
}

// Four sequences of lengths 5, 2, 4 and 1: their steps (3 values each)
// and targets (a tag or two values a step).
struct Sequences {
  std::vector<int64_t> lengths = {5, 2, 4, 1};
  std::vector<std::vector<double>> steps, targets;
};

Sequences MakeSequences(bool classification) {
  Sequences s;
  testing::Noise noise(29);
  for (int64_t length : s.lengths) {
    std::vector<double> values, targets;
    for (int64_t v = 0; v < length * kFeatures; ++v) values.push_back(noise());
    for (int64_t t = 0; t < length; ++t) {
      if (classification) {  // one-hot
        const int tag = noise() > 0 ? 1 : 0;
        targets.push_back(tag == 0);
        targets.push_back(tag == 1);
      } else {
        targets.push_back(2 * noise());
        targets.push_back(noise() + 1);
      }
    }
    s.steps.push_back(values);
    s.targets.push_back(targets);
  }
  return s;
}

void ExpectPaddedEqualsTheWeightedLoop(const std::string& layer,
                                       LossKind loss) {
  SCOPED_TRACE(layer);
  const bool classification = IsClassification(loss);
  CheckResult check = CheckModel("s.wnm", Model(layer, classification));
  ASSERT_TRUE(check.ok) << check.rendered;
  const dag::Dag& dag = *check.dag;
  const Values state = InitialState(dag);
  const Sequences s = MakeSequences(classification);
  const int64_t n = static_cast<int64_t>(s.lengths.size()), longest = 5;
  const double steps = static_cast<double>(
      std::accumulate(s.lengths.begin(), s.lengths.end(), int64_t{0}));

  // The padded batch: inputs and targets [B, T, ...] with garbage past each
  // length (masking must make it irrelevant), the step mask [T, B, 1].
  Values padded;
  padded["in:stepMask"].assign(longest * n, 0.0);
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t t = 0; t < longest; ++t) {
      const bool real = t < s.lengths[r];
      for (int64_t f = 0; f < kFeatures; ++f) {
        padded["model"].push_back(real ? s.steps[r][t * kFeatures + f]
                                       : 50.0 * (f + 1));
      }
      for (int64_t k = 0; k < kTags; ++k) {
        padded["target:model"].push_back(real ? s.targets[r][t * kTags + k]
                                              : 7.0);
      }
      if (real) padded["in:stepMask"][t * n + r] = 1.0;
    }
    padded["in:mask"].push_back(1);
  }
  absl::StatusOr<Values> together =
      RunStep(dag, Config(n, longest, true, loss), state, padded);
  ASSERT_TRUE(together.ok()) << together.status();

  // The loop: each sequence alone at its own length, unmasked. Every step
  // weighs the same in the batch, so a sequence weighs its length.
  double loss_sum = 0;
  std::map<std::string, std::vector<double>> mean_update;
  for (int64_t r = 0; r < n; ++r) {
    Values one;
    one["model"] = s.steps[r];
    one["target:model"] = s.targets[r];
    one["in:mask"] = {1};
    absl::StatusOr<Values> alone =
        RunStep(dag, Config(1, s.lengths[r], false, loss), state, one);
    ASSERT_TRUE(alone.ok()) << alone.status();
    const double weight = static_cast<double>(s.lengths[r]) / steps;
    loss_sum += (*alone)["loss"][0] * weight;
    for (const auto& [name, id] : TrainableParameters(dag)) {
      const std::vector<double>& after = (*alone)["new:" + name];
      std::vector<double>& sum = mean_update[name];
      sum.resize(after.size(), 0.0);
      for (size_t k = 0; k < after.size(); ++k) {
        sum[k] += (after[k] - state.at(name)[k]) * weight;
      }
    }
  }
  EXPECT_NEAR((*together)["loss"][0], loss_sum, 1e-5);
  if (classification) {  // the steps scored
    EXPECT_EQ((*together)["scored:model"][0], steps);
  }
  // SGD from zero momentum: an update is linear in its gradient.
  for (const auto& [name, id] : TrainableParameters(dag)) {
    const std::vector<double>& after = (*together)["new:" + name];
    ASSERT_EQ(after.size(), mean_update[name].size()) << name;
    double largest = 0;
    for (size_t k = 0; k < after.size(); ++k) {
      const double update = after[k] - state.at(name)[k];
      largest = std::max(largest, std::fabs(update));
      EXPECT_NEAR(update, mean_update[name][k], 1e-5)
          << name << "[" << k << "]";
    }
    EXPECT_GT(largest, 1e-4) << name << " did not move";
  }
}

TEST(SequencedOutputs, AnLstmTaggerEqualsTheLoopOverUnpaddedSequences) {
  ExpectPaddedEqualsTheWeightedLoop(
      "lstm(w, r, hiddenSize=4, bias=b, recurrentBias=rb, "
      "returnSequence=true)",
      LossKind::kCategoricalCrossEntropy);
}

TEST(SequencedOutputs, AGruRegressionEqualsTheLoopOverUnpaddedSequences) {
  ExpectPaddedEqualsTheWeightedLoop(
      "gru(w, r, hiddenSize=4, bias=b, recurrentBias=rb, "
      "returnSequence=true)",
      LossKind::kMeanSquaredError);
}

TEST(SequencedOutputs, BothDirectionsEqualTheLoopOverUnpaddedSequences) {
  ExpectPaddedEqualsTheWeightedLoop(
      "lstm(w, r, hiddenSize=4, bias=b, recurrentBias=rb, direction=both, "
      "returnSequence=true)",
      LossKind::kCategoricalCrossEntropy);
}

// A model whose every step goes its own way (no recurrent layer) needs no
// recurrent mask: its sequenced output's loss masks the padding.
TEST(SequencedOutputs, AStepWiseModelLowersForRaggedData) {
  CheckResult check = CheckModel("s.wnm", R"(
model:input shape={sequence, features: 3};
model:output shape={sequence, tags: 2};
model:layers dense(shape=[4], activation=relu),
    dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(check.ok) << check.rendered;
  EXPECT_TRUE(BuildTrainingGraph(
                  *check.dag,
                  Config(2, 4, true, LossKind::kSparseCategoricalCrossEntropy))
                  .ok());
}

// Tagging sentences: ids 0..3 are names, 4 a title, 5..7 other words; a
// name right after the title or a tagged name is tagged 1, every other
// word 0 — names elsewhere included, so a word's tag depends on the words
// before it.
Dataset Sentences(int n, int64_t longest) {
  testing::Noise noise(41);
  std::vector<float> words, tags;
  std::vector<int64_t> lengths;
  auto pick = [&](int k) {
    return std::min(k - 1, static_cast<int>((noise() + 0.5f) * k));
  };
  for (int i = 0; i < n; ++i) {
    const int64_t length = 3 + pick(static_cast<int>(longest) - 2);
    lengths.push_back(length);
    int previous = 0;
    for (int64_t t = 0; t < longest; ++t) {
      int word = 0, tag = 0;
      if (t < length) {
        word = noise() < -0.3f ? 4 : pick(8);
        tag = word < 4 && previous == 1 ? 1 : 0;
        if (word == 4) tag = 1;
      }
      words.push_back(static_cast<float>(word));
      tags.push_back(static_cast<float>(word == 4 ? 0 : tag));
      previous = tag;
    }
  }
  Dataset data = Dataset::Make("sentences", longest, std::move(words), 1,
                               std::move(tags), true, {"other", "name"});
  EXPECT_TRUE(data.SetFirstTargetsSteps(longest).ok());
  EXPECT_TRUE(data.SetLengths(lengths, longest, true).ok());
  EXPECT_TRUE(data.Split(60, 20, 20, 4).ok());
  return data;
}

std::string Tagger(const std::string& middle) {
  return R"(
model:name tagger;
model:input int32 shape={sequence};
model:output shape={sequence, tags: 2};
model:layers
    embedding(table, vocabulary=8, shape=[8]),
    )" + middle +
         R"(,
    dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)";
}

absl::StatusOr<TrainResult> TrainTagger(const std::string& middle,
                                        const Dataset& data) {
  CheckResult check = CheckModel("t.wnm", Tagger(middle));
  if (!check.ok) return absl::InvalidArgumentError(check.rendered);
  Hyperparameters h;
  h.epochs = 30;
  h.seeds = 3;
  h.batch_size = 16;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.3;
  auto backend = backends::CreateBackend("cpu");
  if (!backend.ok()) return backend.status();
  return Train(*check.dag, data, h, **backend);
}

TEST(SequencedOutputs, AnLstmTagsWordsByTheirContext) {
  const Dataset data = Sentences(400, 10);
  int64_t test_steps = 0;
  for (int64_t s : data.subset(Subset::kTest)) {
    test_steps += data.RealSteps(s, 10);
  }
  absl::StatusOr<TrainResult> r = TrainTagger(
      "lstm(w, r, hiddenSize=12, bias=b, recurrentBias=rb, "
      "returnSequence=true)",
      data);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(*r->test.accuracy, 0.97);
  // The metrics count the test subset's real steps, padding left out.
  const ClassificationMetrics& m = r->test.metrics.at("model").classes;
  int64_t counted = 0;
  for (const auto& row : m.confusion) {
    for (int64_t c : row) counted += c;
  }
  EXPECT_EQ(counted, test_steps);
  EXPECT_NEAR(m.accuracy, *r->test.accuracy, 1e-9);
  // Word by word, without the context, a name's tag is a guess.
  absl::StatusOr<TrainResult> alone =
      TrainTagger("dense(shape=[8], activation=relu)", data);
  ASSERT_TRUE(alone.ok()) << alone.status();
  EXPECT_LT(*alone->test.accuracy, 0.92);
}

TEST(SequencedOutputs, OneTargetASampleDoesNotFeedASequencedOutput) {
  CheckResult check =
      CheckModel("t.wnm", Tagger("dense(shape=[4], activation=relu)"));
  ASSERT_TRUE(check.ok) << check.rendered;
  Dataset data =
      Dataset::Make("d", 3, {1, 2, 3, 4, 5, 6}, 1, {0, 1}, true, {"a", "b"});
  const std::vector<OutputSpec> specs = {
      {.name = "model", .loss = LossKind::kCategoricalCrossEntropy}};
  EXPECT_THAT(CheckShapes(*check.dag, data, specs).message(),
              HasSubstr("the output 'model' is a sequence (a label or values "
                        "a step), but the dataset gives one target a sample; "
                        "per-step targets come from a NumPy .npz array "
                        "[N, T] or [N, T, units]"));
  // Per-step targets for an output of one target a sample.
  CheckResult last = CheckModel("l.wnm", R"(
model:input int32 shape={sequence};
model:output shape=[2];
model:layers embedding(table, vocabulary=8, shape=[4]),
    lstm(w, r, hiddenSize=4), dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(last.ok) << last.rendered;
  Dataset steps = Dataset::Make("d", 3, {1, 2, 3, 4, 5, 6}, 1,
                                {0, 1, 0, 1, 1, 0}, true, {"a", "b"});
  ASSERT_TRUE(steps.SetFirstTargetsSteps(3).ok());
  EXPECT_THAT(CheckShapes(*last.dag, steps, specs).message(),
              HasSubstr("takes one target a sample, but the dataset gives a "
                        "target a step"));
  EXPECT_THAT(steps.SetFirstTargetsSteps(4).message(),
              HasSubstr("the targets have 6 values; 2 samples of 4 steps of "
                        "1 need 8"));
}

}  // namespace
}  // namespace webnnm::train
