// Helpers for kernels built on oneDNN primitives: memory descriptors over
// our row-major buffers, and float32 staging for float16 tensors (oneDNN
// 2.6 has no float16 compute on this CPU: operands are widened, the float32
// result is rounded back to nearest even).
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_DNNL_UTIL_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_DNNL_UTIL_H_

#include <cstddef>
#include <vector>

#include <dnnl.hpp>

#include "backends/cpu/element.h"
#include "engine/ir/tensor_type.h"

namespace webnnm::backends::cpu {

using DnnlDims = dnnl::memory::dims;

// A plain row-major f32 descriptor of `dims`.
dnnl::memory::desc PlainDesc(const DnnlDims& dims);

// A f32 descriptor of `dims` laid out with `strides` (in elements).
dnnl::memory::desc StridedDesc(const DnnlDims& dims, const DnnlDims& strides);

// A float32 view of a tensor for oneDNN: the tensor's own buffer when it is
// float32, else a float32 copy made by Widen() / written back by Narrow().
class F32Staging {
 public:
  F32Staging(ir::DType dtype, std::byte* buffer, int64_t count);

  float* data() { return data_; }
  void Widen();   // float16 -> float32 (no-op for float32)
  void Narrow();  // float32 -> float16, nearest even (no-op for float32)

 private:
  ir::DType dtype_;
  std::byte* buffer_;
  int64_t count_;
  std::vector<float> copy_;
  float* data_;
};

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_DNNL_UTIL_H_
