// Scouting: candidates ranked by health, the liveness check, and a dead
// network replaced by the next scouted start (iris with five scouting
// seeds, where the first choice's relu units all die in the warmup), also
// across a snapshot.
#include "engine/expert/scout.h"

#include <algorithm>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "engine/train/data_source.h"
#include "engine/train/trainer.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

using ::testing::HasSubstr;

constexpr char kIris[] = R"(
model:input shape=[4];
model:output shape=[3];
model:loss CCE;
model:layers
    dense(shape=[3], activation=relu),
    dense(shape=[3], activation=softmax);
dense:layers
    matmul(w),
    add(b),
    activation();
)";

dag::Dag Build(const char* text) {
  CheckResult check = CheckModel("m.wnm", text);
  EXPECT_TRUE(check.ok) << check.rendered;
  return *check.dag;
}

// The bias added to the first matmul's result.
std::string FirstBias(const dag::Dag& dag) {
  for (const auto& [name, id] : TrainableParameters(dag)) {
    if (dag.graph.node(id).parameter.role == ir::ParamRole::kBias) return name;
  }
  return "";
}

StepConfig Config(const dag::Dag& dag, int64_t batch) {
  StepConfig config;
  config.batch = batch;
  config.outputs = {{.name = dag.outputs[0].name,
                     .loss = LossKind::kCategoricalCrossEntropy}};
  return config;
}

TEST(Scouter, RanksCandidatesBestFirst) {
  dag::Dag dag = Build(kIris);
  Dataset data = testing::Blobs(60, 4, 3, 7);
  ASSERT_TRUE(data.Split(100, 0, 0, 1).ok());
  auto backend = backends::CreateBackend("cpu");
  ASSERT_TRUE(backend.ok());
  StepConfig config = Config(dag, 16);
  absl::StatusOr<Scouter> scouter =
      Scouter::Make(dag, data, config.outputs, config, 1, **backend);
  ASSERT_TRUE(scouter.ok()) << scouter.status();
  absl::StatusOr<std::vector<RankedCandidate>> ranked =
      scouter->RankCandidates(5, 12, FirstLayerWeights(dag), 1.0);
  ASSERT_TRUE(ranked.ok()) << ranked.status();
  ASSERT_EQ(ranked->size(), 12u);
  std::set<int> ks;
  for (size_t i = 0; i < ranked->size(); ++i) {
    ks.insert((*ranked)[i].k);
    if (i > 0) {
      EXPECT_GE((*ranked)[i - 1].health.score, (*ranked)[i].health.score);
    }
  }
  EXPECT_EQ(ks.size(), 12u);
  // Measure() of a candidate gives the score it was ranked by.
  const RankedCandidate& best = ranked->front();
  absl::StatusOr<Health> again = scouter->Measure(
      CandidateParameters(dag, 5, best.k, FirstLayerWeights(dag), 1.0));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->score, best.health.score);
  EXPECT_NE(ranked->front().health.score, ranked->back().health.score);
}

bool Matter(Scouter& scouter, const Params& params,
            const std::set<std::string>& first) {
  absl::StatusOr<bool> matter = scouter.InputsMatter(params, first, 1.0);
  EXPECT_TRUE(matter.ok()) << matter.status();
  return matter.value_or(false);
}

TEST(Scouter, ADeadLayerStopsTheInputsMattering) {
  dag::Dag dag = Build(kIris);
  Dataset data = testing::Blobs(60, 4, 3, 7);
  ASSERT_TRUE(data.Split(100, 0, 0, 1).ok());
  auto backend = backends::CreateBackend("cpu");
  StepConfig config = Config(dag, 16);
  absl::StatusOr<Scouter> scouter =
      Scouter::Make(dag, data, config.outputs, config, 1, **backend);
  ASSERT_TRUE(scouter.ok()) << scouter.status();
  const std::set<std::string> first = FirstLayerWeights(dag);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(scouter->LivenessSamples(), 60);  // all of them, in 4 batches
  Params params = CandidateParameters(dag, 1, 0, first, 1.0);
  EXPECT_TRUE(Matter(*scouter, params, first));
  // A first-layer bias far below every pre-activation turns all relu units
  // off for every sample: no gradient reaches the first layer's weights.
  const std::string bias = FirstBias(dag);
  ASSERT_EQ(params.at(bias).size(), 3u);
  for (float& b : params[bias]) b = -1000;
  EXPECT_FALSE(Matter(*scouter, params, first));
  // One live unit is enough.
  params[bias][1] = 1000;
  EXPECT_TRUE(Matter(*scouter, params, first));
}

// configs/datasets/iris.csv, split 60,20,20 with seed 1, the issue's
// sgdm hyperparameters and five scouting seeds: the chosen start dies in
// epoch 4 (it trained to 0.333, the class prior, before restarts).
struct Iris {
  dag::Dag dag = Build(kIris);
  Dataset data;
  Hyperparameters hyper;
  Iris() {
    DataSource source{.path = WEBNNM_SOURCE_DIR "/configs/datasets/iris.csv"};
    absl::StatusOr<Dataset> read = ReadDataFor(dag, source);
    EXPECT_TRUE(read.ok()) << read.status();
    data = *std::move(read);
    EXPECT_TRUE(SplitData(data, source, {60, 20, 20}, 1).ok());
    hyper.epochs = 300;
    hyper.optimizer = OptimizerKind::kSgdm;
    hyper.lr = 0.05;
    hyper.batch_size = 16;
    hyper.seeds = 5;
    // The run these tests were built on: its first start dies after epoch
    // 4 and the next one lives (without clipping, two die).
    hyper.gradient_clipping = GradientClipping::kGlobal;
  }
};

int Restarts(const TrainResult& r) {
  return static_cast<int>(std::count_if(
      r.decisions.begin(), r.decisions.end(), [](const Decision& d) {
        return d.what.starts_with("restart from scouting");
      }));
}

TEST(Restart, ADeadNetworkStartsOverFromTheNextScoutedStart) {
  Iris iris;
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r =
      Train(iris.dag, iris.data, iris.hyper, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Restarts(*r), 1);
  EXPECT_EQ(r->state.restarts, 1);
  ASSERT_GE(r->state.scout_ranking.size(), 2u);
  ASSERT_TRUE(r->test.accuracy.has_value());
  EXPECT_GE(*r->test.accuracy, 0.9);  // a dead network stays at 1/3
  EXPECT_LT(r->test.loss, 0.5);       // ln 3 = 1.0986 when dead
  for (const Decision& d : r->decisions) {
    if (d.what.starts_with("restart")) {
      EXPECT_THAT(d.why, HasSubstr("no longer depends on its input"));
    }
  }
}

TEST(Restart, WarnsOnceWhenNoScoutedStartIsLeft) {
  // sgdm at lr 3 kills every start within a few epochs.
  Iris iris;
  iris.hyper.lr = 3;
  iris.hyper.seeds = 3;
  iris.hyper.epochs = 30;
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> r =
      Train(iris.dag, iris.data, iris.hyper, **backend);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->state.scout_ranking.size(), 3u);
  EXPECT_EQ(Restarts(*r), 2);  // every other candidate was tried
  EXPECT_EQ(r->state.restarts, 2);
  int warned = 0;
  for (const std::string& w : r->warnings) {
    if (w.find("no scouted start is left") != std::string::npos) ++warned;
  }
  EXPECT_EQ(warned, 1);
}

TEST(Restart, ResumesBitForBitAcrossARestart) {
  Iris iris;
  auto backend = backends::CreateBackend("cpu");
  auto stop_at = [](int last, std::string* saved, const dag::Dag& dag,
                    int save_at) {
    TrainCallbacks c;
    c.checkpoint = [=, &dag](const TrainState& state) {
      if (state.epoch == save_at) {
        ModelSnapshot s;
        s.state = state;
        s.shapes = ParameterShapes(dag);
        *saved = *EncodeModelSnapshot(s);
      }
      return state.epoch < last;
    };
    return c;
  };
  std::string before, after, unused;
  absl::StatusOr<TrainResult> whole =
      Train(iris.dag, iris.data, iris.hyper, **backend,
            stop_at(12, &before, iris.dag, 2));
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_EQ(whole->state.restarts, 1);
  ASSERT_TRUE(Train(iris.dag, iris.data, iris.hyper, **backend,
                    stop_at(12, &after, iris.dag, 8))
                  .ok());
  for (const std::string* saved : {&before, &after}) {
    absl::StatusOr<ModelSnapshot> snapshot = DecodeModelSnapshot(*saved);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    EXPECT_EQ(snapshot->state.restarts, saved == &before ? 0 : 1);
    absl::StatusOr<TrainResult> resumed =
        Train(iris.dag, iris.data, iris.hyper, **backend,
              stop_at(12, &unused, iris.dag, -1), &snapshot->state);
    ASSERT_TRUE(resumed.ok()) << resumed.status();
    EXPECT_EQ(resumed->state.restarts, 1);
    EXPECT_EQ(resumed->state.params, whole->state.params);
    EXPECT_EQ(resumed->state.momenta, whole->state.momenta);
    EXPECT_EQ(resumed->state.best, whole->state.best);
  }
}

}  // namespace
}  // namespace webnnm::train
