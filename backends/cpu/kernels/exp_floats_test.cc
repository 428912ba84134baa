// ExpFloats and SigmoidFloats against the scalar expressions they replace:
// the same bits on a sweep through the float bit patterns (one in 127 of
// magnitude below 88, one in 4093 of all),
// the boundaries of glibc's special cases, every tail length, in place.
#include "backends/cpu/kernels/exp_floats.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace webnnm::backends::cpu {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Every 61st bit pattern (all signs, exponents and mantissa residues),
// then the awkward values: zeros, infinities, NaNs of both signs with
// payloads, subnormals, and both sides of where e^x overflows (88.72),
// becomes subnormal (-87.34) and underflows to zero (-103.97, -103.28).
std::vector<float> Sweep() {
  std::vector<float> x;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 4093) {
    x.push_back(FromBits(static_cast<uint32_t>(u)));
  }
  // Magnitudes below 88, where the vector arithmetic answers: one bit
  // pattern in 127 of each sign.
  for (uint32_t u = 0; u < 0x42b00000u; u += 127) {
    x.push_back(FromBits(u));
    x.push_back(FromBits(u | 0x80000000u));
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float v :
       {0.0f, -0.0f, inf, -inf, FromBits(0x7fc00001u), FromBits(0xffc00000u),
        FromBits(0x7f800001u), 1e-45f, -1e-45f, 1e-38f, 88.0f, -88.0f,
        0x1.62e42ep6f, 0x1.62e430p6f, -0x1.5d589ep6f, -0x1.9fe368p6f,
        -0x1.9fe36ap6f, -0x1.9d1d9ep6f, -0x1.9d1da0p6f}) {
    for (int d = -3; d <= 3; ++d) {
      x.push_back(std::isfinite(v) ? std::nextafter(v, d < 0 ? -inf : inf) : v);
      x.push_back(v);
    }
  }
  return x;
}

TEST(ExpFloats, SameBitsAsStdExp) {
  const std::vector<float> x = Sweep();
  std::vector<float> y(x.size());
  ExpFloats(x.data(), y.data(), static_cast<int64_t>(x.size()));
  int64_t mismatches = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (Bits(y[i]) != Bits(std::exp(x[i]))) {
      if (++mismatches <= 5) {
        ADD_FAILURE() << "exp(" << x[i] << " = 0x" << std::hex << Bits(x[i])
                      << "): 0x" << Bits(y[i]) << ", std::exp 0x"
                      << Bits(std::exp(x[i]));
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << x.size();
}

TEST(ExpFloats, SigmoidSameBitsAsTheScalarExpression) {
  const std::vector<float> x = Sweep();
  std::vector<float> y(x.size());
  SigmoidFloats(x.data(), y.data(), static_cast<int64_t>(x.size()));
  int64_t mismatches = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = 1.0f / (1.0f + std::exp(-x[i]));
    mismatches += Bits(y[i]) != Bits(want);
  }
  EXPECT_EQ(mismatches, 0) << "of " << x.size();
}

TEST(ExpFloats, EveryTailLengthInPlaceLeavesTheRestAlone) {
  for (int64_t n = 0; n <= 40; ++n) {
    SCOPED_TRACE(n);
    std::vector<float> v(n + 1);
    for (int64_t i = 0; i < n; ++i) v[i] = -3.0f + 0.37f * i;
    v[n] = 12345.0f;  // past the end: untouched
    std::vector<float> want(v);
    for (int64_t i = 0; i < n; ++i) want[i] = std::exp(v[i]);
    ExpFloats(v.data(), v.data(), n);
    for (int64_t i = 0; i <= n; ++i) EXPECT_EQ(Bits(v[i]), Bits(want[i])) << i;
    std::vector<float> s(n + 1, 0.5f), want_s(n + 1, 0.5f);
    for (int64_t i = 0; i < n; ++i) {
      s[i] = 0.25f * i - 4.0f;
      want_s[i] = 1.0f / (1.0f + std::exp(-s[i]));
    }
    SigmoidFloats(s.data(), s.data(), n);
    for (int64_t i = 0; i <= n; ++i)
      EXPECT_EQ(Bits(s[i]), Bits(want_s[i])) << i;
  }
}

}  // namespace
}  // namespace webnnm::backends::cpu
