// Which CSV column is the label when none is named (label_column.h), and
// LoadCsv reading it so: the decision names the column, a feature is never
// used silently.
#include "engine/data/label_column.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/data/dataset.h"

namespace webnnm::train {
namespace {

using ::testing::HasSubstr;

using Rows = std::vector<std::vector<std::string>>;

LabelNeed Classes(int64_t n) {
  return {.classification = true, .classes = n, .output = "model"};
}
LabelNeed Values() { return {.classification = false, .output = "model"}; }

// Iris-like rows with the species first.
Rows SpeciesFirst() {
  Rows rows;
  const char* species[] = {"setosa", "versicolor", "virginica"};
  for (int i = 0; i < 30; ++i) {
    rows.push_back({species[i % 3], std::to_string(4.5 + 0.1 * i),
                    std::to_string(3.0 + 0.05 * (i % 7)),
                    std::to_string(1.0 + 0.2 * (i % 11))});
  }
  return rows;
}

TEST(LabelColumn, TheLastColumnWhenItFits) {
  Rows rows = {{"1.5", "2", "a"}, {"2.5", "3", "b"}, {"3.5", "1", "c"}};
  auto c = ChooseLabelColumn({"x", "z", "kind"}, rows, Classes(3));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->column, 2u);
  EXPECT_THAT(c->why, HasSubstr("the last column"));
}

TEST(LabelColumn, AFirstColumnLabelIsFoundNotTheLastFeature) {
  auto c = ChooseLabelColumn({"species", "a", "b", "c"}, SpeciesFirst(),
                             Classes(3));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->column, 0u);
  EXPECT_THAT(c->why, HasSubstr("the only column"));
  EXPECT_THAT(c->why, HasSubstr("'c'"));  // names the last column's reason
}

TEST(LabelColumn, SeveralCandidatesAreRefusedByName) {
  // Two columns of 3 values, neither last: which one is ambiguous.
  Rows rows;
  for (int i = 0; i < 12; ++i) {
    rows.push_back({std::to_string(i % 3), std::to_string(i % 3 + 10),
                    std::to_string(0.37 * i)});
  }
  auto c = ChooseLabelColumn({"p", "q", "r"}, rows, Classes(3));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("'p', 'q'"));
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("--label"));
}

TEST(LabelColumn, NoCandidateIsRefusedSayingWhatEachColumnHolds) {
  // Measurements with many values each: no column has classes.
  Rows rows;
  for (int i = 0; i < 24; ++i) {
    rows.push_back({std::to_string(0.5 * i), std::to_string(1.5 * i)});
  }
  auto c = ChooseLabelColumn({"u", "v"}, rows, Classes(3));
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()),
              HasSubstr("no column can be the label"));
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("'u' 24 values"));
}

TEST(LabelColumn, ALastColumnOfOtherClassesSaysSo) {
  // Iris's species for an output of 2 units: the plain reason.
  auto c = ChooseLabelColumn({"a", "b", "c", "species"}, [] {
    Rows rows = SpeciesFirst();
    for (auto& r : rows) std::rotate(r.begin(), r.begin() + 1, r.end());
    return rows;
  }(), Classes(2));
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(IsLabelRefusal(c.status()));
  EXPECT_THAT(std::string(c.status().message()),
              HasSubstr("the label column 'species' (the last) holds 3 classes "
                        "but the output 'model' tells 2 apart: give the output "
                        "3 units"));
}

TEST(LabelColumn, FewerClassesThanUnitsWarns) {
  Rows rows = {{"1.5", "a"}, {"2.5", "b"}, {"3.5", "a"}, {"4.5", "b"}};
  auto c = ChooseLabelColumn({"x", "kind"}, rows, Classes(3));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->column, 1u);
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_THAT(c->warnings[0], HasSubstr("holds 2 classes"));
}

TEST(LabelColumn, ANameThatSaysLabelWins) {
  // Regression: every column is numeric; 'target' says which.
  Rows rows;
  for (int i = 0; i < 10; ++i) {
    rows.push_back({std::to_string(i * 3.5), std::to_string(i * 0.25),
                    std::to_string(i % 4)});
  }
  auto c = ChooseLabelColumn({"Target", "km", "rooms"}, rows, Values());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->column, 0u);
  EXPECT_THAT(c->why, HasSubstr("its name says it is the label"));
}

TEST(LabelColumn, RegressionSkipsATextLastColumn) {
  Rows rows = {{"120.5", "2", "north"}, {"99", "3", "south"},
               {"101", "1", "north"}};
  // 'price' and 'rooms' are numbers; the last column is text: ambiguous.
  auto c = ChooseLabelColumn({"price", "rooms", "side"}, rows, Values());
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("'price', 'rooms'"));
}

TEST(LabelColumn, AColumnWithMissingValuesIsNoLabel) {
  Rows rows = {{"a", "1", ""}, {"b", "2", "x"}, {"c", "1", "y"}};
  auto c = ChooseLabelColumn({"k", "n", "m"}, rows, Classes(3));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->column, 0u);
}

TEST(LabelColumn, ClassesAreListedShortened) {
  std::vector<std::string> many;
  for (int i = 0; i < 26; ++i) many.push_back(std::string(1, 'A' + i));
  EXPECT_EQ(DescribeClasses(many), "26 classes: A, B, C, D, E, F, G, H, …");
  EXPECT_EQ(DescribeClasses({"no", "yes"}), "2 classes: no, yes");
}

TEST(LabelColumn, LoadCsvReadsTheChosenColumn) {
  const std::string path = ::testing::TempDir() + "/species_first.csv";
  {
    std::ofstream out(path);
    out << "species,a,b,c\n";
    for (const auto& row : SpeciesFirst()) {
      out << row[0] << "," << row[1] << "," << row[2] << "," << row[3] << "\n";
    }
  }
  absl::StatusOr<Dataset> d =
      LoadCsv(path, {.choose_label = Classes(3)}, /*classification=*/true);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->label_column(), "species");
  EXPECT_EQ(d->width(), 3);
  EXPECT_EQ(d->classes(),
            (std::vector<std::string>{"setosa", "versicolor", "virginica"}));
  EXPECT_THAT(d->label_why(), HasSubstr("the only column"));
  // Named, it is read as given.
  d = LoadCsv(path, {.label = "species"}, true);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->label_why(), "given (--label)");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace webnnm::train
