// Snapshots: the container round-trips every field, rejects corruption
// (magic, version, lengths, checksum, tensor table) with clear errors, is
// written atomically; a run stopped after an epoch, saved, loaded and
// resumed ends bit for bit where the uninterrupted run ends.
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "engine/train/snapshot.h"
#include "engine/train/trainer.h"
#include "tests/train/synthetic_data.h"

namespace webnnm::train {
namespace {

using ::testing::HasSubstr;

ModelSnapshot Sample() {
  ModelSnapshot s;
  s.model_name = "m";
  s.model_file = "m.wnm";
  s.model_source = "model:name m;\n";
  s.dataset = "data.csv";
  s.classes = {"a", "b"};
  s.split = "60,20,20";
  s.standardization = {{1.5f, -2.0f}, {0.5f, 3.0f}};
  s.input_standardization["sound"] = {{4.0f}, {2.0f}};
  TrainState& st = s.state;
  st.hyper.epochs = 7;
  st.hyper.lr = 0.05;
  st.hyper.optimizer = OptimizerKind::kSgdm;
  st.hyper.momentum_factor = 0.8;
  st.hyper.seed = 1234567890123ull;
  st.epoch = 3;
  st.step = 42;
  st.loss_scale = 512;
  st.clean_steps = 9;
  st.clip_mu = 0.25f;
  st.clip_sigma = 0.125f;
  st.clip_first = false;
  st.best_score = 0.5;
  st.best_epoch = 2;
  st.since_best = 1;
  st.best_validation_loss = 0.5;
  st.scout_ranking = {4, 0, 2};
  st.restarts = 1;
  st.init_scale = 0.25;
  st.final_train_loss = 0.75;
  st.train_seconds = 1.25;
  st.trained_samples = 300;
  st.params = {{"w", {1, 2, 3, 4, 5, 6}}, {"b", {0.5f, -0.5f}}};
  st.momenta = {{"w", {0, 1, 0, 1, 0, 1}}, {"b", {2, 3}}};
  st.best = {{"w", {6, 5, 4, 3, 2, 1}}, {"b", {1, 1}}};
  st.decisions = {{"loss CCE", "declared"}};
  st.warnings = {"careful"};
  s.shapes = {{"w", {2, 3}}, {"b", {2}}};
  return s;
}

TEST(Snapshot, RoundTripsEveryField) {
  ModelSnapshot s = Sample();
  absl::StatusOr<std::string> bytes = EncodeModelSnapshot(s);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(bytes->substr(0, 8), "WNNMSNAP");
  absl::StatusOr<ModelSnapshot> back = DecodeModelSnapshot(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->model_source, s.model_source);
  EXPECT_EQ(back->classes, s.classes);
  EXPECT_EQ(back->split, "60,20,20");
  EXPECT_EQ(back->standardization.mean, s.standardization.mean);
  EXPECT_EQ(back->standardization.stddev, s.standardization.stddev);
  ASSERT_EQ(back->input_standardization.count("sound"), 1u);
  EXPECT_EQ(back->input_standardization["sound"].mean,
            std::vector<float>{4.0f});
  EXPECT_EQ(back->input_standardization["sound"].stddev,
            std::vector<float>{2.0f});
  const TrainState& a = s.state;
  const TrainState& b = back->state;
  EXPECT_EQ(b.hyper.epochs, 7);
  EXPECT_EQ(b.hyper.lr, 0.05);
  EXPECT_FALSE(b.hyper.beta1.has_value());
  EXPECT_EQ(b.hyper.momentum_factor, 0.8);
  EXPECT_EQ(b.hyper.optimizer, OptimizerKind::kSgdm);
  EXPECT_EQ(b.hyper.seed, a.hyper.seed);
  EXPECT_EQ(b.epoch, 3);
  EXPECT_EQ(b.step, 42);
  EXPECT_EQ(b.loss_scale, 512);
  EXPECT_EQ(b.clean_steps, 9);
  EXPECT_EQ(b.clip_mu, 0.25f);
  EXPECT_EQ(b.clip_sigma, 0.125f);
  EXPECT_FALSE(b.clip_first);
  EXPECT_EQ(b.best_epoch, 2);
  EXPECT_EQ(b.since_best, 1);
  EXPECT_EQ(b.best_validation_loss, 0.5);
  EXPECT_EQ(b.scout_ranking, (std::vector<int>{4, 0, 2}));
  EXPECT_EQ(b.restarts, 1);
  EXPECT_EQ(b.init_scale, 0.25);
  EXPECT_EQ(b.trained_samples, 300);
  EXPECT_EQ(b.params, a.params);
  EXPECT_EQ(b.momenta, a.momenta);
  EXPECT_EQ(b.best, a.best);
  ASSERT_EQ(b.decisions.size(), 1u);
  EXPECT_EQ(b.decisions[0].why, "declared");
  EXPECT_EQ(b.warnings, a.warnings);
  EXPECT_EQ(back->shapes.at("w"), (std::vector<int64_t>{2, 3}));
}

TEST(Snapshot, KeepsTextColumnsAndAdamsStackedState) {
  ModelSnapshot s = Sample();
  s.text_encoding.columns = {{.name = "sex", .categories = {"f", "m"}},
                             {.name = "port", .categories = {"C", "Q", "S"}}};
  s.text_encoding.dropped = {"name"};
  s.state.hyper.optimizer = OptimizerKind::kAdamW;
  s.state.hyper.epsilon = 1e-6;
  // adam's m and v: two tensors of each parameter's shape, stacked.
  s.state.momenta = {{"w", std::vector<float>(12, 0.5f)},
                     {"b", std::vector<float>(4, 0.25f)}};
  s.state.optimizer_updates = 41;
  absl::StatusOr<std::string> bytes = EncodeModelSnapshot(s);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<ModelSnapshot> back = DecodeModelSnapshot(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->text_encoding, s.text_encoding);
  EXPECT_EQ(back->state.hyper.optimizer, OptimizerKind::kAdamW);
  EXPECT_EQ(back->state.hyper.epsilon, 1e-6);
  EXPECT_EQ(back->state.momenta, s.state.momenta);
  EXPECT_EQ(back->state.optimizer_updates, 41);
  // Unsorted categories are a damaged snapshot.
  s.text_encoding.columns[1].categories = {"S", "C"};
  bytes = EncodeModelSnapshot(s);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(DecodeModelSnapshot(*bytes).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(Snapshot, AlignsTheTensors) {
  absl::StatusOr<SnapshotFile> file =
      DecodeSnapshot(*EncodeModelSnapshot(Sample()));
  ASSERT_TRUE(file.ok()) << file.status();
  for (const v1::SnapshotTensor& t : file->header.tensors()) {
    EXPECT_EQ(t.offset() % kSnapshotAlignment, 0u) << t.name();
  }
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(Snapshot, RejectsCorruption) {
  const std::string good = *EncodeModelSnapshot(Sample());
  std::string flipped = good;
  flipped[flipped.size() - 20] ^= 0x10;  // inside the data section
  EXPECT_THAT(Message(DecodeModelSnapshot(flipped).status()),
              HasSubstr("checksum"));
  EXPECT_THAT(
      Message(DecodeModelSnapshot(good.substr(0, good.size() - 1)).status()),
      HasSubstr("do not add up"));
  EXPECT_THAT(
      Message(DecodeModelSnapshot("WNNMSNAX" + good.substr(8)).status()),
      HasSubstr("WNNMSNAP"));
  EXPECT_THAT(Message(DecodeModelSnapshot("").status()), HasSubstr("WNNMSNAP"));
  std::string future = good;
  future[8] = 2;
  absl::Status version = DecodeModelSnapshot(future).status();
  EXPECT_EQ(version.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(version), HasSubstr("version 2"));
}

// A container around `header` and `data` with a correct checksum, so the
// checks behind the checksum are reached.
std::string Frame(const v1::SnapshotHeader& header, const std::string& data) {
  std::string header_bytes = header.SerializeAsString();
  std::string out = "WNNMSNAP";
  uint32_t version = 1, header_length = header_bytes.size();
  uint64_t data_length = data.size();
  out.append(reinterpret_cast<const char*>(&version), 4);
  out.append(reinterpret_cast<const char*>(&header_length), 4);
  out.append(reinterpret_cast<const char*>(&data_length), 8);
  out += header_bytes;
  out.resize((out.size() + 63) / 64 * 64, '\0');
  out += data;
  uint32_t crc = crc32(0L, reinterpret_cast<const Bytef*>(out.data()),
                       static_cast<uInt>(out.size()));
  out.append(reinterpret_cast<const char*>(&crc), 4);
  return out;
}

std::string TableError(void (*edit)(v1::SnapshotTensor&), bool twice = false) {
  v1::SnapshotHeader header;
  v1::SnapshotTensor* t = header.add_tensors();
  t->set_name("best:w");
  t->set_dtype("float32");
  t->add_shape(2);
  t->set_offset(0);
  t->set_length(8);
  edit(*t);
  if (twice) *header.add_tensors() = *t;
  return Message(DecodeSnapshot(Frame(header, std::string(8, '\0'))).status());
}

TEST(Snapshot, RejectsScoutingStateOutOfRange) {
  auto error = [](auto change) {
    ModelSnapshot s = Sample();  // ranking {4, 0, 2}, restart 1, 100 seeds
    change(s.state);
    return Message(DecodeModelSnapshot(*EncodeModelSnapshot(s)).status());
  };
  EXPECT_EQ(error([](TrainState&) {}), "");
  EXPECT_THAT(error([](TrainState& st) { st.scout_ranking[1] = 100; }),
              HasSubstr("scouting candidate 100"));
  EXPECT_THAT(error([](TrainState& st) { st.restarts = 3; }),
              HasSubstr("restart 3 of 3"));
  EXPECT_THAT(error([](TrainState& st) { st.restarts = -1; }),
              HasSubstr("restart -1"));
  EXPECT_THAT(error([](TrainState& st) { st.init_scale = 0; }),
              HasSubstr("initial scale"));
}

TEST(Snapshot, KeepsTheTunedLossesAndRefusesBadOnes) {
  auto decoded = [](std::vector<TunedLoss> tuned) {
    ModelSnapshot s = Sample();
    s.state.tuned_losses = std::move(tuned);
    return DecodeModelSnapshot(*EncodeModelSnapshot(s));
  };
  absl::StatusOr<ModelSnapshot> good =
      decoded({{.output = "score", .loss = "HUL", .delta = 0.5, .gamma = 2}});
  ASSERT_TRUE(good.ok()) << good.status();
  ASSERT_EQ(good->state.tuned_losses.size(), 1u);
  EXPECT_EQ(good->state.tuned_losses[0].output, "score");
  EXPECT_EQ(good->state.tuned_losses[0].loss, "HUL");
  EXPECT_DOUBLE_EQ(good->state.tuned_losses[0].delta, 0.5);
  EXPECT_THAT(Message(decoded({{.output = "score", .loss = "XYZ"}}).status()),
              HasSubstr("the loss of 'score' is 'XYZ'"));
  EXPECT_THAT(
      Message(
          decoded({{.output = "score", .loss = "HUL", .delta = -1}}).status()),
      HasSubstr("with delta -1"));
}

TEST(Snapshot, RejectsATableThatDoesNotMatchTheData) {
  EXPECT_EQ(TableError([](v1::SnapshotTensor&) {}), "");  // the frame is right
  EXPECT_THAT(TableError([](v1::SnapshotTensor& t) {
                t.set_length(1 << 20);
                t.set_shape(0, 1 << 18);
              }),
              HasSubstr("outside the data section"));
  EXPECT_THAT(TableError([](v1::SnapshotTensor& t) { t.set_shape(0, 3); }),
              HasSubstr("does not match its shape"));
  EXPECT_THAT(TableError([](v1::SnapshotTensor& t) {
                t.set_shape(0, int64_t{1} << 62);
                t.add_shape(int64_t{1} << 62);
              }),
              HasSubstr("does not match its shape"));
  EXPECT_THAT(TableError([](v1::SnapshotTensor& t) { t.set_shape(0, -2); }),
              HasSubstr("does not match its shape"));
  EXPECT_THAT(TableError([](v1::SnapshotTensor& t) {
                t.set_offset(4);
                t.set_length(4);
                t.set_shape(0, 1);
              }),
              HasSubstr("outside the data section"));
  EXPECT_THAT(TableError([](v1::SnapshotTensor& t) { t.set_dtype("float64"); }),
              HasSubstr("only float32"));
  EXPECT_THAT(TableError([](v1::SnapshotTensor&) {}, /*twice=*/true),
              HasSubstr("appears twice"));
}

TEST(Snapshot, RefusesTensorsThatShareBytesBeforeCopyingAny) {
  // 1,000 entries over the same 8 bytes: refused, naming the shared bytes,
  // instead of 1,000 copies (an 8 MB file cost 2 GB this way).
  v1::SnapshotHeader header;
  for (int i = 0; i < 1000; ++i) {
    v1::SnapshotTensor* t = header.add_tensors();
    t->set_name(StrCat("best:w", i));
    t->set_dtype("float32");
    t->add_shape(2);
    t->set_offset(0);
    t->set_length(8);
  }
  EXPECT_THAT(Message(DecodeSnapshot(Frame(header, std::string(8, '\0')))
                          .status()),
              HasSubstr("two tensors share the bytes at offset 0"));
  // Overlapping without starting together (offsets are 64-aligned): 32
  // floats at 0 and 16 at 64 share bytes 64..127; at 128 they do not.
  v1::SnapshotHeader two;
  for (int64_t offset : {0, 64}) {
    v1::SnapshotTensor* t = two.add_tensors();
    t->set_name(StrCat("best:w", offset));
    t->set_dtype("float32");
    t->add_shape(offset == 0 ? 32 : 16);
    t->set_offset(offset);
    t->set_length(offset == 0 ? 128 : 64);
  }
  EXPECT_THAT(
      Message(DecodeSnapshot(Frame(two, std::string(192, '\0'))).status()),
      HasSubstr("share the bytes at offset 64"));
  two.mutable_tensors(1)->set_offset(128);
  EXPECT_EQ(
      Message(DecodeSnapshot(Frame(two, std::string(192, '\0'))).status()),
      "");
}

TEST(Snapshot, WritesAtomicallyAndLeavesNoTemporaryFile) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("webnnm_snapshot_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "s.wnms").string();
  ASSERT_TRUE(SaveModelSnapshot(path, Sample()).ok());
  ModelSnapshot second = Sample();
  second.state.epoch = 4;
  ASSERT_TRUE(SaveModelSnapshot(path, second).ok());
  absl::StatusOr<ModelSnapshot> read = LoadModelSnapshot(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->state.epoch, 4);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
  EXPECT_EQ(LoadModelSnapshot((dir / "missing.wnms").string()).status().code(),
            absl::StatusCode::kNotFound);
  std::filesystem::remove_all(dir);
}

// A small classifier with dropout, trained with momentum, loss scaling and
// global clipping, so every piece of state matters to the resumed run.
constexpr char kModel[] = R"(
model:name resumable;
model:input shape=[4];
model:output shape=[3];
model:loss CCE;
model:layers
    dense(shape=[8], activation=relu),
    dropout(0.2),
    dense(shape=[3], activation=softmax);
dense:layers
    matmul(w),
    add(b),
    activation();
)";

Dataset Blobs() {
  Dataset d = testing::Blobs(150, 4, 3, 12345);
  EXPECT_TRUE(d.Split(60, 20, 20, 3).ok());
  return d;
}

Hyperparameters Resumable() {
  Hyperparameters h;
  h.epochs = 6;
  h.seeds = 3;
  h.batch_size = 16;  // 90 training rows: a short, masked last batch
  h.optimizer = OptimizerKind::kRLion;
  h.gradient_scaling = GradientScaling::kOn;
  h.scale = 64;
  h.growth_interval = 4;
  h.gradient_clipping = GradientClipping::kGlobal;
  h.regularization = Regularization::kL2;
  h.lambda2 = 1e-4;
  h.seed = 11;
  return h;
}

// A run stopped after epoch 2, its snapshot encoded and decoded, resumed:
// the same bits as the run never stopped.
void ExpectResumesBitForBit(const Hyperparameters& hyper) {
  CheckResult check = CheckModel("r.wnm", kModel);
  ASSERT_TRUE(check.ok) << check.rendered;
  const dag::Dag& dag = *check.dag;
  Dataset data = Blobs();
  auto backend = backends::CreateBackend("cpu");
  ASSERT_TRUE(backend.ok());

  absl::StatusOr<TrainResult> whole = Train(dag, data, hyper, **backend);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_EQ(whole->epochs, 6);

  // Stop after epoch 2, through the encoded snapshot, and resume.
  TrainCallbacks stop;
  std::string saved;
  stop.checkpoint = [&](const TrainState& state) {
    ModelSnapshot s;
    s.state = state;
    s.shapes = ParameterShapes(dag);
    saved = *EncodeModelSnapshot(s);
    return state.epoch < 2;
  };
  absl::StatusOr<TrainResult> first = Train(dag, data, hyper, **backend, stop);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->epochs, 2);
  absl::StatusOr<ModelSnapshot> snapshot = DecodeModelSnapshot(saved);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  ASSERT_TRUE(CheckSnapshotFits(*snapshot, dag).ok());
  EXPECT_EQ(snapshot->state.epoch, 2);
  EXPECT_GT(snapshot->state.step, 0);

  absl::StatusOr<TrainResult> resumed = Train(
      dag, data, snapshot->state.hyper, **backend, {}, &snapshot->state);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->epochs, 6);
  const TrainState& a = whole->state;
  const TrainState& b = resumed->state;
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.params, b.params);  // exact float equality
  EXPECT_EQ(a.momenta, b.momenta);
  EXPECT_EQ(a.best, b.best);
  EXPECT_EQ(a.best_epoch, b.best_epoch);
  EXPECT_EQ(a.loss_scale, b.loss_scale);
  EXPECT_EQ(a.clip_mu, b.clip_mu);
  EXPECT_EQ(a.clip_sigma, b.clip_sigma);
  EXPECT_EQ(whole->final_train_loss, resumed->final_train_loss);
  EXPECT_EQ(whole->test.loss, resumed->test.loss);
  EXPECT_EQ(a.optimizer_updates, b.optimizer_updates);
  // It learned something, so the comparison is not between two idle runs.
  EXPECT_NE(a.params, snapshot->state.params);
}

TEST(Resume, EqualsTheUninterruptedRunBitForBit) {
  ExpectResumesBitForBit(Resumable());
}

TEST(Resume, AdamWResumesItsMomentsAndBiasCorrectionBitForBit) {
  Hyperparameters h = Resumable();
  h.optimizer = OptimizerKind::kAdamW;  // loss scaling skips some steps
  ExpectResumesBitForBit(h);
}

// A resume with more epochs than the snapshot's: a warm restart of the
// schedule from the snapshot's step (warmup to the maximum again, then a
// cosine over the epochs left), kept in snapshots, so an extended run
// stopped and resumed again ends as the uninterrupted extension.
TEST(Resume, MoreEpochsContinueWithAWarmRestart) {
  CheckResult check = CheckModel("r.wnm", kModel);
  ASSERT_TRUE(check.ok) << check.rendered;
  const dag::Dag& dag = *check.dag;
  Dataset data = Blobs();
  auto backend = backends::CreateBackend("cpu");
  absl::StatusOr<TrainResult> six = Train(dag, data, Resumable(), **backend);
  ASSERT_TRUE(six.ok()) << six.status();
  ASSERT_EQ(six->epochs, 6);
  const TrainState& done = six->state;

  Hyperparameters more = done.hyper;
  more.epochs = 10;
  std::vector<EpochReport> epochs;
  TrainCallbacks seen;
  seen.epoch = [&](const EpochReport& e) { epochs.push_back(e); };
  absl::StatusOr<TrainResult> ten =
      Train(dag, data, more, **backend, seen, &done);
  ASSERT_TRUE(ten.ok()) << ten.status();
  EXPECT_EQ(ten->epochs, 10);
  EXPECT_EQ(ten->state.hyper.epochs, 10);
  EXPECT_EQ(ten->state.cycle_step, done.step);
  EXPECT_EQ(ten->state.cycle_epoch, 6);
  EXPECT_GT(ten->state.step, done.step);
  bool restart = false;
  for (const Decision& d : ten->decisions) {
    restart |= d.what.find("epochs 10 (was 6): a warm restart") == 0;
  }
  EXPECT_TRUE(restart);
  // Epochs 7..10: one warmup epoch back to the maximum, then down.
  ASSERT_EQ(epochs.size(), 4u);
  EXPECT_EQ(epochs[0].epoch, 7);
  EXPECT_DOUBLE_EQ(epochs[0].lr, *done.hyper.lr);
  EXPECT_LT(epochs[3].lr, epochs[1].lr);
  EXPECT_NE(ten->state.params, done.params);

  // Stopped after epoch 8 and resumed (through a snapshot's bytes) with the
  // same 10 epochs: no second restart, the same end.
  std::string saved;
  TrainCallbacks stop;
  stop.checkpoint = [&](const TrainState& state) {
    ModelSnapshot s;
    s.state = state;
    s.shapes = ParameterShapes(dag);
    saved = *EncodeModelSnapshot(s);
    return state.epoch < 8;
  };
  ASSERT_TRUE(Train(dag, data, more, **backend, stop, &done).ok());
  absl::StatusOr<ModelSnapshot> at8 = DecodeModelSnapshot(saved);
  ASSERT_TRUE(at8.ok()) << at8.status();
  EXPECT_EQ(at8->state.cycle_step, done.step);
  absl::StatusOr<TrainResult> again =
      Train(dag, data, at8->state.hyper, **backend, {}, &at8->state);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->state.params, ten->state.params);
  EXPECT_EQ(again->state.best, ten->state.best);

  // Fewer epochs than are done: nothing is left, the run is tested as is.
  Hyperparameters fewer = done.hyper;
  fewer.epochs = 4;
  absl::StatusOr<TrainResult> none =
      Train(dag, data, fewer, **backend, {}, &done);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->state.step, done.step);
  EXPECT_EQ(none->state.params, done.params);
}

TEST(Resume, ARunFromADifferentSeedDiffers) {
  // The comparison above can fail: another seed gives other parameters.
  CheckResult check = CheckModel("r.wnm", kModel);
  ASSERT_TRUE(check.ok);
  Dataset data = Blobs();
  auto backend = backends::CreateBackend("cpu");
  Hyperparameters h = Resumable();
  h.epochs = 2;
  absl::StatusOr<TrainResult> a = Train(*check.dag, data, h, **backend);
  h.seed = 12;
  absl::StatusOr<TrainResult> b = Train(*check.dag, data, h, **backend);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->state.params, b->state.params);
}

TEST(Resume, RejectsASnapshotOfAnotherModel) {
  CheckResult check = CheckModel("r.wnm", kModel);
  ASSERT_TRUE(check.ok);
  ModelSnapshot s = Sample();  // parameters w (6) and b (2)
  absl::Status fits = CheckSnapshotFits(s, *check.dag);
  EXPECT_FALSE(fits.ok());
  EXPECT_THAT(Message(fits), HasSubstr("not a parameter of this model"));
}

}  // namespace
}  // namespace webnnm::train
