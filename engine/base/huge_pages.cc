#include "engine/base/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace webnnm {
namespace {

constexpr size_t kHuge = size_t{2} << 20;
constexpr size_t kMinimum = size_t{4} << 20;
#ifndef MADV_COLLAPSE
constexpr int MADV_COLLAPSE = 25;  // Linux 6.1's value; older kernels: EINVAL
#endif

// Calls madvise on the 2 MiB-aligned interior of [data, data + bytes); no
// call where none is left.
bool Advise(const void* data, size_t bytes, int advice) {
  if (data == nullptr || bytes < kMinimum) return false;
  const uintptr_t begin =
      (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end =
      (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end <= begin) return false;
  return ::madvise(reinterpret_cast<void*>(begin), end - begin, advice) == 0;
}

}  // namespace

void AdviseHugePages(const void* data, size_t bytes) {
  Advise(data, bytes, MADV_HUGEPAGE);
}

void CollapseToHugePages(const void* data, size_t bytes) {
  if (!Advise(data, bytes, MADV_COLLAPSE)) {
    Advise(data, bytes, MADV_HUGEPAGE);
  }
}

}  // namespace webnnm
