// The backend interface: compile a concrete graph once, run it many times.
//
// A Backend turns an ir::Graph whose every shape is fixed (a conformance
// graph, or the DAG lowered for a batch size) into an Executable. The
// Executable owns every buffer the graph needs: the caller writes inputs
// into the buffers it exposes, calls Run(), and reads the outputs in place;
// intermediates share memory by liveness. Compile errors (an operation or a
// data type the backend lacks, a size past the limits) and run errors are
// absl::Status values naming the operation.
//
// Thread-safety: a Backend may compile from several threads at once; an
// Executable is used by one thread at a time.
#ifndef WEBNNM_BACKENDS_BACKEND_H_
#define WEBNNM_BACKENDS_BACKEND_H_

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/graph.h"
#include "engine/ir/limits.h"

namespace webnnm::backends {

// An output whose value becomes an input's for the next Run() (a training
// step's new parameters and momenta): the backend carries it itself, on a
// device without passing through the host.
struct CarrySpec {
  std::string output;
  std::string input;
};

// An input the executable reads from memory the caller owns (data-parallel
// steps of one process read the parameters where the update keeps them):
// `size` bytes at `data`, exactly the input's, which must stay valid for
// the executable's lifetime and unchanged while it runs. The executable
// never writes them; its input() span is that memory.
struct SharedInput {
  std::string name;
  const std::byte* data = nullptr;
  size_t size = 0;
};

// A graph input or output as the caller sees it. Elements are stored
// row-major, little-endian, in ir::RuntimeElementSize bytes each.
struct TensorSpec {
  std::string name;
  ir::DType dtype = ir::DType::kFloat32;
  std::vector<int64_t> shape;
  size_t byte_size = 0;
};

class Executable {
 public:
  virtual ~Executable() = default;

  // Graph inputs (input and parameter nodes) and outputs, in graph order.
  const std::vector<TensorSpec>& inputs() const { return inputs_; }
  const std::vector<TensorSpec>& outputs() const { return outputs_; }
  int FindInput(std::string_view name) const;   // -1 if none
  int FindOutput(std::string_view name) const;  // -1 if none

  // Where input `i` lives: write it before Run(). Its contents persist
  // across runs until overwritten. For a carried input (CompileOptions::
  // carries) calling input() counts as writing it: what the span holds
  // replaces the carried value on the next Run(). Read a carried input's
  // value through Current(), and its size from inputs().
  virtual std::span<std::byte> input(size_t i) = 0;
  // Output `i`, valid after Run() until the next Run(). A carried output is
  // empty: its value is the carried input's Current().
  virtual std::span<const std::byte> output(size_t i) const = 0;
  // The value input `i` has for the next Run(): what the host wrote last,
  // or, for a carried input, the output carried into it (a device backend
  // copies it back for this call).
  virtual absl::StatusOr<std::span<const std::byte>> Current(size_t i) {
    return input(i);
  }

  // Runs the graph once on the current inputs.
  virtual absl::Status Run() = 0;

  // Bytes held for intermediate results (after reuse by liveness).
  virtual size_t intermediate_bytes() const = 0;

  // What computes each operation, in run order: "<op>: <implementation>"
  // (for example "add: oneDNN jit:avx512_core" or "gelu: C++").
  virtual std::vector<std::string> implementations() const = 0;

  // The random numbers of run `step` under `seed` (randomUniform): each
  // Run() uses the current step and then advances it by one.
  virtual void SetRandomState(uint64_t seed, uint64_t step) = 0;

 protected:
  // The carries of `specs` as (output, input) indices once inputs_ and
  // outputs_ are set: each names an existing output and input of the same
  // type and shape, each at most once, and the output is computed by the
  // graph or is the carried input itself (then carrying changes nothing).
  absl::StatusOr<std::vector<std::pair<int, int>>> ResolveCarries(
      const ir::Graph& graph, const std::vector<CarrySpec>& specs) const;

  std::vector<TensorSpec> inputs_;
  std::vector<TensorSpec> outputs_;
};

struct CompileOptions {
  int threads = 1;  // compute threads for this executable
  ir::Limits limits;
  // Run every operation that has one on the backend's own plain kernels
  // instead of an optimized library (to cross-check the two).
  bool reference_kernels = false;
  // Fuse element-wise operations into the operation before them where the
  // backend can (CPU: oneDNN post-ops; off with reference_kernels).
  bool fusion = true;
  // Operations on fewer elements than this (their largest tensor; for
  // matmul, multiply-adds) run on the backend's plain kernels, which have
  // no per-call library overhead; 0: the optimized library wherever it fits.
  int64_t library_minimum_elements = 4096;
  // Outputs carried into inputs after each run (Executable::Current()).
  std::vector<CarrySpec> carries;
  // Inputs read in place from the caller's memory (the CPU backend only;
  // another backend refuses them: Unimplemented). Never carried.
  std::vector<SharedInput> shared_inputs;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;
  // Whether operation `op` runs on tensors of type `dtype` (the type its
  // rule checks first: the input's, or the values' for where).
  virtual bool Supports(ir::OpKind op, ir::DType dtype) const = 0;
  // Compiles `graph` (every shape fixed). On failure the status names the
  // operation and why.
  virtual absl::StatusOr<std::unique_ptr<Executable>> Compile(
      const ir::Graph& graph, const CompileOptions& options) = 0;
};

// "cpu" or "vulkan" (Unavailable, naming what is missing, when there is no
// usable Vulkan device). An unknown name is an InvalidArgument error listing
// the known ones.
absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(std::string_view name);

}  // namespace webnnm::backends

#endif  // WEBNNM_BACKENDS_BACKEND_H_
