// Per-kernel timing of CPU executables, for development: with
// WEBNNM_CPU_PROFILE=1 in the environment every executable times each
// kernel's Run() and, when it is destroyed, prints to stderr its kernels in
// order of total time (operation, operand and result types, implementation,
// total milliseconds, runs, microseconds a run), and the copies of carried
// values after each run as one more entry; WEBNNM_CPU_PROFILE=order lists
// the kernels in the order they run instead. Without the variable
// nothing is timed (no clock is read).
#ifndef WEBNNM_BACKENDS_CPU_PROFILE_H_
#define WEBNNM_BACKENDS_CPU_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace webnnm::backends::cpu {

class KernelProfile {
 public:
  // Whether WEBNNM_CPU_PROFILE is set to something other than "" or "0"
  // (read once per process).
  static bool Enabled();
  // Whether WEBNNM_CPU_PROFILE is "order": Report() keeps the run order.
  static bool InRunOrder();

  // One label per kernel, in run order.
  void Add(std::string label) {
    labels_.push_back(std::move(label));
    nanoseconds_.push_back(0);
    runs_.push_back(0);
  }
  void Record(size_t kernel, int64_t nanoseconds) {
    nanoseconds_[kernel] += nanoseconds;
    ++runs_[kernel];
  }
  // The table, slowest first (or in run order), with the share of the
  // total.
  std::string Report() const;

 private:
  std::vector<std::string> labels_;
  std::vector<int64_t> nanoseconds_, runs_;
};

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_PROFILE_H_
