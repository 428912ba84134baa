// The process's compute threads, as programs that link the engine set them
// (webnnmctl, webnnmd, webnnm-bench): the one call they make before any
// backend runs, so that no program reaches into a backend for it.
//
// ConfigureComputeThreads(n) must run first thing in main, before anything
// touches OpenMP: it asks OpenMP not to spin-wait (OMP_WAIT_POLICY=PASSIVE
// unless the environment says otherwise) and sets the default thread count
// of the CPU backend's oneDNN primitives. Each executable then runs with
// the thread count it was compiled for.
#ifndef WEBNNM_ENGINE_API_THREADS_H_
#define WEBNNM_ENGINE_API_THREADS_H_

namespace webnnm {

void ConfigureComputeThreads(int threads);

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_API_THREADS_H_
