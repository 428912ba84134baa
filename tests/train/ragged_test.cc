// Ragged sequences: a batch of sequences of different lengths, padded to
// the longest and masked (LowerOptions::step_mask), gives the same loss and
// the same update as the loop over the unpadded sequences one by one —
// whatever the padding holds — for lstm, gru and both directions; and a
// model trains on ragged data through the whole path (Train, Evaluator).
#include <algorithm>
#include <cmath>
#include <set>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/check.h"
#include "engine/train/buckets.h"
#include "engine/train/graphs.h"
#include "engine/train/init.h"
#include "engine/train/lower.h"
#include "engine/train/step_runner.h"
#include "engine/train/trainer.h"
#include "tests/train/run_graph.h"
#include "tests/train/step_helpers.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

using testing::GraphRunner;
using ::testing::HasSubstr;
using testing::InitialState;
using testing::Values;

constexpr int64_t kFeatures = 3;

std::string Model(const std::string& layer) {
  return R"(
model:name ragged;
model:input shape={sequence, features: 3};
model:output shape=[2];
model:layers
    )" + layer + R"(,
    dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)";
}

StepConfig Config(int64_t batch, int64_t sequence, bool step_mask) {
  StepConfig config;
  config.batch = batch;
  config.sequence = sequence;
  config.step_mask = step_mask;
  config.outputs = {OutputSpec{.name = "model",
                               .loss = LossKind::kCategoricalCrossEntropy}};
  config.optimizer = OptimizerKind::kSgdm;
  config.optimizer_params = DefaultOptimizerParams(OptimizerKind::kSgdm);
  return config;
}

// Four sequences of lengths 5, 2, 4 and 1 (3 values a step) and their
// one-hot targets.
struct Sequences {
  std::vector<int64_t> lengths = {5, 2, 4, 1};
  std::vector<std::vector<double>> steps;  // per sample, length × 3
  std::vector<int> labels = {1, 0, 0, 1};
};

Sequences MakeSequences() {
  Sequences s;
  testing::Noise noise(17);
  for (int64_t length : s.lengths) {
    std::vector<double> values;
    for (int64_t v = 0; v < length * kFeatures; ++v) values.push_back(noise());
    s.steps.push_back(values);
  }
  return s;
}

void ExpectPaddedEqualsTheLoop(const std::string& layer) {
  SCOPED_TRACE(layer);
  CheckResult check = CheckModel("r.wnm", Model(layer));
  ASSERT_TRUE(check.ok) << check.rendered;
  const dag::Dag& dag = *check.dag;
  const Values state = InitialState(dag);
  const Sequences s = MakeSequences();
  const int64_t n = static_cast<int64_t>(s.lengths.size()), longest = 5;

  // The padded batch: [B, T, 3] with garbage past each length (masking must
  // make it irrelevant), the step mask [T, B, 1].
  Values padded;
  padded["in:stepMask"].assign(longest * n, 0.0);
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t t = 0; t < longest; ++t) {
      for (int64_t f = 0; f < kFeatures; ++f) {
        const bool real = t < s.lengths[r];
        padded["model"].push_back(real ? s.steps[r][t * kFeatures + f]
                                       : 50.0 * (f + 1));
      }
      if (t < s.lengths[r]) padded["in:stepMask"][t * n + r] = 1.0;
    }
    padded["target:model"].push_back(s.labels[r] == 0 ? 1 : 0);
    padded["target:model"].push_back(s.labels[r] == 1 ? 1 : 0);
    padded["in:mask"].push_back(1);
  }
  absl::StatusOr<Values> together =
      testing::RunStep(dag, Config(n, longest, true), state, padded);
  ASSERT_TRUE(together.ok()) << together.status();

  // The loop: each sequence alone at its own length, unmasked.
  double loss = 0;
  std::map<std::string, std::vector<double>> mean_update;
  for (int64_t r = 0; r < n; ++r) {
    Values one;
    one["model"] = s.steps[r];
    one["target:model"] = {s.labels[r] == 0 ? 1.0 : 0.0,
                           s.labels[r] == 1 ? 1.0 : 0.0};
    one["in:mask"] = {1};
    absl::StatusOr<Values> alone =
        testing::RunStep(dag, Config(1, s.lengths[r], false), state, one);
    ASSERT_TRUE(alone.ok()) << alone.status();
    loss += (*alone)["loss"][0] / n;
    for (const auto& [name, id] : TrainableParameters(dag)) {
      const std::vector<double>& after = (*alone)["new:" + name];
      std::vector<double>& sum = mean_update[name];
      sum.resize(after.size(), 0.0);
      for (size_t k = 0; k < after.size(); ++k) {
        sum[k] += (after[k] - state.at(name)[k]) / n;
      }
    }
  }
  EXPECT_NEAR((*together)["loss"][0], loss, 1e-5);
  // SGD from zero momentum: an update is linear in its gradient, so the
  // batch's (the mean gradient's) is the mean of the sequences' updates.
  for (const auto& [name, id] : TrainableParameters(dag)) {
    const std::vector<double>& after = (*together)["new:" + name];
    ASSERT_EQ(after.size(), mean_update[name].size()) << name;
    double largest = 0;
    for (size_t k = 0; k < after.size(); ++k) {
      const double update = after[k] - state.at(name)[k];
      largest = std::max(largest, std::fabs(update));
      EXPECT_NEAR(update, mean_update[name][k], 1e-5) << name << "[" << k
                                                      << "]";
    }
    EXPECT_GT(largest, 1e-4) << name << " did not move";
  }
}

TEST(Ragged, AnLstmBatchEqualsTheLoopOverUnpaddedSequences) {
  ExpectPaddedEqualsTheLoop(
      "lstm(w, r, hiddenSize=4, bias=b, recurrentBias=rb)");
}

TEST(Ragged, AGruBatchEqualsTheLoopOverUnpaddedSequences) {
  ExpectPaddedEqualsTheLoop(
      "gru(w, r, hiddenSize=4, bias=b, recurrentBias=rb)");
}

TEST(Ragged, BothDirectionsEqualTheLoopOverUnpaddedSequences) {
  ExpectPaddedEqualsTheLoop(
      "lstm(w, r, hiddenSize=4, bias=b, recurrentBias=rb, direction=both)");
}

TEST(Ragged, ModelsThatCannotBeMaskedAreRefused) {
  // Steps mixed without a recurrent layer (attention over the sequence):
  // the padded steps would be attended to.
  CheckResult mixed = CheckModel("f.wnm", R"(
model:input shape={sequence, features: 4};
model:output shape={sequence, tags: 2};
model:layers attend(q, k, v, heads=2),
    dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(mixed.ok) << mixed.rendered;
  absl::StatusOr<ir::Graph> g =
      BuildTrainingGraph(*mixed.dag, Config(2, 4, true));
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(),
              HasSubstr("ragged sequences (per-sample lengths) are masked in "
                        "the lstm and gru layers that run over them, or step "
                        "by step up to a sequenced output, and this model "
                        "does neither"));
  // Unmasked, the same model lowers.
  EXPECT_TRUE(BuildTrainingGraph(*mixed.dag, Config(2, 4, false)).ok());
}

// The label is the sign of the last real step's first value: only a model
// whose state stops at each sample's own end can read it (the padding,
// zeros, follows it).
TEST(Ragged, AModelTrainsOnRaggedSequences) {
  CheckResult check = CheckModel(
      "r.wnm", Model("lstm(w, r, hiddenSize=8, bias=b, recurrentBias=rb)"));
  ASSERT_TRUE(check.ok) << check.rendered;
  testing::Noise noise(23);
  const int n = 500, longest = 6;
  std::vector<float> values;
  std::vector<float> labels;
  std::vector<int64_t> lengths;
  for (int i = 0; i < n; ++i) {
    const int64_t length = 1 + (i * 7) % longest;
    lengths.push_back(length);
    float last = 0;
    for (int64_t t = 0; t < longest; ++t) {
      for (int64_t f = 0; f < kFeatures; ++f) {
        const float v = t < length ? 2 * noise() : 0.0f;
        if (t == length - 1 && f == 0) last = v;
        values.push_back(v);
      }
    }
    labels.push_back(last > 0 ? 1 : 0);
  }
  Dataset data = Dataset::Make("ragged", longest * kFeatures,
                               std::move(values), 1, std::move(labels), true,
                               {"negative", "positive"});
  ASSERT_TRUE(data.SetLengths(lengths, longest, true).ok());
  ASSERT_TRUE(data.Split(60, 20, 20, 4).ok());
  Hyperparameters h;
  h.epochs = 40;
  h.seeds = 3;
  h.batch_size = 16;
  h.optimizer = OptimizerKind::kSgdm;
  h.lr = 0.1;
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r = Train(*check.dag, data, h, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(*r->test.accuracy, 0.9);
}

TEST(Ragged, LengthsAreChecked) {
  // Two samples of two steps of 3: 1..6 (one real step) and 7..12.
  std::vector<float> values;
  for (int v = 1; v <= 12; ++v) values.push_back(static_cast<float>(v));
  Dataset data = Dataset::Make("d", 6, std::move(values), 1, {0, 1}, true,
                               {"a", "b"});
  EXPECT_THAT(data.SetLengths({1}, 2, true).message(),
              HasSubstr("one length per sample: 2 samples, 1 lengths"));
  EXPECT_THAT(data.SetLengths({1, 3}, 2, true).message(),
              HasSubstr("sample 1 has length 3: lengths must be within 1..2"));
  ASSERT_TRUE(data.SetLengths({1, 2}, 2, true).ok());
  EXPECT_TRUE(data.ragged());
  // A second step's statistics count only the sample that reaches it, and
  // standardization leaves the padding zero.
  data.SetSubset(Subset::kTraining, {0, 1});
  data.Standardize();
  EXPECT_FLOAT_EQ(data.standardization().mean[0], 4.0f);
  EXPECT_FLOAT_EQ(data.standardization().stddev[0], 3.0f);
  EXPECT_FLOAT_EQ(data.standardization().mean[3], 10.0f);
  EXPECT_FLOAT_EQ(data.features(1)[0], 1.0f);
  EXPECT_EQ(data.features(0)[3], 0.0f);
  EXPECT_EQ(data.features(0)[5], 0.0f);
}

TEST(Buckets, LengthsRoundUpToQuartersOfThePaddedLength) {
  std::vector<int64_t> twelve;
  for (int64_t l = 1; l <= 12; ++l) twelve.push_back(BucketLength(l, 12));
  EXPECT_THAT(twelve, ::testing::ElementsAre(3, 3, 3, 6, 6, 6, 9, 9, 9, 12,
                                             12, 12));
  EXPECT_EQ(BucketLength(1, 5), 2);
  EXPECT_EQ(BucketLength(4, 5), 4);
  EXPECT_EQ(BucketLength(5, 5), 5);
  EXPECT_EQ(BucketLength(1, 1), 1);
}

TEST(Buckets, AnEpochIsRegroupedIntoBatchesOfOneBucket) {
  // 50 samples of lengths 1..12 in a shuffled order, batches of 8.
  std::vector<int64_t> lengths, order;
  for (int64_t i = 0; i < 50; ++i) {
    lengths.push_back(1 + (i * 5) % 12);
    order.push_back((i * 17) % 50);
  }
  const std::vector<int64_t> grouped =
      BucketedOrder(order, lengths, 12, 8, 7, 1);
  std::vector<int64_t> sorted = grouped;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> all(50);
  for (int64_t i = 0; i < 50; ++i) all[i] = i;
  EXPECT_EQ(sorted, all);  // a permutation
  // A full batch mixes at most two neighbouring buckets (where one bucket
  // ends and the next begins), so at most three of the six do; most hold
  // one bucket. The short last batch (2 samples) stays last.
  int mixed = 0;
  int64_t padded = 0;
  for (int64_t b = 0; b + 8 <= 50; b += 8) {
    std::set<int64_t> buckets;
    for (int64_t i = b; i < b + 8; ++i) {
      buckets.insert(BucketLength(lengths[grouped[i]], 12));
    }
    EXPECT_LE(buckets.size(), 2u);
    mixed += buckets.size() > 1;
    padded += BatchLength(grouped, b, 8, lengths, 12);
  }
  EXPECT_LE(mixed, 3);
  EXPECT_LT(padded, 6 * 12);  // shorter than padding every batch to 12
  EXPECT_EQ(BatchLength(grouped, 48, 8, lengths, 12),
            BucketLength(std::max(lengths[grouped[48]], lengths[grouped[49]]),
                         12));
  // A function of the seed and the epoch.
  EXPECT_EQ(BucketedOrder(order, lengths, 12, 8, 7, 1), grouped);
  EXPECT_NE(BucketedOrder(order, lengths, 12, 8, 7, 2), grouped);
  EXPECT_NE(BucketedOrder(order, lengths, 12, 8, 8, 1), grouped);
}

TEST(Buckets, OnlyModelsThatCannotTellThePaddingApartAreBucketed) {
  for (const char* layer :
       {"lstm(w, r, hiddenSize=4, bias=b, recurrentBias=rb)",
        "dense(shape=[5], activation=relu), gru(w, r, hiddenSize=4)"}) {
    CheckResult check = CheckModel("r.wnm", Model(layer));
    ASSERT_TRUE(check.ok) << check.rendered;
    EXPECT_TRUE(BucketsKeepTheModel(*check.dag)) << layer;
  }
  // An embedding of ids into an lstm: step-wise.
  CheckResult text = CheckModel("t.wnm", R"(
model:input int32 shape={sequence};
model:output shape=[2];
model:layers embedding(t, vocabulary=9, shape=[3]),
    lstm(w, r, hiddenSize=4), dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(text.ok) << text.rendered;
  EXPECT_TRUE(BucketsKeepTheModel(*text.dag));
  // Batch normalization's statistics run over the batch and its steps,
  // padding included: every batch padded to T.
  CheckResult mixed = CheckModel("m.wnm", R"(
model:input shape={sequence, features: 3};
model:output shape=[2];
model:layers batchNormalization(scale, bias, axis=features),
    lstm(w, r, hiddenSize=4), dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(mixed.ok) << mixed.rendered;
  EXPECT_FALSE(BucketsKeepTheModel(*mixed.dag));
}

TEST(Buckets, AStepPaddedToTheBucketEqualsOnePaddedToTheDataset) {
  // Sequences of 1..4 steps in a dataset padded to 6: the step compiled
  // for 4 steps (their bucket) and the one for 6 give the same loss and the
  // same parameters after a step from the same state.
  CheckResult check = CheckModel(
      "r.wnm", Model("lstm(w, r, hiddenSize=4, bias=b, recurrentBias=rb)"));
  ASSERT_TRUE(check.ok) << check.rendered;
  const dag::Dag& dag = *check.dag;
  testing::Noise noise(5);
  const int n = 8, longest = 6;
  std::vector<float> values;
  std::vector<float> labels;
  std::vector<int64_t> lengths;
  for (int i = 0; i < n; ++i) {
    lengths.push_back(1 + i % 4);
    for (int64_t t = 0; t < longest; ++t) {
      for (int64_t f = 0; f < kFeatures; ++f) {
        values.push_back(t < lengths.back() ? noise() : 0.0f);
      }
    }
    labels.push_back(i % 2);
  }
  Dataset data = Dataset::Make("ragged", longest * kFeatures,
                               std::move(values), 1, std::move(labels), true,
                               {"a", "b"});
  ASSERT_TRUE(data.SetLengths(lengths, longest, true).ok());
  auto backend = backends::CreateBackend("cpu");
  ASSERT_TRUE(backend.ok());
  const StepConfig config = Config(n, longest, true);
  std::vector<int64_t> samples(n);
  for (int i = 0; i < n; ++i) samples[i] = i;
  std::vector<TrainState> after;
  std::vector<double> losses;
  for (int64_t steps : {int64_t{4}, int64_t{0}}) {
    absl::StatusOr<StepRunner> step =
        StepRunner::Make(dag, data, config, 1, **backend, steps);
    ASSERT_TRUE(step.ok()) << step.status();
    TrainState state;
    state.params = InitialParameters(dag, 3);
    for (const std::string& name : step->trained()) {
      state.momenta[name].assign(state.params[name].size(), 0.0f);
    }
    ASSERT_TRUE(step->Load(state, 3).ok());
    absl::StatusOr<StepRunner::Result> r =
        step->Step(samples, 0, 0.5, false, 1000, state);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_TRUE(step->Store(state).ok());
    losses.push_back(r->loss);
    after.push_back(state);
  }
  EXPECT_NEAR(losses[0], losses[1], 1e-5);
  for (const auto& [name, values] : after[1].params) {
    ASSERT_EQ(after[0].params[name].size(), values.size()) << name;
    for (size_t k = 0; k < values.size(); ++k) {
      EXPECT_NEAR(after[0].params[name][k], values[k], 1e-5) << name;
    }
  }
  // A step compiled for fewer steps than a batch's longest sequence would
  // cut it: the trainer pads every batch to its longest's bucket.
  EXPECT_EQ(BatchLength(samples, 0, n, lengths, longest), 4);
}

}  // namespace
}  // namespace webnnm::train
