#include "backends/cpu/cpu_context.h"

#include <omp.h>

#include <cstdlib>

#include "engine/base/strings.h"

namespace webnnm::backends::cpu {

void ConfigureThreads(int threads) {
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  omp_set_num_threads(threads < 1 ? 1 : threads);
}

CpuContext::CpuContext(int threads)
    : engine_(dnnl::engine::kind::cpu, 0),
      stream_(engine_),
      threads_(threads < 1 ? 1 : threads) {}

void CpuContext::EnterThreads() const { omp_set_num_threads(threads_); }

void CpuContext::EnterSingleThread() const { omp_set_num_threads(1); }

absl::Status DnnlError(const char* what, const dnnl::error& error) {
  return absl::InternalError(
      StrCat("oneDNN could not run ", what, ": ", error.what()));
}

}  // namespace webnnm::backends::cpu
