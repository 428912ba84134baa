// Transparent huge pages for large, randomly read buffers (a dataset's
// features): a training batch gathers rows from all over a buffer of
// hundreds of megabytes, and with 4 KiB pages nearly every row costs a TLB
// miss — on a virtual machine with shadow or nested page tables, a few
// microseconds each (measured: 64 Fashion-MNIST rows took 350 µs to gather
// with 4 KiB pages, 66 µs with 2 MiB pages; docs/performance.md).
//
// Both calls are advice: they never fail, change no values, and do nothing
// for buffers under 4 MiB or where the kernel lacks the feature (THP set
// to "never", or Linux before 6.1 for the collapse).
#ifndef WEBNNM_ENGINE_BASE_HUGE_PAGES_H_
#define WEBNNM_ENGINE_BASE_HUGE_PAGES_H_

#include <cstddef>

namespace webnnm {

// Before the buffer is first written: its pages, as they are touched, come
// as huge pages (madvise MADV_HUGEPAGE over its 2 MiB-aligned interior).
void AdviseHugePages(const void* data, size_t bytes);

// After the buffer is written: its 4 KiB pages are gathered into huge pages
// now (MADV_COLLAPSE, about 2 ms per MiB written with small pages; parts
// already huge are skipped), else advised as above.
void CollapseToHugePages(const void* data, size_t bytes);

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_BASE_HUGE_PAGES_H_
