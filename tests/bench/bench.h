// webnnm-bench's workloads, each printing JSON lines on stdout.
#ifndef WEBNNM_TESTS_BENCH_BENCH_H_
#define WEBNNM_TESTS_BENCH_BENCH_H_

namespace webnnm::bench {

int RunOps(int threads);  // bench_ops.cc

}  // namespace webnnm::bench

#endif  // WEBNNM_TESTS_BENCH_BENCH_H_
