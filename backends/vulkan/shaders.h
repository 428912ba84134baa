// The compute shaders (backends/vulkan/shaders/*.comp), compiled to SPIR-V
// by glslc at build time and embedded.
#ifndef WEBNNM_BACKENDS_VULKAN_SHADERS_H_
#define WEBNNM_BACKENDS_VULKAN_SHADERS_H_

#include <cstddef>
#include <cstdint>

namespace webnnm::backends::vulkan {

// Vulkan guarantees every device this many bytes of push constants
// (maxPushConstantsSize); each shader's block stays within it (checked
// where the shaders are defined, and against the device's own limit when a
// pipeline is made).
inline constexpr uint32_t kPushBytesGuaranteed = 128;

// The dimensions the shaders' push-constant arrays take. The strided
// shaders (binary, predicate, where, remap, gather_elements, gather_nd,
// scatter, quantize) take WebNN's largest rank; copy.comp one more (a
// 64-bit element walks as an inner dimension of two words). reduce.comp
// and norm.comp take fewer per group of dimensions: their planners fold
// neighbouring kept (or reduced) dimensions first, which leaves at most
// half of the rank in each group whose order is the tensor's
// (kernels/kernel.h, FoldDims). matmul.comp takes the batch of a rank-8
// matmul.
inline constexpr int kStridedRank = 8;
inline constexpr int kCopyRank = kStridedRank + 1;
inline constexpr int kReduceGroupRank = 6;
inline constexpr int kNormKeptRank = 4;
inline constexpr int kNormReducedRank = 8;  // in scale's order: may not fold
inline constexpr int kMatmulBatchRank = kStridedRank - 2;

struct Shader {
  const char* name;
  const uint32_t* code;  // SPIR-V words
  size_t words;
  int bindings;         // storage buffers 0..bindings-1
  uint32_t push_bytes;  // the push-constant block's size
};

// One per file in shaders/ (and one per variant, see CMakeLists.txt).
// With `half`, the variants reading and writing float16 (16-bit storage).
const Shader& UnaryShader(bool half);
const Shader& BinaryShader(bool half);
const Shader& CopyShader();
const Shader& MatmulShader();
// With `subgroups`, the variant built with subgroup operations.
const Shader& ReduceShader(bool subgroups);
const Shader& SoftmaxShader(bool subgroups);
const Shader& PredicateShader();
const Shader& WhereShader();
const Shader& CastShader();
const Shader& ArgShader();
const Shader& ConvShader();
const Shader& ConvTiledShader();
const Shader& PoolShader();
const Shader& PoolGradientShader();
const Shader& GatherShader();
const Shader& RandomShader();
const Shader& NormShader(bool subgroups);
const Shader& BatchNormShader();
const Shader& RemapShader();
const Shader& ScanShader();
const Shader& GatherElementsShader();
const Shader& GatherNdShader();
const Shader& ScatterShader();
const Shader& ResampleShader();
const Shader& QuantizeShader();

}  // namespace webnnm::backends::vulkan

#endif  // WEBNNM_BACKENDS_VULKAN_SHADERS_H_
