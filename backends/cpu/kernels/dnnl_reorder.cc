// transpose on oneDNN's reorder primitive, for data types of 1 and 4 bytes
// (moved as uint8 and int32, so every bit pattern, NaN payloads included,
// arrives unchanged): the result's dimensions read through the input's
// permuted strides. float16, the 8-byte types and int4/uint4 stay on the
// C++ strided copy.
#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"

namespace webnnm::backends::cpu {

std::unique_ptr<Kernel> TryDnnlTranspose(const KernelIO& io,
                                         const std::vector<int64_t>& src) {
  const ir::TensorType& y = *io.out_types[0];
  if (!UseDnnlFor(io) || y.rank() == 0 || ElementCount(y.shape) == 0) {
    return nullptr;
  }
  dnnl::memory::data_type type;
  switch (ir::RuntimeElementSize(y.dtype)) {
    case 1:
      type = dnnl::memory::data_type::u8;
      break;
    case 4:
      type = dnnl::memory::data_type::s32;
      break;
    default:
      return nullptr;
  }
  if (y.dtype == ir::DType::kInt4 || y.dtype == ir::DType::kUint4) {
    return nullptr;
  }
  try {
    const DnnlDims dims(y.shape.begin(), y.shape.end());
    const std::vector<int64_t> plain = Strides(y.shape);
    dnnl::memory::desc from(dims, type, DnnlDims(src.begin(), src.end()));
    dnnl::memory::desc to(dims, type, DnnlDims(plain.begin(), plain.end()));
    dnnl::reorder::primitive_desc pd(
        io.context.engine(), from, io.context.engine(), to, DnnlKernel::Attr());
    if (IsReference(pd)) return nullptr;
    auto kernel = std::make_unique<DnnlKernel>(io.context, "transpose");
    kernel->AddRaw(DNNL_ARG_FROM, from, const_cast<std::byte*>(io.in[0]));
    kernel->AddRaw(DNNL_ARG_TO, to, io.out[0]);
    kernel->SetPrimitive(pd);
    return kernel;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace webnnm::backends::cpu
