// CpuContext: what the kernels of one executable share: the oneDNN engine
// and stream and the number of compute threads.
//
// oneDNN in Debian uses OpenMP. ConfigureThreads() must run before anything
// else touches OpenMP (programs call it first in main): it asks OpenMP not
// to spin-wait (OMP_WAIT_POLICY=PASSIVE) and sets the default thread count.
// Each executable then runs its oneDNN primitives with its own thread count.
#ifndef WEBNNM_BACKENDS_CPU_CPU_CONTEXT_H_
#define WEBNNM_BACKENDS_CPU_CPU_CONTEXT_H_

#include <cstdint>

#include <dnnl.hpp>

#include "absl/status/status.h"

namespace webnnm::backends::cpu {

// Sets OMP_WAIT_POLICY=PASSIVE (unless the environment says otherwise) and
// the OpenMP thread count. Call once, first thing in main.
void ConfigureThreads(int threads);

class CpuContext {
 public:
  explicit CpuContext(int threads);

  dnnl::engine& engine() { return engine_; }
  dnnl::stream& stream() { return stream_; }
  int threads() const { return threads_; }
  // Whether kernels may use oneDNN primitives for operations that also have
  // a C++ kernel (gemm, convolutions, and all but the smallest float32
  // matmuls and softmaxes always do).
  bool use_dnnl() const { return use_dnnl_; }
  void set_use_dnnl(bool use) { use_dnnl_ = use; }
  // Whether an operation of `elements` elements (its largest tensor) is
  // worth a oneDNN primitive: below the minimum, a C++ kernel costs less
  // than oneDNN's per-call overhead.
  bool use_dnnl(int64_t elements) const {
    return use_dnnl_ && elements >= dnnl_minimum_elements_;
  }
  int64_t dnnl_minimum_elements() const { return dnnl_minimum_elements_; }
  void set_dnnl_minimum_elements(int64_t n) { dnnl_minimum_elements_ = n; }

  // Makes the calling thread run OpenMP regions with this context's count.
  void EnterThreads() const;
  // Runs the next OpenMP regions on the calling thread alone (small work,
  // where waking other threads costs more than it saves), until
  // EnterThreads().
  void EnterSingleThread() const;

  // Random streams: each randomUniform kernel takes its own stream number;
  // the seed and the run counter select the numbers.
  uint32_t NextRandomStream() { return next_stream_++; }
  void SetRandomState(uint64_t seed, uint64_t step) {
    random_seed_ = seed;
    random_step_ = step;
  }
  uint64_t random_seed() const { return random_seed_; }
  uint64_t random_step() const { return random_step_; }
  void AdvanceRandomStep() { ++random_step_; }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  int threads_;
  bool use_dnnl_ = true;
  int64_t dnnl_minimum_elements_ = 0;
  uint32_t next_stream_ = 0;
  uint64_t random_seed_ = 0;
  uint64_t random_step_ = 0;
};

// A oneDNN exception as a Status naming `what`.
absl::Status DnnlError(const char* what, const dnnl::error& error);

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_CPU_CONTEXT_H_
