// ExpDoubles against std::exp and LogDoubles against std::log: within two
// units in the last place, the same floats when rounded, special values
// and array tails.
#include "backends/cpu/kernels/exp_doubles.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace webnnm::backends::cpu {
namespace {

TEST(ExpDoubles, AgreesWithStdExpToTheLastPlaceOrTwo) {
  std::vector<double> x;
  // A loss's differences from a row's maximum, [-40, 0], finely, and the
  // whole finite range coarsely, both signs.
  for (int i = 0; i <= 200000; ++i) x.push_back(-40.0 * i / 200000.0);
  for (int i = 0; i <= 14000; ++i)
    x.push_back(-700.0 + 0.1 * i + 1e-3 * (i % 7));
  std::vector<double> got = x;
  ExpDoubles(got.data(), static_cast<int64_t>(got.size()));
  int64_t float_mismatches = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(x[i]);
    ASSERT_NEAR(got[i], want, 4.5e-16 * want) << "x = " << x[i];
    float_mismatches += static_cast<float>(got[i]) != static_cast<float>(want);
  }
  // Rounded to float the two differ only within ~2^-28 of a boundary.
  EXPECT_EQ(float_mismatches, 0);
}

TEST(ExpDoubles, SpecialValuesAndTails) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x = {-inf, inf,    nan,    709.7, 710.0, -745.1,
                           -750, -700.5, 700.5,  0.0,   -0.0,  1e-300,
                           -1.0, 2.5,    -1e-17, 88.7,  -87.3};
  std::vector<double> got = x;
  ExpDoubles(got.data(), static_cast<int64_t>(got.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    SCOPED_TRACE(x[i]);
    const double want = std::exp(x[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i]));
    } else if (std::isinf(want) || want == 0.0) {
      EXPECT_EQ(got[i], want);
    } else {
      EXPECT_NEAR(got[i], want, 4.5e-16 * want);
    }
  }
  // Every length up to two vectors and a bit: the tail lanes are written,
  // nothing past the end is.
  for (int n = 0; n <= 19; ++n) {
    std::vector<double> v(n + 1);
    for (int i = 0; i <= n; ++i) v[i] = -0.37 * i;
    ExpDoubles(v.data(), n);
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(v[i], std::exp(-0.37 * i), 4.5e-16) << n << " " << i;
    }
    EXPECT_EQ(v[n], -0.37 * n) << n;
  }
}

TEST(LogDoubles, AgreesWithStdLogToTheLastPlaceOrTwo) {
  std::vector<double> x;
  // A log-sum-exp's sums of a row's exponentials, [1, 64], finely (and
  // just above 1, where the logarithm is small), and the whole normal
  // range coarsely.
  for (int i = 0; i <= 400000; ++i) x.push_back(1.0 + 63.0 * i / 400000.0);
  for (int i = 1; i <= 20000; ++i) x.push_back(1.0 + i * 1e-12);
  for (int i = 0; i <= 20000; ++i) {
    x.push_back(std::pow(10.0, -307.0 + 614.0 * i / 20000.0));
  }
  std::vector<double> got = x;
  LogDoubles(got.data(), static_cast<int64_t>(got.size()));
  int64_t float_mismatches = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::log(x[i]);
    ASSERT_NEAR(got[i], want, 4.5e-16 * std::abs(want)) << "x = " << x[i];
    float_mismatches += static_cast<float>(got[i]) != static_cast<float>(want);
  }
  // Rounded to float the two differ only within ~2^-28 of a boundary.
  EXPECT_EQ(float_mismatches, 0);
}

TEST(LogDoubles, SpecialValuesAndTails) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x = {
      0.0, -0.0,   inf,      -inf,  nan, -1.0,   1.0,  2.0,
      0.5, 1e-310, 4.9e-324, 1e308, 3.0, 1.4999, 0.75, 2.2250738585072014e-308};
  std::vector<double> got = x;
  LogDoubles(got.data(), static_cast<int64_t>(got.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    SCOPED_TRACE(x[i]);
    const double want = std::log(x[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i]));
    } else if (std::isinf(want) || want == 0.0) {
      EXPECT_EQ(got[i], want);
    } else {
      EXPECT_NEAR(got[i], want, 4.5e-16 * std::abs(want));
    }
  }
  for (int n = 0; n <= 19; ++n) {
    std::vector<double> v(n + 1);
    for (int i = 0; i <= n; ++i) v[i] = 1.0 + 0.37 * i;
    LogDoubles(v.data(), n);
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(v[i], std::log(1.0 + 0.37 * i), 4.5e-16 * 4) << n << " " << i;
    }
    EXPECT_EQ(v[n], 1.0 + 0.37 * n) << "past the end, n = " << n;
  }
}

}  // namespace
}  // namespace webnnm::backends::cpu
