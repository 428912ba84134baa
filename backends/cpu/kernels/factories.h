// The kernel factories of the CPU backend, one group per file in kernels/.
// kernel_table.cc maps every operation to one of these.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_FACTORIES_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_FACTORIES_H_

#include "backends/cpu/kernel.h"

namespace webnnm::backends::cpu {

using MadeKernel = absl::StatusOr<std::unique_ptr<Kernel>>;

MadeKernel MakeUnaryKernel(const KernelIO& io);           // unary.cc
MadeKernel MakeClampKernel(const KernelIO& io);           // unary.cc
MadeKernel MakeBinaryKernel(const KernelIO& io);          // binary.cc
MadeKernel MakeWhereKernel(const KernelIO& io);           // binary.cc
MadeKernel MakeCastKernel(const KernelIO& io);            // cast.cc
MadeKernel MakeQuantizeKernel(const KernelIO& io);        // quantize.cc
MadeKernel MakeDequantizeKernel(const KernelIO& io);      // quantize.cc
MadeKernel MakeReduceKernel(const KernelIO& io);          // reduce.cc
MadeKernel MakeArgReduceKernel(const KernelIO& io);       // reduce.cc
MadeKernel MakeCumulativeSumKernel(const KernelIO& io);   // reduce.cc
MadeKernel MakeCopyKernel(const KernelIO& io);            // layout.cc (reshape)
MadeKernel MakeExpandKernel(const KernelIO& io);          // layout.cc
MadeKernel MakeTransposeKernel(const KernelIO& io);       // layout.cc
MadeKernel MakeTileKernel(const KernelIO& io);            // layout.cc
MadeKernel MakeReverseKernel(const KernelIO& io);         // layout.cc
MadeKernel MakeTriangularKernel(const KernelIO& io);      // layout.cc
MadeKernel MakeSliceKernel(const KernelIO& io);           // slice.cc
MadeKernel MakePadKernel(const KernelIO& io);             // slice.cc
MadeKernel MakeConcatKernel(const KernelIO& io);          // slice.cc
MadeKernel MakeSplitKernel(const KernelIO& io);           // slice.cc
MadeKernel MakeGatherKernel(const KernelIO& io);          // gather.cc
MadeKernel MakeGatherElementsKernel(const KernelIO& io);  // gather.cc
MadeKernel MakeGatherNDKernel(const KernelIO& io);        // gather.cc
MadeKernel MakeScatterElementsKernel(const KernelIO& io);        // scatter.cc
MadeKernel MakeScatterNDKernel(const KernelIO& io);              // scatter.cc
MadeKernel MakeMatmulKernel(const KernelIO& io);                 // matmul.cc
MadeKernel MakeGemmKernel(const KernelIO& io);                   // matmul.cc
MadeKernel MakeConv2dKernel(const KernelIO& io);                 // conv.cc
MadeKernel MakeConvTranspose2dKernel(const KernelIO& io);        // conv.cc
MadeKernel MakePoolKernel(const KernelIO& io);                   // pool.cc
MadeKernel MakeMaxPoolGradientKernel(const KernelIO& io);  // pool_gradient.cc
MadeKernel MakeSoftmaxKernel(const KernelIO& io);                // softmax.cc
MadeKernel MakeBatchNormalizationKernel(const KernelIO& io);     // norm.cc
MadeKernel MakeInstanceNormalizationKernel(const KernelIO& io);  // norm.cc
MadeKernel MakeLayerNormalizationKernel(const KernelIO& io);     // norm.cc
MadeKernel MakeResample2dKernel(const KernelIO& io);             // resample.cc
MadeKernel MakeGruKernel(const KernelIO& io);                    // recurrent.cc
MadeKernel MakeLstmKernel(const KernelIO& io);                   // recurrent.cc
MadeKernel MakeRandomUniformKernel(const KernelIO& io);          // random.cc

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_FACTORIES_H_
