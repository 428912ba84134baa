// NumPy datasets: .npy arrays of every dtype NumPy writes for numbers, in
// stored and deflate-compressed .npz archives written here with libzip;
// inputs and outputs by name (x and y for a model's only ones), sequences,
// integer inputs kept exact, and every refusal named.
#include "engine/data/npz.h"

#include <zip.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/base/float16.h"
#include "engine/check.h"
#include "engine/train/data_source.h"
#include "engine/train/feeder.h"
#include "engine/train/trainer.h"

namespace webnnm::train {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A .npy file: `descr` ('<f4', '|u1', ...), the shape, and the values
// written in that type.
std::string Npy(const std::string& descr, const std::vector<int64_t>& shape,
                const std::vector<double>& values, bool fortran = false) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  const char type = descr[1];
  const int bytes = std::stoi(descr.substr(2));
  for (double v : values) {
    char b[8];
    if (type == 'f' && bytes == 2) {
      uint16_t h = DoubleToHalf(v);
      std::memcpy(b, &h, 2);
    } else if (type == 'f' && bytes == 4) {
      float f = static_cast<float>(v);
      std::memcpy(b, &f, 4);
    } else if (type == 'f') {
      std::memcpy(b, &v, 8);
    } else if (type == 'i' || type == 'u' || type == 'b') {
      const int64_t i = static_cast<int64_t>(v);
      std::memcpy(b, &i, bytes);  // little-endian: the low bytes
    }
    out.append(b, bytes);
  }
  return out;
}

class NpzTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("webnnm-npz-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // An archive of `arrays` (name -> .npy bytes), deflated unless `stored`.
  std::string Write(const std::map<std::string, std::string>& arrays,
                    bool stored = false) {
    const std::string path = (dir_ / ("d" + std::to_string(n_++) + ".npz"));
    int error = 0;
    zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
    EXPECT_NE(z, nullptr);
    for (const auto& [name, bytes] : arrays) {
      zip_source_t* s = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
      const zip_int64_t i =
          zip_file_add(z, (name + ".npy").c_str(), s, ZIP_FL_OVERWRITE);
      EXPECT_GE(i, 0);
      zip_set_file_compression(z, i, stored ? ZIP_CM_STORE : ZIP_CM_DEFLATE, 0);
    }
    EXPECT_EQ(zip_close(z), 0);
    return path;
  }

  std::filesystem::path dir_;
  int n_ = 0;
};

NpzSpec OneInOneOut(int64_t width, bool classification = true) {
  return {.inputs = {{.name = "model", .step_values = width}},
          .outputs = {
              {.name = "model", .classification = classification, .units = 3}}};
}

TEST_F(NpzTest, EveryNumericDtypeIsReadExactly) {
  const std::vector<double> values = {0, 1, 2, 3, 4, 5};
  for (const char* descr : {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4", "<i8",
                            "|u1", "<u2", "<u4", "<u8"}) {
    for (bool stored : {false, true}) {
      const std::string path = Write({{"x", Npy(descr, {3, 2}, values)},
                                      {"y", Npy("<i8", {3}, {0, 2, 1})}},
                                     stored);
      absl::StatusOr<Dataset> d = LoadNpz(path, OneInOneOut(2));
      ASSERT_TRUE(d.ok()) << descr << ": " << d.status();
      EXPECT_EQ(d->count(), 3);
      EXPECT_EQ(d->width(), 2);
      EXPECT_THAT(std::vector<float>(d->features(0), d->features(0) + 6),
                  ElementsAre(0, 1, 2, 3, 4, 5))
          << descr;
      // Labels 0..2 for an output of 3 units: classes "0", "1", "2".
      EXPECT_THAT(d->classes(), ElementsAre("0", "1", "2"));
      EXPECT_EQ(d->label(1), 2);
    }
  }
  // bool labels: two classes.
  const std::string path = Write({{"x", Npy("<f4", {2, 2}, {1, 2, 3, 4})},
                                  {"y", Npy("|b1", {2}, {1, 0})}});
  NpzSpec spec = OneInOneOut(2);
  spec.outputs[0].units = 1;
  absl::StatusOr<Dataset> d = LoadNpz(path, spec);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(d->classes(), ElementsAre("0", "1"));
  EXPECT_EQ(d->label(0), 1);
}

TEST_F(NpzTest, InputsAndOutputsByNameWithSequences) {
  // Two inputs (one a sequence of 3 steps of 2), two outputs.
  const std::string path = Write(
      {{"image", Npy("<f4", {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})},
       {"sound", Npy("<f4", {2, 3, 2}, {1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6})},
       {"label", Npy("<i4", {2}, {7, 3})},
       {"score", Npy("<f8", {2, 1}, {0.5, 0.25})}});
  NpzSpec spec{
      .inputs = {{.name = "image", .step_values = 4},
                 {.name = "sound", .step_values = 2, .sequenced = true}},
      .outputs = {{.name = "label", .classification = true, .units = 2},
                  {.name = "score", .units = 1}}};
  absl::StatusOr<Dataset> d = LoadNpz(path, spec);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->first_input(), "image");
  ASSERT_EQ(d->more_inputs().size(), 1u);
  EXPECT_EQ(d->more_inputs()[0].input, "sound");
  EXPECT_EQ(d->more_inputs()[0].width, 6);
  // Labels 7 and 3 are not 0..1: the distinct labels in numeric order.
  EXPECT_THAT(d->classes(), ElementsAre("3", "7"));
  EXPECT_EQ(d->label(0), 1);
  ASSERT_EQ(d->targets().size(), 2u);
  EXPECT_EQ(d->targets()[1].output, "score");
  EXPECT_THAT(d->targets()[1].values, ElementsAre(0.5f, 0.25f));
  // x and y stand for the names only with one input and one output.
  spec.inputs[0].name = "x";
  EXPECT_THAT(LoadNpz(path, spec).status().message(),
              HasSubstr("no array 'x' (arrays: image, label, score, sound)"));
}

TEST_F(NpzTest, RefusalsNameTheArray) {
  const std::string y = Npy("<i8", {2}, {0, 1});
  auto message = [&](const std::map<std::string, std::string>& arrays,
                     NpzSpec spec = OneInOneOut(2)) {
    return std::string(LoadNpz(Write(arrays), spec).status().message());
  };
  EXPECT_THAT(message({{"x", Npy(">f4", {2, 2}, {1, 2, 3, 4})}, {"y", y}}),
              HasSubstr("x: dtype '>f4' is big-endian"));
  EXPECT_THAT(
      message({{"x", Npy("<f4", {2, 2}, {1, 2, 3, 4}, true)}, {"y", y}}),
      HasSubstr("Fortran order is not supported"));
  EXPECT_THAT(message({{"x", Npy("<c8", {2, 2}, {})}, {"y", y}}),
              HasSubstr("dtype '<c8' is not supported"));
  EXPECT_THAT(
      message({{"x", Npy("<f4", {2, 3}, {1, 2, 3, 4, 5, 6})}, {"y", y}}),
      HasSubstr("the input 'model' has 3 values a sample (shape [2, "
                "3]), but the model takes 2"));
  EXPECT_THAT(
      message({{"x", Npy("<f4", {3, 2}, {1, 2, 3, 4, 5, 6})}, {"y", y}}),
      HasSubstr("the output 'model' has 2 samples, the others 3"));
  EXPECT_THAT(message({{"x", Npy("<f4", {2, 2}, {1, 2, 3, 4})}}),
              HasSubstr("no array 'model_target' or 'y' (arrays: x)"));
  EXPECT_THAT(
      message({{"x", Npy("<i8", {2, 2}, {1, 2, 3, 1 << 25})}, {"y", y}}),
      HasSubstr("integers beyond 2^24 do not stay exact"));
  EXPECT_THAT(message({{"x", Npy("<f4", {2, 2}, {1, 2, 3, 4})},
                       {"y", Npy("<f4", {2}, {0.5, 1})}}),
              HasSubstr("a classification output takes integer or bool"));
  // A truncated array: the header says more data than there is.
  std::string cut = Npy("<f4", {2, 2}, {1, 2, 3, 4});
  cut.resize(cut.size() - 4);
  EXPECT_THAT(message({{"x", cut}, {"y", y}}),
              HasSubstr("needs 16 bytes of data, but the array holds 12"));
  // Not a zip archive; a missing file.
  const std::string text = (dir_ / "text.npz");
  std::ofstream(text) << "a,b\n1,2\n";
  EXPECT_THAT(LoadNpz(text, OneInOneOut(2)).status().message(),
              HasSubstr("not a NumPy .npz archive"));
  EXPECT_TRUE(
      absl::IsNotFound(LoadNpz((dir_ / "none.npz"), OneInOneOut(2)).status()));
}

// Ragged sequences: `<name>_lengths` (or x_lengths) gives each sample's
// real steps; the padding is zeroed whatever the file holds.
TEST_F(NpzTest, RaggedSequencesReadTheirLengths) {
  NpzSpec spec{
      .inputs = {{.name = "model", .step_values = 2, .sequenced = true}},
      .outputs = {{.name = "model", .classification = true, .units = 2}}};
  const std::string x =
      Npy("<f4", {2, 3, 2}, {1, 2, 3, 4, 9, 9, 5, 6, 9, 9, 9, 9});
  const std::string y = Npy("<i8", {2}, {0, 1});
  absl::StatusOr<Dataset> d = LoadNpz(
      Write({{"x", x}, {"x_lengths", Npy("<i4", {2}, {2, 1})}, {"y", y}}),
      spec);
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_TRUE(d->ragged());
  EXPECT_THAT(d->lengths(), ElementsAre(2, 1));
  EXPECT_EQ(d->steps(), 3);
  EXPECT_THAT(std::vector<float>(d->features(0), d->features(0) + 6),
              ElementsAre(1, 2, 3, 4, 0, 0));
  EXPECT_THAT(std::vector<float>(d->features(1), d->features(1) + 6),
              ElementsAre(5, 6, 0, 0, 0, 0));
  // By the input's name too; no lengths: not ragged.
  d = LoadNpz(
      Write(
          {{"model", x}, {"model_lengths", Npy("<u1", {2}, {3, 3})}, {"y", y}}),
      spec);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(d->lengths(), ElementsAre(3, 3));
  d = LoadNpz(Write({{"x", x}, {"y", y}}), spec);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_FALSE(d->ragged());
  auto message = [&](const std::string& lengths) {
    return std::string(
        LoadNpz(Write({{"x", x}, {"x_lengths", lengths}, {"y", y}}), spec)
            .status()
            .message());
  };
  EXPECT_THAT(message(Npy("<i8", {2}, {0, 2})),
              HasSubstr("x_lengths' holds 0 for sample 0: lengths are whole "
                        "numbers of steps within 1..3"));
  EXPECT_THAT(message(Npy("<i8", {2}, {4, 2})),
              HasSubstr("holds 4 for sample 0"));
  EXPECT_THAT(message(Npy("<f4", {2}, {1.5, 2})),
              HasSubstr("holds 1.5 for sample 0"));
  EXPECT_THAT(message(Npy("<i8", {3}, {1, 2, 3})),
              HasSubstr("x_lengths' must be [2] (a length per sample), not "
                        "[3]"));
}

// A classification output's labels as rows of its classes: one-hot rows
// are class ids, probability rows stay (soft labels, KLD's); a one-unit
// output takes probabilities in [0, 1]; other rows are refused by row.
TEST_F(NpzTest, LabelRowsAreOneHotOrProbabilities) {
  const std::string x = Npy("<f4", {3, 2}, {1, 2, 3, 4, 5, 6});
  absl::StatusOr<Dataset> d = LoadNpz(
      Write({{"x", x}, {"y", Npy("<f4", {3, 3}, {0, 1, 0, 1, 0, 0, 0, 0, 1})}}),
      OneInOneOut(2));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->targets()[0].form, LabelForm::kOneHot);
  EXPECT_EQ(d->target_width(), 1);
  EXPECT_THAT(d->targets()[0].values, ElementsAre(1, 0, 2));
  d = LoadNpz(Write({{"x", x},
                     {"y", Npy("<f4", {3, 3},
                               {0.1, 0.8, 0.1, 0.5, 0.25, 0.25, 0, 0, 1})}}),
              OneInOneOut(2));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->targets()[0].probabilities());
  EXPECT_EQ(d->target_width(), 3);
  EXPECT_THAT(d->classes(), ElementsAre("0", "1", "2"));
  EXPECT_EQ(d->label(0), 1);  // the most probable class
  EXPECT_EQ(d->label(1), 0);
  EXPECT_EQ(d->label(2), 2);
  // One unit: the second class's probability.
  NpzSpec one = OneInOneOut(2);
  one.outputs[0].units = 1;
  d = LoadNpz(Write({{"x", x}, {"y", Npy("<f4", {3}, {0.9, 0.2, 1})}}), one);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->targets()[0].probabilities());
  EXPECT_EQ(d->target_width(), 1);
  EXPECT_EQ(d->label(0), 1);
  EXPECT_EQ(d->label(1), 0);
  auto message = [&](const NpzSpec& spec, const std::string& y) {
    return std::string(
        LoadNpz(Write({{"x", x}, {"y", y}}), spec).status().message());
  };
  EXPECT_THAT(message(OneInOneOut(2),
                      Npy("<f4", {3, 3}, {0.5, 0.5, 0.5, 1, 0, 0, 0, 1, 0})),
              HasSubstr("the output 'model''s row 0 sums to 1.5: rows of "
                        "classes are one-hot or probabilities that sum to 1"));
  EXPECT_THAT(
      message(OneInOneOut(2), Npy("<f4", {3, 3}, {2, -1, 0, 1, 0, 0, 0, 1, 0})),
      HasSubstr("holds 2 in row 0"));
  EXPECT_THAT(message(OneInOneOut(2), Npy("<f4", {3, 2}, {1, 0, 0, 1, 1, 0})),
              HasSubstr("a classification output of 3 units takes a label a "
                        "sample ([N] or [N, 1]), or rows of its 3 classes "
                        "([N, 3]: one-hot or probabilities)"));
  EXPECT_THAT(message(one, Npy("<f4", {3}, {0.5, 2.5, 1})),
              HasSubstr("holds 2.5: a classification output takes integer or "
                        "bool labels (or probabilities in [0, 1])"));
}

// A sequenced output's targets: a label (or values) a step, [N, T] or
// [N, T, units]; a ragged sample's padded steps are ignored (their labels
// make no class) and stored as zeros.
TEST_F(NpzTest, SequencedOutputsTakeATargetAStep) {
  NpzSpec spec{
      .inputs = {{.name = "model", .step_values = 2, .sequenced = true}},
      .outputs = {{.name = "model",
                   .classification = true,
                   .units = 3,
                   .sequenced = true}}};
  const std::string x =
      Npy("<f4", {2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0});
  const std::string lengths = Npy("<i8", {2}, {3, 1});
  // -100 pads (PyTorch's ignore index): no class.
  const std::string y = Npy("<i8", {2, 3}, {2, 0, 1, 1, -100, -100});
  absl::StatusOr<Dataset> d =
      LoadNpz(Write({{"x", x}, {"x_lengths", lengths}, {"y", y}}), spec);
  ASSERT_TRUE(d.ok()) << d.status();
  const Targets& t = d->targets()[0];
  EXPECT_TRUE(t.sequenced);
  EXPECT_EQ(t.steps, 3);
  EXPECT_EQ(t.width, 1);
  EXPECT_THAT(t.classes, ElementsAre("0", "1", "2"));
  EXPECT_THAT(t.values, ElementsAre(2, 0, 1, 1, 0, 0));
  EXPECT_EQ(d->label(0, 0, 2), 1);
  EXPECT_EQ(d->RealSteps(1, 3), 1);
  // [N, T, 1] labels too; regression values [N, T, units].
  ASSERT_TRUE(LoadNpz(Write({{"x", x},
                             {"y", Npy("<i8", {2, 3, 1}, {2, 0, 1, 1, 0, 0})}}),
                      spec)
                  .ok());
  NpzSpec values = spec;
  values.outputs[0] = {.name = "model", .units = 2, .sequenced = true};
  d = LoadNpz(Write({{"x", x},
                     {"x_lengths", lengths},
                     {"y", Npy("<f4", {2, 3, 2},
                               {1, 2, 3, 4, 5, 6, 7, 8, 99, 99, 99, 99})}}),
              values);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_FALSE(d->targets()[0].classification);
  EXPECT_EQ(d->targets()[0].width, 2);
  EXPECT_THAT(d->targets()[0].values,
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0));
  EXPECT_EQ(d->target(1)[1], 8);
  auto message = [&](const NpzSpec& which, const std::string& targets) {
    return std::string(
        LoadNpz(Write({{"x", x}, {"y", targets}}), which).status().message());
  };
  EXPECT_THAT(message(spec, Npy("<i8", {2}, {0, 1})),
              HasSubstr("the output 'model' has shape [2], but the output is "
                        "a sequence: it takes a label a step ([N, T] or "
                        "[N, T, 1])"));
  EXPECT_THAT(message(spec, Npy("<i8", {2, 2}, {0, 1, 1, 0})),
              HasSubstr("has 2 steps a sample, but the sequenced inputs 3"));
  EXPECT_THAT(message(values, Npy("<f4", {2, 3}, {1, 2, 3, 4, 5, 6})),
              HasSubstr("it takes 2 values a step ([N, T, 2])"));
  NpzSpec unsequenced = spec;
  unsequenced.inputs[0] = {.name = "model", .step_values = 6};
  EXPECT_THAT(
      message(unsequenced, Npy("<i8", {2, 3}, {2, 0, 1, 1, 0, 0})),
      HasSubstr("is a sequence of 3 steps, but no model input is sequenced"));
}

// The decompressed sizes are checked before anything is read: a small
// archive of zeros that inflates past the limit is refused.
// The probe's data holes: values that are no numbers, labels too large to
// stay distinct, an entry that inflates past its declared size.
TEST_F(NpzTest, NonFiniteValuesAreRefusedNamingTheSample) {
  const std::string y = Npy("<i8", {3}, {0, 1, 2});
  const double nan = std::nan(""), inf = HUGE_VAL;
  auto message = [&](const std::map<std::string, std::string>& arrays,
                     NpzSpec spec = OneInOneOut(2)) {
    return std::string(LoadNpz(Write(arrays), spec).status().message());
  };
  EXPECT_THAT(
      message({{"x", Npy("<f4", {3, 2}, {1, 2, 3, nan, 5, 6})}, {"y", y}}),
      HasSubstr("the input 'model' holds NaN at sample 2, value 2 "
                "(element 3): an .npz array's values must be finite"));
  EXPECT_THAT(
      message({{"x", Npy("<f8", {3, 2}, {1, 2, 3, 4, -inf, 6})}, {"y", y}}),
      HasSubstr("holds -inf at sample 3, value 1"));
  EXPECT_THAT(
      message({{"x", Npy("<f2", {3, 2}, {inf, 2, 3, 4, 5, 6})}, {"y", y}}),
      HasSubstr("holds inf at sample 1, value 1"));
  // A regression target too.
  EXPECT_THAT(
      message({{"x", Npy("<f4", {3, 2}, {1, 2, 3, 4, 5, 6})},
               {"y", Npy("<f4", {3, 3}, {0, 1, 2, 3, nan, 5, 6, 7, 8})}},
              OneInOneOut(2, /*classification=*/false)),
      HasSubstr("holds NaN at sample 2, value 2"));
  // A ragged input's padding may hold anything (it is zeroed); its real
  // steps may not.
  NpzSpec ragged{
      .inputs = {{.name = "model", .step_values = 2, .sequenced = true}},
      .outputs = {{.name = "model", .classification = true, .units = 2}}};
  const std::string lengths = Npy("<i4", {2}, {2, 1});
  const std::string labels = Npy("<i8", {2}, {0, 1});
  EXPECT_TRUE(
      LoadNpz(
          Write({{"x", Npy("<f4", {2, 3, 2},
                           {1, 2, 3, 4, nan, nan, 5, 6, nan, inf, nan, nan})},
                 {"x_lengths", lengths},
                 {"y", labels}}),
          ragged)
          .ok());
  EXPECT_THAT(
      message(
          {{"x", Npy("<f4", {2, 3, 2}, {1, 2, nan, 4, 0, 0, 5, 6, 0, 0, 0, 0})},
           {"x_lengths", lengths},
           {"y", labels}},
          ragged),
      HasSubstr("holds NaN at sample 1, value 3"));
  // Prediction for a model that fills missing values: the first input's
  // NaNs are kept for it (an infinity still is not).
  NpzSpec filling = OneInOneOut(2);
  filling.targets_optional = true;
  filling.keep_missing = true;
  absl::StatusOr<Dataset> kept = LoadNpz(
      Write({{"x", Npy("<f4", {3, 2}, {1, 2, 3, nan, 5, 6})}}), filling);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_TRUE(std::isnan(kept->features(1)[1]));
  EXPECT_THAT(
      message({{"x", Npy("<f4", {3, 2}, {1, 2, 3, inf, 5, 6})}}, filling),
      HasSubstr("holds inf at sample 2, value 2"));
  // A label that is no number.
  EXPECT_THAT(message({{"x", Npy("<f4", {3, 2}, {1, 2, 3, 4, 5, 6})},
                       {"y", Npy("<f4", {3}, {0, nan, 2})}}),
              HasSubstr("a classification output takes integer or bool"));
}

TEST_F(NpzTest, LargeIntegerLabelsStayDistinctUpTo2To53) {
  const std::string x = Npy("<f4", {3, 2}, {1, 2, 3, 4, 5, 6});
  const double big = 1099511627776.0;  // 2^40
  absl::StatusOr<Dataset> d = LoadNpz(
      Write({{"x", x}, {"y", Npy("<i8", {3}, {big + 2, big, big + 1})}}),
      OneInOneOut(2));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(d->classes(),
              ElementsAre("1099511627776", "1099511627777", "1099511627778"));
  EXPECT_THAT(d->targets()[0].values, ElementsAre(2, 0, 1));
  const double huge = 4611686018427387904.0;  // 2^62
  EXPECT_THAT(
      LoadNpz(Write({{"x", x}, {"y", Npy("<i8", {3}, {huge, huge + 1, 0})}}),
              OneInOneOut(2))
          .status()
          .message(),
      HasSubstr("integer labels beyond 2^53 do not stay distinct"));
}

TEST_F(NpzTest, AnEntryThatInflatesPastItsSizeIsDamaged) {
  const std::string path =
      Write({{"x", Npy("<f4", {1000, 2}, std::vector<double>(2000, 1))},
             {"y", Npy("<i8", {1000}, std::vector<double>(1000, 0))}});
  ASSERT_TRUE(LoadNpz(path, OneInOneOut(2)).ok());
  // Declare x.npy smaller than its data, in its local and central headers
  // alike (so that the archive stays consistent): 128 bytes.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto patch = [&](const std::string& signature, size_t name_at,
                   size_t size_at) {
    for (size_t at = bytes.find(signature); at != std::string::npos;
         at = bytes.find(signature, at + 4)) {
      if (bytes.compare(at + name_at, 5, "x.npy") != 0) continue;
      const uint32_t declared = 128;
      std::memcpy(bytes.data() + at + size_at, &declared, 4);
      return true;
    }
    return false;
  };
  ASSERT_TRUE(patch(std::string("PK\x03\x04", 4), 30, 22));  // local header
  ASSERT_TRUE(patch(std::string("PK\x01\x02", 4), 46, 24));  // central
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  EXPECT_THAT(LoadNpz(path, OneInOneOut(2)).status().message(),
              HasSubstr("'x.npy' is damaged: it inflates past its declared "
                        "128 bytes"));
}

TEST_F(NpzTest, TheDecompressedSizeIsLimited) {
  const std::string path =
      Write({{"x", Npy("<f4", {100000, 2}, std::vector<double>(200000, 0))},
             {"y", Npy("<i8", {100000}, std::vector<double>(100000, 0))}});
  EXPECT_LT(std::filesystem::file_size(path), 20000u);  // a bomb in small
  NpzSpec spec = OneInOneOut(2);
  spec.max_bytes = 1 << 20;
  EXPECT_THAT(LoadNpz(path, spec).status().message(),
              HasSubstr("the arrays hold more than 1048576 bytes "
                        "decompressed (the dataset limit)"));
  spec.max_bytes = 4 << 20;
  EXPECT_TRUE(LoadNpz(path, spec).ok());
}

// Through the run path: ReadDataFor reads an archive for any model, an
// output named as an input reads <name>_target, and an int32 input gets
// its integers exactly.
TEST_F(NpzTest, AModelReadsItsArrays) {
  CheckResult check = CheckModel("m.wnm", R"(
ids:input int32 shape=[2];
ids:layers cast(dataType=float32);
model:input shape=[2];
model:output shape=[2];
model:layers
    concat([model, ids], axis=features),
    dense(shape=[2], activation=softmax);
dense:layers matmul(w), add(b), activation();
)");
  ASSERT_TRUE(check.ok) << check.rendered;
  const std::map<std::string, std::string> features = {
      {"model", Npy("<f4", {2, 2}, {0.5, 1, 1.5, 2})},
      {"ids", Npy("<i2", {2, 2}, {7, -3, 100, 4})}};
  std::map<std::string, std::string> arrays = features;
  arrays["model_target"] = Npy("<i8", {2}, {0, 1});
  absl::StatusOr<Dataset> d = ReadDataFor(*check.dag, {.path = Write(arrays)});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->more_inputs().size(), 1u);
  // The model's first input, ids, is the dataset's own features.
  EXPECT_EQ(d->first_input(), "ids");
  EXPECT_THAT(std::vector<float>(d->features(0), d->features(0) + 4),
              ElementsAre(7, -3, 100, 4));
  EXPECT_EQ(d->more_inputs()[0].input, "model");
  EXPECT_TRUE(
      CheckShapes(*check.dag, *d,
                  {OutputSpec{.name = "model",
                              .loss = LossKind::kCategoricalCrossEntropy}})
          .ok());
  // Without <name>_target the input's array is not taken for the labels.
  arrays = features;
  d = ReadDataFor(*check.dag, {.path = Write(arrays)});
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(),
              HasSubstr("no array 'model_target' or 'y' (arrays: ids, model)"));
}

}  // namespace
}  // namespace webnnm::train
