// Helpers for kernels built on oneDNN primitives: memory descriptors over
// our row-major buffers, and float32 staging for float16 tensors (oneDNN
// 2.6 has no float16 compute on this CPU: operands are widened, the float32
// result is rounded back to nearest even).
#ifndef WEBNNM_BACKENDS_CPU_KERNELS_DNNL_UTIL_H_
#define WEBNNM_BACKENDS_CPU_KERNELS_DNNL_UTIL_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernel.h"
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

// One oneDNN primitive as a kernel. Tensors are bound to the primitive's
// arguments as float32 views (float16 tensors staged: widened before the
// primitive runs, results rounded back after); oneDNN's scratchpad is
// allocated once, here, so Run() allocates nothing. A primitive over fewer
// than kParallelElements elements runs on the calling thread alone: with
// two threads, waking the second one costs several microseconds (add+tanh
// on 64x128: 9.1 us on two threads, 3.3 us on one).
inline constexpr int64_t kParallelElements = 65536;

// Whether the node's oneDNN kernel is wanted: oneDNN allowed, and the
// node's largest tensor big enough (CpuContext::use_dnnl(elements)).
bool UseDnnlFor(const KernelIO& io);

class DnnlKernel : public Kernel {
 public:
  DnnlKernel(CpuContext& context, const char* what)
      : context_(context), what_(what) {}

  // Attributes every primitive descriptor of this kernel must be made with
  // (user-managed scratchpad), plus what the caller adds.
  static dnnl::primitive_attr Attr();

  // Binds a tensor of `count` elements to argument `arg`.
  void AddInput(int arg, const dnnl::memory::desc& desc, ir::DType dtype,
                const std::byte* buffer, int64_t count);
  void AddOutput(int arg, const dnnl::memory::desc& desc, ir::DType dtype,
                 std::byte* buffer, int64_t count);
  // Binds memory as it is (no staging; any oneDNN data type).
  void AddRaw(int arg, const dnnl::memory::desc& desc, void* data);

  // Sets the primitive made from `pd` and allocates its scratchpad.
  void SetPrimitive(const dnnl::primitive_desc_base& pd);

  CpuContext& context() { return context_; }
  absl::Status Run() override;
  std::string implementation() const override { return implementation_; }

 private:
  CpuContext& context_;
  const char* what_;
  std::string implementation_;
  std::vector<std::unique_ptr<F32Staging>> inputs_, outputs_;
  int64_t elements_ = 0;  // the largest tensor bound
  std::vector<std::byte> scratchpad_;
  dnnl::primitive primitive_;
  std::unordered_map<int, dnnl::memory> args_;
};

// The oneDNN post-ops of the operations fused into a kernel (KernelIO::
// fused), with the memories of their other operands.
class PostOps {
 public:
  // Builds them for a plain row-major result of dims `dst` (other operands
  // broadcast against it, WebNN-style). False when oneDNN cannot express
  // one of them.
  bool Build(const std::vector<FusedOp>& fused, const DnnlDims& dst,
             const dnnl::engine& engine);
  bool empty() const { return ops_.len() == 0; }
  const dnnl::post_ops& ops() const { return ops_; }
  // Adds the operands' memories to a primitive's arguments.
  void Bind(std::unordered_map<int, dnnl::memory>& args) const;

 private:
  dnnl::post_ops ops_;
  std::unordered_map<int, dnnl::memory> args_;
};

// Appends the eltwise post-op of activation `node` (dnnl_eltwise.cc).
bool AppendEltwisePostOp(const ir::Node& node, dnnl::post_ops& ops);

// A reorder between one of our buffers and the format a primitive wants,
// when they differ: into the primitive's own memory for an operand, out of
// it into our buffer for a result (`into_user`).
struct MaybeReorder {
  std::optional<dnnl::reorder> reorder;
  std::unordered_map<int, dnnl::memory> args;

  // Returns the memory to bind to the primitive: `user` itself when it
  // already has the wanted format.
  dnnl::memory Prepare(const dnnl::memory& user,
                       const dnnl::memory::desc& wanted,
                       const dnnl::engine& engine, bool into_user);
  void Run(dnnl::stream& stream) {
    if (reorder) reorder->execute(stream, args);
  }
};

// Whether oneDNN picked its reference implementation for `pd` (plain loops,
// no faster than our C++ kernels): kernels then keep their C++ path.
bool IsReference(const dnnl::primitive_desc_base& pd);

}  // namespace webnnm::backends::cpu

#endif  // WEBNNM_BACKENDS_CPU_KERNELS_DNNL_UTIL_H_
