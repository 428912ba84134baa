#include "backends/cpu/kernels/dnnl_util.h"

namespace webnnm::backends::cpu {

dnnl::memory::desc PlainDesc(const DnnlDims& dims) {
  DnnlDims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory::desc StridedDesc(const DnnlDims& dims, const DnnlDims& strides) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

F32Staging::F32Staging(ir::DType dtype, std::byte* buffer, int64_t count)
    : dtype_(dtype), buffer_(buffer), count_(count) {
  if (dtype == ir::DType::kFloat32) {
    data_ = reinterpret_cast<float*>(buffer);
  } else {
    copy_.resize(count);
    data_ = copy_.data();
  }
}

void F32Staging::Widen() {
  if (dtype_ == ir::DType::kFloat32 || buffer_ == nullptr) return;
  const Half* h = reinterpret_cast<const Half*>(buffer_);
  for (int64_t i = 0; i < count_; ++i) data_[i] = Load(h + i);
}

void F32Staging::Narrow() {
  if (dtype_ == ir::DType::kFloat32 || buffer_ == nullptr) return;
  Half* h = reinterpret_cast<Half*>(buffer_);
  for (int64_t i = 0; i < count_; ++i) Store(h + i, data_[i]);
}

}  // namespace webnnm::backends::cpu
