#include "engine/base/huge_pages.h"

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace webnnm {
namespace {

// AnonHugePages of this process, in KiB (-1 when it cannot be read).
int64_t AnonHugeKib() {
  std::ifstream in("/proc/self/smaps_rollup");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("AnonHugePages:", 0) == 0) {
      return std::stoll(line.substr(14));
    }
  }
  return -1;
}

// Whether the kernel gives huge pages on request (THP not "never").
bool HugePagesOnRequest() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(in, modes);
  return !modes.empty() && modes.find("[never]") == std::string::npos;
}

TEST(HugePages, AdviceKeepsTheValues) {
  std::vector<float> advised;
  advised.reserve(8 << 20);  // 32 MiB
  AdviseHugePages(advised.data(), advised.capacity() * sizeof(float));
  for (int i = 0; i < (8 << 20); ++i) advised.push_back(i * 0.5f);
  std::vector<float> collapsed(8 << 20);
  for (size_t i = 0; i < collapsed.size(); ++i) collapsed[i] = i * 0.25f;
  const int64_t before = AnonHugeKib();
  CollapseToHugePages(collapsed.data(), collapsed.size() * sizeof(float));
  for (size_t i = 0; i < advised.size(); i += 4099) {
    ASSERT_EQ(advised[i], i * 0.5f);
    ASSERT_EQ(collapsed[i], i * 0.25f);
  }
  if (HugePagesOnRequest() && before >= 0) {
    // At least most of the collapsed buffer (Linux >= 6.1 collapses at
    // once; the advised one may have come in huge pages too).
    EXPECT_GE(AnonHugeKib(), 16 << 10) << "before: " << before << " KiB";
  }
}

TEST(HugePages, SmallOrNullBuffersAreLeftAlone) {
  std::vector<float> small(1000, 1.0f);
  AdviseHugePages(small.data(), small.size() * sizeof(float));
  CollapseToHugePages(small.data(), small.size() * sizeof(float));
  AdviseHugePages(nullptr, 0);
  CollapseToHugePages(nullptr, size_t{64} << 20);
  EXPECT_EQ(small[999], 1.0f);
}

}  // namespace
}  // namespace webnnm
