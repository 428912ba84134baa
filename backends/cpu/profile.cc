#include "backends/cpu/profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string_view>

namespace webnnm::backends::cpu {

bool KernelProfile::Enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("WEBNNM_CPU_PROFILE");
    return v != nullptr && std::string_view(v) != "" &&
           std::string_view(v) != "0";
  }();
  return enabled;
}

bool KernelProfile::InRunOrder() {
  static const bool in_order = [] {
    const char* v = std::getenv("WEBNNM_CPU_PROFILE");
    return v != nullptr && std::string_view(v) == "order";
  }();
  return in_order;
}

std::string KernelProfile::Report() const {
  std::vector<size_t> order(labels_.size());
  std::iota(order.begin(), order.end(), 0);
  if (!InRunOrder()) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return nanoseconds_[a] > nanoseconds_[b];
    });
  }
  int64_t total = 0;
  for (int64_t ns : nanoseconds_) total += ns;
  std::string out;
  char line[96];
  std::snprintf(line, sizeof line, "cpu profile: %zu kernels, %.1f ms\n",
                labels_.size(), total / 1e6);
  out += line;
  for (size_t i : order) {
    if (runs_[i] == 0) continue;
    std::snprintf(line, sizeof line, "%9.1f ms %5.1f%% %8lld runs %9.1f us  ",
                  nanoseconds_[i] / 1e6,
                  total > 0 ? 100.0 * nanoseconds_[i] / total : 0.0,
                  static_cast<long long>(runs_[i]),
                  nanoseconds_[i] / 1e3 / runs_[i]);
    out += line;
    out += labels_[i];
    out += '\n';
  }
  return out;
}

}  // namespace webnnm::backends::cpu
