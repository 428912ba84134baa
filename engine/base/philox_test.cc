#include "engine/base/philox.h"

#include <vector>

#include <gtest/gtest.h>

namespace webnnm {
namespace {

// Random123's known answers for Philox4x32-10 (its kat_vectors): counter,
// key (word 0 low), result.
TEST(Philox, KnownAnswers) {
  EXPECT_EQ(Philox4x32({0, 0, 0, 0}, 0),
            (PhiloxBlock{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                       0xffffffffffffffff),
            (PhiloxBlock{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                       0x299f31d0a4093822),
            (PhiloxBlock{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// A run of counters gives each counter's block — across the eight-block
// vectors and the tail, and where word 0 wraps past 2^32.
TEST(Philox, RunsGiveEachCountersBlock) {
  for (uint32_t first : {0u, 5u, 0xfffffff0u, 0xfffffffcu}) {
    for (size_t n : {0, 1, 7, 8, 9, 17, 64, 100}) {
      const PhiloxBlock counter{first, 3, 0x5eed, 11};
      const uint64_t key = 0x0123456789abcdef ^ (n * 977);
      std::vector<PhiloxBlock> run(n);
      Philox4x32Run(counter, key, run.data(), n);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(
            run[i],
            Philox4x32({static_cast<uint32_t>(first + i), 3, 0x5eed, 11}, key))
            << "first " << first << ", n " << n << ", block " << i;
      }
    }
  }
}

}  // namespace
}  // namespace webnnm
