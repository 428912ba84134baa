// binary16 conversions: DoubleToHalf rounds to nearest, ties to even, straight
// from double; HalfToFloat is exact.
#include "engine/base/float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace webnnm {
namespace {

bool IsHalfNaN(uint16_t bits) {
  return (bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0;
}

TEST(DoubleToHalf, ExactValues) {
  EXPECT_EQ(DoubleToHalf(1.0), 0x3C00);
  EXPECT_EQ(DoubleToHalf(-1.0), 0xBC00);
  EXPECT_EQ(DoubleToHalf(2.0), 0x4000);
  EXPECT_EQ(DoubleToHalf(-2.0), 0xC000);
  EXPECT_EQ(DoubleToHalf(0.5), 0x3800);
  EXPECT_EQ(DoubleToHalf(1.5), 0x3E00);
  EXPECT_EQ(DoubleToHalf(1.0 + 1.0 / 1024), 0x3C01);  // 1 + ulp
  EXPECT_EQ(DoubleToHalf(1024.0), 0x6400);
  EXPECT_EQ(DoubleToHalf(2048.0), 0x6800);
  EXPECT_EQ(DoubleToHalf(65504.0), 0x7BFF);  // largest finite
  EXPECT_EQ(DoubleToHalf(-65504.0), 0xFBFF);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -14)), 0x0400);  // smallest normal
}

TEST(DoubleToHalf, InexactValuesRoundToNearest) {
  EXPECT_EQ(DoubleToHalf(1.0 / 3.0), 0x3555);
  EXPECT_EQ(DoubleToHalf(0.1), 0x2E66);
  EXPECT_EQ(DoubleToHalf(3.14159265358979), 0x4248);
  EXPECT_EQ(DoubleToHalf(-3.14159265358979), 0xC248);
  EXPECT_EQ(DoubleToHalf(65519.0), 0x7BFF);  // below the overflow tie
}

TEST(DoubleToHalf, TiesRoundToEven) {
  const double ulp = std::ldexp(1.0, -10);  // spacing of halves in [1, 2)
  // Halfway between 0x3C00 (even) and 0x3C01: down.
  EXPECT_EQ(DoubleToHalf(1.0 + ulp / 2), 0x3C00);
  // Halfway between 0x3C01 and 0x3C02 (even): up.
  EXPECT_EQ(DoubleToHalf(1.0 + 3 * ulp / 2), 0x3C02);
  EXPECT_EQ(DoubleToHalf(-(1.0 + 3 * ulp / 2)), 0xBC02);
  // Integers above 2048 are spaced 2 apart.
  EXPECT_EQ(DoubleToHalf(2049.0), 0x6800);  // 2048 even
  EXPECT_EQ(DoubleToHalf(2051.0), 0x6802);  // 2052 even
  // Just off the tie goes to the nearer neighbour.
  EXPECT_EQ(DoubleToHalf(1.0 + ulp / 2 + 1e-12), 0x3C01);
  EXPECT_EQ(DoubleToHalf(1.0 + 3 * ulp / 2 - 1e-12), 0x3C01);
}

TEST(DoubleToHalf, RoundingCarriesIntoTheNextBinade) {
  // 1 - 2^-12 is halfway between 0x3BFF (odd) and 1.0.
  EXPECT_EQ(DoubleToHalf(1.0 - std::ldexp(1.0, -12)), 0x3C00);
  // Integers in [1024, 2048) are exact; 2047.9 rounds up to 2048.
  EXPECT_EQ(DoubleToHalf(2047.9), 0x6800);
  EXPECT_EQ(DoubleToHalf(2047.4), 0x67FF);
}

TEST(DoubleToHalf, NoDoubleRoundingThroughFloat) {
  // 1 + 2^-11 + 2^-40 rounds to 1 + 2^-11 as a float (a tie for half,
  // which would then go to 1.0), but it is above the tie: 0x3C01.
  double value = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(static_cast<double>(static_cast<float>(value)),
            1.0 + std::ldexp(1.0, -11));
  EXPECT_EQ(DoubleToHalf(value), 0x3C01);
}

TEST(DoubleToHalf, Subnormals) {
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -24)), 0x0001);  // smallest
  EXPECT_EQ(DoubleToHalf(-std::ldexp(1.0, -24)), 0x8001);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -15)), 0x0200);
  EXPECT_EQ(DoubleToHalf(1023 * std::ldexp(1.0, -24)), 0x03FF);  // largest
  EXPECT_EQ(DoubleToHalf(5 * std::ldexp(1.0, -24)), 0x0005);
}

TEST(DoubleToHalf, SubnormalTiesRoundToEven) {
  const double tiny = std::ldexp(1.0, -24);
  EXPECT_EQ(DoubleToHalf(tiny / 2), 0x0000);           // tie between 0 and 1
  EXPECT_EQ(DoubleToHalf(-tiny / 2), 0x8000);          // to -0
  EXPECT_EQ(DoubleToHalf(1.5 * tiny), 0x0002);         // tie between 1 and 2
  EXPECT_EQ(DoubleToHalf(2.5 * tiny), 0x0002);         // tie between 2 and 3
  EXPECT_EQ(DoubleToHalf(tiny / 2 * 1.0001), 0x0001);  // above the tie
  EXPECT_EQ(DoubleToHalf(tiny / 4), 0x0000);
  EXPECT_EQ(DoubleToHalf(1e-300), 0x0000);
  EXPECT_EQ(DoubleToHalf(-1e-300), 0x8000);
  // Halfway between the largest subnormal (odd) and the smallest normal.
  EXPECT_EQ(DoubleToHalf(1023.5 * tiny), 0x0400);
}

TEST(DoubleToHalf, OverflowsToInfinityFrom65520) {
  EXPECT_EQ(DoubleToHalf(65519.999), 0x7BFF);
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7C00);  // the tie goes to even (inf)
  EXPECT_EQ(DoubleToHalf(-65520.0), 0xFC00);
  EXPECT_EQ(DoubleToHalf(65536.0), 0x7C00);
  EXPECT_EQ(DoubleToHalf(1e10), 0x7C00);
  EXPECT_EQ(DoubleToHalf(std::numeric_limits<double>::max()), 0x7C00);
  EXPECT_EQ(DoubleToHalf(std::numeric_limits<double>::infinity()), 0x7C00);
  EXPECT_EQ(DoubleToHalf(-std::numeric_limits<double>::infinity()), 0xFC00);
}

TEST(DoubleToHalf, NaNStaysNaN) {
  EXPECT_TRUE(IsHalfNaN(DoubleToHalf(std::nan(""))));
  EXPECT_TRUE(IsHalfNaN(DoubleToHalf(-std::nan(""))));
  EXPECT_TRUE(
      IsHalfNaN(DoubleToHalf(std::numeric_limits<double>::signaling_NaN())));
}

// Zeros keep their sign (frexp(0) must not make them normal numbers).
TEST(DoubleToHalf, SignedZero) {
  EXPECT_EQ(DoubleToHalf(0.0), 0x0000);
  EXPECT_EQ(DoubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(DoubleToHalf(HalfToFloat(0x0000)), 0x0000);
  EXPECT_EQ(DoubleToHalf(HalfToFloat(0x8000)), 0x8000);
}

TEST(HalfToFloat, ExactValues) {
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xBC00), -1.0f);
  EXPECT_EQ(HalfToFloat(0x4000), 2.0f);
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfToFloat(0x3C01), 1.0009765625f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(HalfToFloat(0xFBFF), -65504.0f);
  EXPECT_EQ(HalfToFloat(0x0400), std::ldexp(1.0f, -14));
}

TEST(HalfToFloat, Subnormals) {
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x03FF), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x0200), std::ldexp(1.0f, -15));
}

TEST(HalfToFloat, InfinityNaNAndSignedZero) {
  EXPECT_EQ(HalfToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(HalfToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7C01)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0xFE00)));
  EXPECT_EQ(HalfToFloat(0x0000), 0.0f);
  EXPECT_FALSE(std::signbit(HalfToFloat(0x0000)));
  EXPECT_EQ(HalfToFloat(0x8000), 0.0f);
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
}

TEST(Float16, RoundTripsEveryBitPattern) {
  int nans = 0;
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    uint16_t half = static_cast<uint16_t>(bits);
    float value = HalfToFloat(half);
    uint16_t back = DoubleToHalf(value);
    if (IsHalfNaN(half)) {
      ++nans;
      EXPECT_TRUE(std::isnan(value)) << std::hex << bits;
      EXPECT_TRUE(IsHalfNaN(back)) << std::hex << bits;
    } else {
      ASSERT_EQ(back, half) << std::hex << bits;
      EXPECT_EQ(std::signbit(value), (half & 0x8000) != 0) << std::hex << bits;
    }
  }
  EXPECT_EQ(nans, 2 * 1023);
}

TEST(Float16, EveryMidpointRoundsToTheEvenNeighbour) {
  // For each pair of adjacent positive finite halves, the exact midpoint
  // goes to the one with an even pattern and the doubles just beside it go
  // to the nearer one.
  for (uint16_t low = 0; low < 0x7BFF; ++low) {
    uint16_t high = low + 1;
    double mid = (static_cast<double>(HalfToFloat(low)) +
                  static_cast<double>(HalfToFloat(high))) /
                 2;
    uint16_t even = (low % 2 == 0) ? low : high;
    ASSERT_EQ(DoubleToHalf(mid), even) << std::hex << low;
    ASSERT_EQ(DoubleToHalf(std::nextafter(mid, 0.0)), low) << std::hex << low;
    ASSERT_EQ(DoubleToHalf(std::nextafter(mid, 1e9)), high) << std::hex << low;
    ASSERT_EQ(DoubleToHalf(-mid), even | 0x8000) << std::hex << low;
  }
}

}  // namespace
}  // namespace webnnm
