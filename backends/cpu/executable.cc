#include "backends/cpu/executable.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/base/strings.h"

namespace webnnm::backends::cpu {
namespace {

int64_t NanosecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

CpuExecutable::Buffer CpuExecutable::Allocate(size_t bytes) {
  size_t size =
      (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kAlignment, size));
  std::memset(p, 0, size);
  Buffer buffer;
  buffer.data = {p, [](std::byte* q) { std::free(q); }};
  buffer.size = bytes;
  return buffer;
}

std::span<std::byte> CpuExecutable::input(size_t i) { return input_views_[i]; }

std::span<const std::byte> CpuExecutable::output(size_t i) const {
  if (carried_output_[i]) return {};
  return output_views_[i];
}

std::vector<std::string> CpuExecutable::implementations() const {
  std::vector<std::string> result;
  for (size_t i = 0; i < kernels_.size(); ++i) {
    result.push_back(
        StrCat(kernel_names_[i], ": ", kernels_[i]->implementation()));
  }
  return result;
}

CpuExecutable::~CpuExecutable() {
  if (profile_) std::fputs(profile_->Report().c_str(), stderr);
}

absl::Status CpuExecutable::Run() {
  context_.EnterThreads();
  for (size_t i = 0; i < kernels_.size(); ++i) {
    absl::Status status;
    if (profile_) {
      auto start = std::chrono::steady_clock::now();
      status = kernels_[i]->Run();
      profile_->Record(i, NanosecondsSince(start));
    } else {
      status = kernels_[i]->Run();
    }
    if (!status.ok()) {
      return absl::Status(status.code(),
                          StrCat(kernel_names_[i], ": ", status.message()));
    }
  }
  context_.AdvanceRandomStep();
  auto start = profile_ ? std::chrono::steady_clock::now()
                        : std::chrono::steady_clock::time_point();
  for (const auto& [in, to] : kept_inputs_) {
    std::memcpy(to, input_views_[in].data(), input_views_[in].size());
  }
  for (const auto& [out, in] : carries_) {
    if (output_views_[out].data() != input_views_[in].data()) {
      std::memcpy(input_views_[in].data(), output_views_[out].data(),
                  input_views_[in].size());
    }
  }
  if (profile_) {  // the last entry: the copies of carried values
    profile_->Record(kernels_.size(), NanosecondsSince(start));
  }
  return absl::OkStatus();
}

}  // namespace webnnm::backends::cpu
