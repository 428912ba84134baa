// concat on oneDNN's concat primitive, for every data type: each operand is
// viewed as a [outer, slab bytes] uint8 matrix (outer = product of the
// dimensions before the axis) and the matrices are joined along their
// columns, which moves the bytes exactly as the C++ kernel does.
#include "backends/common/shape_util.h"
#include "backends/cpu/kernels/dnnl_kernels.h"
#include "backends/cpu/kernels/dnnl_util.h"

namespace webnnm::backends::cpu {

std::unique_ptr<Kernel> TryDnnlConcat(const KernelIO& io) {
  const ir::TensorType& y = *io.out_types[0];
  const int axis = static_cast<int>(io.attrs().GetInt("axis", 0));
  if (!UseDnnlFor(io) || axis < 0 || axis >= y.rank()) return nullptr;
  const int64_t size = ir::RuntimeElementSize(y.dtype);
  const int64_t outer = Outer(y.shape, axis);
  if (outer == 0) return nullptr;
  auto bytes = [](int64_t rows, int64_t columns) {
    return dnnl::memory::desc({rows, columns}, dnnl::memory::data_type::u8,
                              dnnl::memory::format_tag::ab);
  };
  std::vector<dnnl::memory::desc> sources;
  std::vector<const std::byte*> buffers;
  for (size_t k = 0; k < io.in.size(); ++k) {
    if (!io.has(k)) continue;
    const int64_t slab = Inner(io.in_types[k]->shape, axis) * size;
    if (slab == 0) continue;  // oneDNN takes no empty operand
    sources.push_back(bytes(outer, slab));
    buffers.push_back(io.in[k]);
  }
  if (sources.size() < 2) return nullptr;
  try {
    dnnl::memory::desc dst = bytes(outer, Inner(y.shape, axis) * size);
    dnnl::concat::primitive_desc pd(dst, 1, sources, io.context.engine(),
                                    DnnlKernel::Attr());
    if (IsReference(pd)) return nullptr;
    auto kernel = std::make_unique<DnnlKernel>(io.context, "concat");
    for (size_t k = 0; k < sources.size(); ++k) {
      kernel->AddRaw(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(k), sources[k],
                     const_cast<std::byte*>(buffers[k]));
    }
    kernel->AddRaw(DNNL_ARG_DST, dst, io.out[0]);
    kernel->SetPrimitive(pd);
    return kernel;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace webnnm::backends::cpu
