// oneDNN versions of the kernels that also have a C++ kernel.
//
// Each Try* function returns the oneDNN kernel of a node, or nullptr when
// oneDNN does not fit it: a data type other than float32/float16 (float16
// is staged through float32 and rounded once per operation), options
// oneDNN cannot express, NaN rules oneDNN does not keep, only a reference
// implementation in oneDNN, or a context that asks for C++ kernels
// (CompileOptions::reference_kernels). The factory then makes its C++
// kernel, which stays the reference for every case.
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_DNNL_KERNELS_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_DNNL_KERNELS_H_

#include <memory>
#include <vector>

#include "backends/cpu/kernel.h"

namespace webnnm::backends::cpu {

// relu, leakyRelu, elu, tanh, sigmoid, exp, sqrt, abs, neg, linear,
// softplus, hardSwish (dnnl_eltwise.cc).
std::unique_ptr<Kernel> TryDnnlEltwise(const KernelIO& io);
// Whether oneDNN's eltwise computes `node` (so it can also be a post-op).
bool DnnlEltwiseFusible(const ir::Node& node);
// add, sub, mul, div with one operand broadcast; prelu (dnnl_binary.cc).
std::unique_ptr<Kernel> TryDnnlBinary(const KernelIO& io);
// reduceSum, reduceMean, reduceProduct, reduceL1, reduceL2,
// reduceSumSquare (dnnl_reduction.cc).
std::unique_ptr<Kernel> TryDnnlReduction(const KernelIO& io);
// averagePool2d, maxPool2d (dnnl_pooling.cc).
std::unique_ptr<Kernel> TryDnnlPooling(const KernelIO& io);
// batchNormalization, layerNormalization over trailing axes (dnnl_norm.cc).
std::unique_ptr<Kernel> TryDnnlNormalization(const KernelIO& io);
// concat of any data type, as bytes (dnnl_concat.cc).
std::unique_ptr<Kernel> TryDnnlConcat(const KernelIO& io);
// resample2d in linear mode (dnnl_resampling.cc).
std::unique_ptr<Kernel> TryDnnlResampling(const KernelIO& io);
// conv2d without bias or groups whose filter has more positions than its
// result, as oneDNN's backward weights (conv_large_filter.cc).
std::unique_ptr<Kernel> TryLargeFilterConv2d(const KernelIO& io);
// The same when float32 nchw/oihw, stride and dilation 1, no padding, one
// thread, a result of at most nine positions and filter rows of at most 32
// columns, with AVX-512: direct loops (conv_large_filter_direct.cc; called
// by TryLargeFilterConv2d).
// Operands may be folded transposes of their first two dimensions
// (KernelIO::transposed).
std::unique_ptr<Kernel> TryDirectLargeFilterConv2d(const KernelIO& io);
// Whether it runs `conv` (the compiler folds transposes into it): the
// checks it makes of the node, its types, a bias operand and the threads.
bool DirectLargeFilterConv2dRuns(const ir::Node& conv, const ir::TensorType& x,
                                 const ir::TensorType& f,
                                 const ir::TensorType& y, bool bias,
                                 int threads);
// float32 nchw conv2d of one input channel, stride and dilation 1, as a
// direct loop instead of oneDNN's im2col path (conv_single_channel.cc).
std::unique_ptr<Kernel> TrySingleChannelConv2d(const KernelIO& io);
// Whether `conv` runs on that kernel with fused operations (fusion.h):
// float32, nchw, one input channel, stride and dilation 1, no groups.
bool SingleChannelConv2dFuses(const ir::Graph& graph, const ir::Node& conv);
// Whether `link`, reading the chain's value `v`, is one it applies: relu,
// or add of a tensor that holds one value per channel ({c, 1, 1}, with
// leading ones).
bool SingleChannelConv2dLink(const ir::Graph& graph, const ir::Node& link,
                             ir::ValueId v);
// transpose of 1- and 4-byte types, the result read through the input's
// permuted strides `src` (dnnl_reorder.cc).
std::unique_ptr<Kernel> TryDnnlTranspose(const KernelIO& io,
                                         const std::vector<int64_t>& src);
// lstm and gru with the default activations, lstm without peepholes
// (dnnl_rnn.cc).
std::unique_ptr<Kernel> TryDnnlRecurrent(const KernelIO& io);

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_DNNL_KERNELS_H_
