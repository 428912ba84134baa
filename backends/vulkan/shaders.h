// The compute shaders (backends/vulkan/shaders/*.comp), compiled to SPIR-V
// by glslc at build time and embedded.
#ifndef WEBNNM_BACKENDS_VULKAN_SHADERS_H_
#define WEBNNM_BACKENDS_VULKAN_SHADERS_H_

#include <cstddef>
#include <cstdint>

namespace webnnm::backends::vulkan {

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
