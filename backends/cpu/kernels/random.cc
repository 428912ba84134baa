// randomUniform: uniform numbers in [0, 1) from Philox4x32-10. Element i of
// the operation's stream on run `step` comes from counter (i / 4, stream,
// step), keyed by the executable's seed (Executable::SetRandomState), so a
// run is reproducible from (seed, step) alone.
#include "backends/common/shape_util.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernels/factories.h"
#include "engine/base/philox.h"

namespace webnnm::backends::cpu {

MadeKernel MakeRandomUniformKernel(const KernelIO& io) {
  int64_t n = ElementCount(io.out_types[0]->shape);
  uint32_t stream = io.context.NextRandomStream();
  const CpuContext* context = &io.context;
  return DispatchFloat(io.out_types[0]->dtype, [&](auto tag) -> MadeKernel {
    using T = typename decltype(tag)::type;
    T* y = reinterpret_cast<T*>(io.out[0]);
    return MakeFunctionKernel([=] {
      uint64_t step = context->random_step();
      for (int64_t block = 0; block * 4 < n; ++block) {
        PhiloxBlock bits = Philox4x32(
            {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
             stream, static_cast<uint32_t>(step)},
            context->random_seed() ^ (step >> 32) * 0x9E3779B97F4A7C15ull);
        for (int64_t j = 0; j < 4 && block * 4 + j < n; ++j) {
          float u = UniformFloat(bits[j]);
          if constexpr (std::is_same_v<T, Half>) {
            // Round down so that float16 never reaches 1.
            uint16_t h = FloatToHalfBits(u);
            if (HalfBitsToFloat(h) >= 1.0f) h = 0x3BFF;
            y[block * 4 + j].bits = h;
          } else {
            y[block * 4 + j] = u;
          }
        }
      }
    });
  });
}

}  // namespace webnnm::backends::cpu
