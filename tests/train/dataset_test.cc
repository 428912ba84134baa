// CSV parsing, CSV and IDX datasets, splits and standardization.
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/data/csv.h"
#include "engine/data/dataset.h"

namespace webnnm::train {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("webnnm_dataset_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(Csv, ReadsQuotesLineEndingsAndAByteOrderMark) {
  auto table = ParseCsv(
      "\xEF\xBB\xBF"
      "a,b,c\r\n1,\"x, \"\"y\"\"\",3\r\n\"multi\nline\",5,6\n",
      "t.csv");
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->records.size(), 3u);
  EXPECT_THAT(table->records[0], ElementsAre("a", "b", "c"));
  EXPECT_THAT(table->records[1], ElementsAre("1", "x, \"y\"", "3"));
  EXPECT_THAT(table->records[2], ElementsAre("multi\nline", "5", "6"));
  EXPECT_THAT(table->lines, ElementsAre(1, 2, 3));
}

TEST(Csv, NamesTheLineOfARaggedRow) {
  auto table = ParseCsv("a,b\n1,2\n3\n", "t.csv");
  ASSERT_FALSE(table.ok());
  EXPECT_THAT(std::string(table.status().message()),
              HasSubstr("t.csv:3: 1 fields where the first row has 2"));
}

TEST(Csv, RejectsAnUnclosedQuote) {
  auto table = ParseCsv("a,b\n\"1,2\n", "t.csv");
  ASSERT_FALSE(table.ok());
  EXPECT_THAT(std::string(table.status().message()), HasSubstr("not closed"));
}

TEST(CsvDataset, ClassesAreSortedLabelValues) {
  std::string path = Write("classes.csv", "x,y,label\n1,2,b\n3,4,a\n5,6,b\n");
  auto d = LoadCsv(path, {}, /*classification=*/true);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->count(), 3);
  EXPECT_EQ(d->width(), 2);
  EXPECT_THAT(d->classes(), ElementsAre("a", "b"));
  EXPECT_EQ(d->label(0), 1);
  EXPECT_EQ(d->label(1), 0);
  EXPECT_EQ(d->features(2)[1], 6);
  // Numeric labels sort as numbers.
  std::string numeric = Write("numeric.csv", "x,y\n1,10\n2,9\n3,10\n");
  auto n = LoadCsv(numeric, {}, true);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_THAT(n->classes(), ElementsAre("9", "10"));
}

TEST(CsvDataset, LabelColumnByNameAndNoHeader) {
  std::string path = Write("label.csv", "label,x\n7,1.5\n8,2.5\n");
  auto d = LoadCsv(path, {.label = "label"}, false);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->features(1)[0], 2.5f);
  EXPECT_EQ(d->target(1)[0], 8.0f);
  std::string bare = Write("bare.csv", "1,2,3\n4,5,6\n");
  auto b = LoadCsv(bare, {.header = false}, false);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->count(), 2);
  auto missing = LoadCsv(bare, {.label = "c9", .header = false}, false);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("no column 'c9' (columns: c0, c1, c2)"));
}

TEST(CsvDataset, TextColumnsBecomeOneHotFeaturesInTheirPlace) {
  // 'port' is text (3 categories), 'name' a different text in every row
  // (left out), 'fare' numbers; the label last.
  std::string rows = "fare,port,name,survived\n";
  const char* ports[] = {"S", "C", "Q", "S"};
  for (int i = 0; i < 40; ++i) {
    rows += std::to_string(i) + "," + (i == 5 ? "" : ports[i % 4]) +
            ",person" + std::to_string(i) + "," + (i % 2 ? "yes" : "no") +
            "\n";
  }
  const std::string path = Write("text.csv", rows);
  auto d = LoadCsv(path, {}, /*classification=*/true);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->width(), 4);  // fare, port=C, port=Q, port=S
  const TextEncoding& e = d->text_encoding();
  ASSERT_EQ(e.columns.size(), 1u);
  EXPECT_EQ(e.columns[0].name, "port");
  EXPECT_EQ(e.columns[0].categories, (std::vector<std::string>{"C", "Q", "S"}));
  EXPECT_EQ(e.dropped, (std::vector<std::string>{"name"}));
  const float* row1 = d->features(1);  // fare 1, port C
  EXPECT_EQ(std::vector<float>(row1, row1 + 4),
            (std::vector<float>{1, 1, 0, 0}));
  const float* row5 = d->features(5);  // port missing: zeros
  EXPECT_EQ(std::vector<float>(row5, row5 + 4),
            (std::vector<float>{5, 0, 0, 0}));
  EXPECT_THAT(DescribeTextEncoding(e),
              HasSubstr("'port' (3 categories: C, Q, S); left out 'name'"));
  // A model's encoding reads another file alike: an unknown category
  // gives zeros; a column it encodes must be there.
  const std::string later =
      Write("later.csv", "fare,port,name\n7,Z,x\n8,Q,y\n");
  auto p = LoadCsvFeatures(later, {.text = e});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->width(), 4);
  EXPECT_EQ(std::vector<float>(p->features(0), p->features(0) + 4),
            (std::vector<float>{7, 0, 0, 0}));
  EXPECT_EQ(std::vector<float>(p->features(1), p->features(1) + 4),
            (std::vector<float>{8, 0, 1, 0}));
  auto gone = LoadCsvFeatures(Write("noport.csv", "fare,name\n7,x\n"),
                              {.text = e});
  ASSERT_FALSE(gone.ok());
  EXPECT_THAT(std::string(gone.status().message()), HasSubstr("no column 'port'"));
}

TEST(CsvDataset, ANumberColumnWithAFewWordsIsANumberColumnWithBadValues) {
  // One word among numbers: a typo, refused where it is — not a text column
  // of 40 categories.
  std::string rows = "x,y\n";
  for (int i = 0; i < 40; ++i) {
    rows += (i == 7 ? std::string("abc") : std::to_string(i)) + "," +
            (i % 2 ? "a" : "b") + "\n";
  }
  auto d = LoadCsv(Write("typo.csv", rows), {}, true);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()),
              HasSubstr("typo.csv:9: column 'x' holds 'abc', not a number"));
}

TEST(CsvDataset, BadDataNamesFileAndLine) {
  std::string path = Write("bad.csv", "x,y\n1,2\nabc,3\n");
  // A model's encoding (no text column): its numbers must be numbers.
  auto d = LoadCsv(path, {.text = TextEncoding{}}, false);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()),
              HasSubstr("bad.csv:3: column 'x' holds 'abc', not a number"));
  std::string label = Write("label_text.csv", "x,y\n1,2\n3,cat\n");
  auto r = LoadCsv(label, {}, /*classification=*/false);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("label_text.csv:3: the label 'cat'"));
  auto gone = LoadCsv(TempPath("nope.csv"), {}, false);
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound);
}

TEST(CsvDataset, MissingValuesAreRefusedOrKeptToImpute) {
  EXPECT_TRUE(IsMissingField(""));
  EXPECT_TRUE(IsMissingField("  "));
  EXPECT_TRUE(IsMissingField("NA"));
  EXPECT_TRUE(IsMissingField(" nan "));
  EXPECT_TRUE(IsMissingField("N/A"));
  EXPECT_FALSE(IsMissingField("0"));
  EXPECT_FALSE(IsMissingField("nana"));
  EXPECT_TRUE(IsMissingField("?"));  // as many public data sets mark them
  EXPECT_FALSE(IsMissingField("??"));
  const std::string path =
      Write("missing.csv", "x,z,y\n1,10,a\nNA,20,b\n3,,a\n8,40,b\n");
  auto refused = LoadCsv(path, {}, true);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              HasSubstr("missing.csv:3: column 'x' is missing a value "
                        "('NA'); train with --impute auto, mean or median"));
  auto label = LoadCsv(Write("nolabel.csv", "x,y\n1,a\n2,\n"),
                       {.keep_missing = true}, true);
  // NA may be a class (North America); an unlabelled file predicts.
  EXPECT_TRUE(LoadCsv(Write("na.csv", "x,y\n1,NA\n2,EU\n"), {}, true).ok());
  EXPECT_TRUE(
      LoadCsvFeatures(Write("blank.csv", "x,y\n1,\n2,\n"), {.label = "y"})
          .ok());
  EXPECT_THAT(label.status().message(),
              HasSubstr("nolabel.csv:3: the label column 'y' is missing a "
                        "value"));

  auto d = LoadCsv(path, {.keep_missing = true}, true);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(d->MissingPerFeature(), ElementsAre(1, 1));
  // The statistics come from the training subset only: samples 0-2.
  d->SetSubset(Subset::kTraining, {0, 1, 2});
  Dataset median = *d;
  d->Impute(ImputeMode::kMean);
  EXPECT_THAT(d->imputation().values, ElementsAre(2.0f, 15.0f));
  EXPECT_FLOAT_EQ(d->features(1)[0], 2.0f);
  EXPECT_FLOAT_EQ(d->features(2)[1], 15.0f);
  EXPECT_THAT(d->MissingPerFeature(), ElementsAre(0, 0));
  median.SetSubset(Subset::kTraining, {0, 1, 2, 3});
  median.Impute(ImputeMode::kMedian);
  // x: 1, 3, 8 -> 3; z: 10, 20, 40 -> 20.
  EXPECT_THAT(median.imputation().values, ElementsAre(3.0f, 20.0f));
  // An even count takes the mean of the middle two: x 1, 3 -> 2.
  Dataset even = *LoadCsv(path, {.keep_missing = true}, true);
  even.SetSubset(Subset::kTraining, {0, 2});
  even.Impute(ImputeMode::kMedian);
  EXPECT_FLOAT_EQ(even.imputation().values[0], 2.0f);
  EXPECT_EQ(median.imputation().mode, ImputeMode::kMedian);
  // Another file filled with kept values; widths must agree.
  auto other = LoadCsv(path, {.keep_missing = true}, true);
  ASSERT_TRUE(other->ApplyImputation(median.imputation()).ok());
  EXPECT_FLOAT_EQ(other->features(1)[0], 3.0f);
  EXPECT_FALSE(other->ApplyImputation({ImputeMode::kMean, {1.0f}}).ok());
  EXPECT_EQ(ParseImputeMode("median"), ImputeMode::kMedian);
  EXPECT_EQ(ParseImputeMode("mode"), std::nullopt);
}

Dataset Classes(int per_class_a, int per_class_b) {
  std::vector<float> features, targets;
  for (int i = 0; i < per_class_a + per_class_b; ++i) {
    features.push_back(static_cast<float>(i));
    targets.push_back(i < per_class_a ? 0.0f : 1.0f);
  }
  return Dataset::Make("mem", 1, features, 1, targets, true, {"a", "b"});
}

TEST(Split, CountsPerClassRoundHalfUp) {
  Dataset d = Classes(50, 30);
  ASSERT_TRUE(d.Split(60, 20, 20, 7).ok());
  // 20% of 50 = 10, of 30 = 6: per class.
  std::map<int64_t, int> validation, test;
  for (int64_t s : d.subset(Subset::kValidation)) ++validation[d.label(s)];
  for (int64_t s : d.subset(Subset::kTest)) ++test[d.label(s)];
  EXPECT_EQ(validation[0], 10);
  EXPECT_EQ(validation[1], 6);
  EXPECT_EQ(test[0], 10);
  EXPECT_EQ(test[1], 6);
  EXPECT_EQ(d.subset(Subset::kTraining).size(), 48u);
  // Every sample once.
  std::set<int64_t> all;
  for (Subset s : {Subset::kTraining, Subset::kValidation, Subset::kTest}) {
    for (int64_t i : d.subset(s)) EXPECT_TRUE(all.insert(i).second);
  }
  EXPECT_EQ(all.size(), 80u);
  // 15% of 13 = 1.95 -> 2 (floor(x + 0.5)).
  Dataset small = Classes(13, 0);
  ASSERT_TRUE(small.Split(70, 15, 15, 1).ok());
  EXPECT_EQ(small.subset(Subset::kValidation).size(), 2u);
}

TEST(Split, IsSeededAndChecksPercentages) {
  Dataset a = Classes(20, 20), b = Classes(20, 20), c = Classes(20, 20);
  ASSERT_TRUE(a.Split(70, 15, 15, 3).ok());
  ASSERT_TRUE(b.Split(70, 15, 15, 3).ok());
  ASSERT_TRUE(c.Split(70, 15, 15, 4).ok());
  EXPECT_EQ(a.subset(Subset::kTest), b.subset(Subset::kTest));
  EXPECT_NE(a.subset(Subset::kTest), c.subset(Subset::kTest));
  EXPECT_FALSE(a.Split(70, 20, 20, 1).ok());
  EXPECT_FALSE(a.Split(-10, 60, 50, 1).ok());
}

TEST(Standardize, UsesTheTrainingSubsetAndLeavesConstantFeatures) {
  std::vector<float> features = {1, 5, 3, 5, 5, 5, 100, 5};  // 4 x 2
  Dataset d = Dataset::Make("mem", 2, features, 1, {0, 0, 0, 0}, false, {});
  d.SetSubset(Subset::kTraining, {0, 1, 2});
  d.SetSubset(Subset::kTest, {3});
  d.Standardize();
  // Feature 0 over training samples 1, 3, 5: mean 3, stddev sqrt(8/3).
  EXPECT_NEAR(d.features(0)[0], -2 / std::sqrt(8.0 / 3), 1e-5);
  EXPECT_NEAR(d.features(3)[0], 97 / std::sqrt(8.0 / 3), 1e-3);
  EXPECT_EQ(d.features(0)[1], 0.0f);  // constant: centred, not scaled
  EXPECT_EQ(d.standardization().stddev[1], 1.0f);
}

void WriteIdx(const std::string& path, const std::vector<int>& dims,
              const std::vector<uint8_t>& data, bool gzipped) {
  std::string bytes = {0, 0, 8, static_cast<char>(dims.size())};
  for (int d : dims) {
    bytes += static_cast<char>(d >> 24);
    bytes += static_cast<char>(d >> 16);
    bytes += static_cast<char>(d >> 8);
    bytes += static_cast<char>(d);
  }
  bytes.append(data.begin(), data.end());
  if (gzipped) {
    gzFile f = gzopen((path + ".gz").c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary) << bytes;
  }
}

TEST(IdxDataset, ReadsTrainAndTestFilesGzippedOrNot) {
  std::string dir = TempPath("idx");
  std::filesystem::create_directories(dir);
  // 3 training images of 2x2, 2 test images.
  WriteIdx(dir + "/train-images-idx3-ubyte", {3, 2, 2},
           {0, 255, 0, 0, 51, 0, 0, 0, 0, 0, 0, 255}, true);
  WriteIdx(dir + "/train-labels-idx1-ubyte", {3}, {1, 2, 3}, false);
  WriteIdx(dir + "/t10k-images-idx3-ubyte", {2, 2, 2},
           {0, 0, 0, 0, 255, 255, 255, 255}, false);
  WriteIdx(dir + "/t10k-labels-idx1-ubyte", {2}, {9, 0}, true);
  auto d = LoadIdx(dir);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->count(), 5);
  EXPECT_EQ(d->width(), 4);
  EXPECT_FLOAT_EQ(d->features(0)[1], 1.0f);
  EXPECT_FLOAT_EQ(d->features(1)[0], 0.2f);
  EXPECT_EQ(d->label(3), 9);
  EXPECT_THAT(d->subset(Subset::kTest), ElementsAre(3, 4));
  ASSERT_TRUE(d->Split(80, 20, 0, 1, /*fixed_test=*/true).ok());
  EXPECT_THAT(d->subset(Subset::kTest), ElementsAre(3, 4));
  EXPECT_EQ(d->subset(Subset::kTraining).size() +
                d->subset(Subset::kValidation).size(),
            3u);
  // A missing file is named.
  std::filesystem::remove(dir + "/t10k-labels-idx1-ubyte.gz");
  auto missing = LoadIdx(dir);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("t10k-labels-idx1-ubyte"));
  std::filesystem::remove_all(dir);
}

TEST(IdxDataset, AGzipBombIsRefusedFromItsHeader) {
  std::string dir = TempPath("idx-bomb");
  std::filesystem::create_directories(dir);
  // 4,000 images of 32x32 (4 MB of zeros, a few KB gzipped) under a 1 MiB
  // limit: refused before the data is read.
  WriteIdx(dir + "/train-images-idx3-ubyte", {4000, 32, 32},
           std::vector<uint8_t>(4000 * 32 * 32), true);
  WriteIdx(dir + "/train-labels-idx1-ubyte", {4000}, std::vector<uint8_t>(4000),
           true);
  WriteIdx(dir + "/t10k-images-idx3-ubyte", {2, 32, 32},
           std::vector<uint8_t>(2 * 32 * 32), true);
  WriteIdx(dir + "/t10k-labels-idx1-ubyte", {2}, {0, 1}, true);
  EXPECT_LT(std::filesystem::file_size(dir + "/train-images-idx3-ubyte.gz"),
            100000u);
  auto bomb = LoadIdx(dir, 1 << 20);
  ASSERT_FALSE(bomb.ok());
  EXPECT_EQ(bomb.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bomb.status().message()),
              HasSubstr("claims 4096000 bytes"));
  // Under a limit it fits, it reads.
  auto fits = LoadIdx(dir, 8 << 20);
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_EQ(fits->count(), 4002);
  // A file given plain and gzipped is refused: which one is meant?
  WriteIdx(dir + "/t10k-labels-idx1-ubyte", {2}, {1, 0}, false);
  auto twins = LoadIdx(dir);
  ASSERT_FALSE(twins.ok());
  EXPECT_THAT(std::string(twins.status().message()),
              HasSubstr("both t10k-labels-idx1-ubyte and "
                        "t10k-labels-idx1-ubyte.gz"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace webnnm::train
