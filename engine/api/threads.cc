#include "engine/api/threads.h"

#include "backends/cpu/cpu_context.h"

namespace webnnm {

void ConfigureComputeThreads(int threads) {
  backends::cpu::ConfigureThreads(threads);
}

}  // namespace webnnm
