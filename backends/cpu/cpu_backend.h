// The CPU backend: every WebNN operation, on oneDNN primitives where oneDNN
// 2.6 has the operation and on C++ kernels elsewhere (docs/backends.md).
// float16 operations compute in float32 and round each result.
#ifndef WEBNNM_BACKENDS_CPU_CPU_BACKEND_H_
#define WEBNNM_BACKENDS_CPU_CPU_BACKEND_H_

#include <memory>

#include "backends/backend.h"

namespace webnnm::backends::cpu {

std::unique_ptr<Backend> CreateCpuBackend();

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_CPU_BACKEND_H_
