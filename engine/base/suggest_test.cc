// "Did you mean" suggestions: case-insensitive edit distance where a swap of
// neighbouring letters counts as one edit, and a limit of max(1, len/3).
#include "engine/base/suggest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace webnnm {
namespace {

const std::vector<std::string> kOps = {"relu",    "sigmoid", "tanh",
                                       "softmax", "conv2d",  "matmul"};

TEST(ClosestMatch, ExactNameMatchesItself) {
  EXPECT_EQ(ClosestMatch("relu", kOps), "relu");
  EXPECT_EQ(ClosestMatch("softmax", kOps), "softmax");
}

TEST(ClosestMatch, OneSubstitutionInsertionOrDeletion) {
  EXPECT_EQ(ClosestMatch("relo", kOps), "relu");       // substitution
  EXPECT_EQ(ClosestMatch("rellu", kOps), "relu");      // insertion
  EXPECT_EQ(ClosestMatch("sigmod", kOps), "sigmoid");  // deletion
}

TEST(ClosestMatch, TranspositionCountsAsOneEdit) {
  // A plain Levenshtein distance would be 2, above the limit of 1 for a
  // 4-letter name.
  EXPECT_EQ(ClosestMatch("rleu", kOps), "relu");
  EXPECT_EQ(ClosestMatch("tnah", kOps), "tanh");
  EXPECT_EQ(ClosestMatch("flaot32", {"float32", "float16", "int32"}),
            "float32");
}

TEST(ClosestMatch, IgnoresCase) {
  EXPECT_EQ(ClosestMatch("RELU", kOps), "relu");
  EXPECT_EQ(ClosestMatch("SoftMax", kOps), "softmax");
  EXPECT_EQ(ClosestMatch("CONV2D", kOps), "conv2d");
  // Case-insensitive transposition.
  EXPECT_EQ(ClosestMatch("RlEu", kOps), "relu");
  // The candidate is returned as it is spelled, not as the name is.
  EXPECT_EQ(ClosestMatch("mse", {"MSE", "MAE"}), "MSE");
}

TEST(ClosestMatch, TooFarGivesNothing) {
  EXPECT_EQ(ClosestMatch("xyz", kOps), "");
  EXPECT_EQ(ClosestMatch("banana", kOps), "");
  // Two edits are too many for a 4-letter name (limit max(1, 4/3) = 1).
  EXPECT_EQ(ClosestMatch("rexx", kOps), "");
  EXPECT_EQ(ClosestMatch("relu", {}), "");
}

TEST(ClosestMatch, LimitGrowsWithTheLength) {
  // 6 letters: up to 2 edits.
  EXPECT_EQ(ClosestMatch("abcdxy", {"abcdef"}), "abcdef");
  EXPECT_EQ(ClosestMatch("abxyzf", {"abcdef"}), "");
  // 9 letters: up to 3 edits.
  EXPECT_EQ(ClosestMatch("abcdefxyz", {"abcdefghi"}), "abcdefghi");
  EXPECT_EQ(ClosestMatch("abcdewxyz", {"abcdefghi"}), "");
  // 2 letters: still 1 edit.
  EXPECT_EQ(ClosestMatch("ab", {"ax"}), "ax");
  EXPECT_EQ(ClosestMatch("ab", {"xy"}), "");
}

TEST(ClosestMatch, PrefersTheCloserCandidate) {
  EXPECT_EQ(ClosestMatch("conv2", {"concat", "conv2d"}), "conv2d");
  EXPECT_EQ(ClosestMatch("layer", {"loss", "layers", "alpha"}), "layers");
  EXPECT_EQ(ClosestMatch("float61", {"float32", "float16"}), "float16");
}

TEST(DidYouMean, SuggestsTheClosestCandidate) {
  EXPECT_EQ(DidYouMean("rleu", kOps), "; did you mean 'relu'?");
  EXPECT_EQ(DidYouMean("sigmiod", kOps), "; did you mean 'sigmoid'?");
}

TEST(DidYouMean, CaseOnlyDifferenceIsSuggested) {
  EXPECT_EQ(DidYouMean("Relu", kOps), "; did you mean 'relu'?");
}

TEST(DidYouMean, ExactMatchGivesNoSuggestion) {
  EXPECT_EQ(DidYouMean("relu", kOps), "");
  EXPECT_EQ(DidYouMean("tanh", kOps), "");
}

TEST(DidYouMean, TooFarGivesNoSuggestion) {
  EXPECT_EQ(DidYouMean("banana", kOps), "");
  EXPECT_EQ(DidYouMean("x", {}), "");
}

}  // namespace
}  // namespace webnnm
