#include "backends/vulkan/shaders.h"

namespace webnnm::backends::vulkan {
namespace {

// glslc -mfmt=c writes each module as a braced list of words.
constexpr uint32_t kUnary[] =
#include "unary.spv.inc"
    ;
constexpr uint32_t kBinary[] =
#include "binary.spv.inc"
    ;
constexpr uint32_t kCopy[] =
#include "copy.spv.inc"
    ;
constexpr uint32_t kMatmul[] =
#include "matmul.spv.inc"
    ;
constexpr uint32_t kReduce[] =
#include "reduce.spv.inc"
    ;
constexpr uint32_t kSoftmax[] =
#include "softmax.spv.inc"
    ;
constexpr uint32_t kPredicate[] =
#include "predicate.spv.inc"
    ;
constexpr uint32_t kWhere[] =
#include "where.spv.inc"
    ;
constexpr uint32_t kCast[] =
#include "cast.spv.inc"
    ;
constexpr uint32_t kArg[] =
#include "arg.spv.inc"
    ;
constexpr uint32_t kConv[] =
#include "conv.spv.inc"
    ;
constexpr uint32_t kPool[] =
#include "pool.spv.inc"
    ;
constexpr uint32_t kPoolGradient[] =
#include "pool_gradient.spv.inc"
    ;
constexpr uint32_t kGather[] =
#include "gather.spv.inc"
    ;
constexpr uint32_t kRandom[] =
#include "random.spv.inc"
    ;
constexpr uint32_t kNorm[] =
#include "norm.spv.inc"
    ;
constexpr uint32_t kBatchNorm[] =
#include "batchnorm.spv.inc"
    ;
constexpr uint32_t kRemap[] =
#include "remap.spv.inc"
    ;
constexpr uint32_t kScan[] =
#include "scan.spv.inc"
    ;
constexpr uint32_t kGatherElements[] =
#include "gather_elements.spv.inc"
    ;
constexpr uint32_t kGatherNd[] =
#include "gather_nd.spv.inc"
    ;
constexpr uint32_t kScatter[] =
#include "scatter.spv.inc"
    ;
constexpr uint32_t kReduceSubgroup[] =
#include "reduce_subgroup.spv.inc"
    ;
constexpr uint32_t kUnaryHalf[] =
#include "unary_half.spv.inc"
    ;
constexpr uint32_t kBinaryHalf[] =
#include "binary_half.spv.inc"
    ;
constexpr uint32_t kSoftmaxSubgroup[] =
#include "softmax_subgroup.spv.inc"
    ;
constexpr uint32_t kNormSubgroup[] =
#include "norm_subgroup.spv.inc"
    ;
constexpr uint32_t kConvTiled[] =
#include "conv_tiled.spv.inc"
    ;
constexpr uint32_t kResample[] =
#include "resample.spv.inc"
    ;
constexpr uint32_t kQuantize[] =
#include "quantize.spv.inc"
    ;

// A shader whose push-constant block is `kPushWords` words, within what
// every Vulkan device offers.
template <uint32_t kPushWords, size_t N>
constexpr Shader Make(const char* name, const uint32_t (&code)[N],
                      int bindings) {
  static_assert(kPushWords * 4 <= kPushBytesGuaranteed,
                "a push-constant block past Vulkan's guaranteed 128 bytes");
  return Shader{name, code, N, bindings, kPushWords * 4};
}

constexpr uint32_t R = kStridedRank;
constexpr uint32_t kNormPush = 4 + 2 * kNormKeptRank + 2 * kNormReducedRank + 2;

}  // namespace

// The push-constant sizes mirror each shader's `Push` block.
const Shader& UnaryShader(bool half) {
  static const Shader plain = Make<5>("unary", kUnary, 2);
  static const Shader halves = Make<5>("unary_half", kUnaryHalf, 2);
  return half ? halves : plain;
}
const Shader& BinaryShader(bool half) {
  static const Shader plain = Make<2 + 3 * R>("binary", kBinary, 3);
  static const Shader halves = Make<2 + 3 * R>("binary_half", kBinaryHalf, 3);
  return half ? halves : plain;
}
const Shader& CopyShader() {
  static const Shader s = Make<4 + 3 * kCopyRank>("copy", kCopy, 2);
  return s;
}
const Shader& MatmulShader() {
  static const Shader s =
      Make<4 + 3 * kMatmulBatchRank + 6 + 2>("matmul", kMatmul, 4);
  return s;
}
const Shader& ReduceShader(bool subgroups) {
  static const Shader plain =
      Make<4 + 4 * kReduceGroupRank>("reduce", kReduce, 2);
  static const Shader subgroup =
      Make<4 + 4 * kReduceGroupRank>("reduce_subgroup", kReduceSubgroup, 2);
  return subgroups ? subgroup : plain;
}
const Shader& SoftmaxShader(bool subgroups) {
  static const Shader plain = Make<3>("softmax", kSoftmax, 2);
  static const Shader subgroup =
      Make<3>("softmax_subgroup", kSoftmaxSubgroup, 2);
  return subgroups ? subgroup : plain;
}

const Shader& PredicateShader() {
  static const Shader s = Make<2 + 3 * R>("predicate", kPredicate, 3);
  return s;
}
const Shader& WhereShader() {
  static const Shader s = Make<4 * R>("where", kWhere, 4);
  return s;
}
const Shader& ConvShader() {
  static const Shader s = Make<21>("conv", kConv, 4);
  return s;
}
const Shader& ConvTiledShader() {
  static const Shader s = Make<21>("conv_tiled", kConvTiled, 4);
  return s;
}
const Shader& PoolShader() {
  static const Shader s = Make<15>("pool", kPool, 2);
  return s;
}
const Shader& PoolGradientShader() {
  static const Shader s = Make<7>("pool_gradient", kPoolGradient, 3);
  return s;
}
const Shader& GatherShader() {
  static const Shader s = Make<4>("gather", kGather, 3);
  return s;
}
const Shader& RandomShader() {
  static const Shader s = Make<2>("random", kRandom, 2);
  return s;
}
const Shader& NormShader(bool subgroups) {
  static const Shader plain = Make<kNormPush>("norm", kNorm, 4);
  static const Shader subgroup =
      Make<kNormPush>("norm_subgroup", kNormSubgroup, 4);
  return subgroups ? subgroup : plain;
}
const Shader& BatchNormShader() {
  static const Shader s = Make<4>("batchnorm", kBatchNorm, 6);
  return s;
}
const Shader& RemapShader() {
  static const Shader s = Make<2 + 3 * R + 4>("remap", kRemap, 2);
  return s;
}
const Shader& ScanShader() {
  static const Shader s = Make<3>("scan", kScan, 2);
  return s;
}
const Shader& GatherElementsShader() {
  static const Shader s =
      Make<3 + 2 * R + 1>("gather_elements", kGatherElements, 3);
  return s;
}
const Shader& GatherNdShader() {
  static const Shader s = Make<3 + 2 * R>("gather_nd", kGatherNd, 3);
  return s;
}
const Shader& ScatterShader() {
  static const Shader s = Make<4 + 2 * R + 1>("scatter", kScatter, 3);
  return s;
}
const Shader& ArgShader() {
  static const Shader s = Make<3>("arg", kArg, 2);
  return s;
}
const Shader& ResampleShader() {
  static const Shader s = Make<3 + 2 * 4>("resample", kResample, 2);
  return s;
}
const Shader& QuantizeShader() {
  static const Shader s = Make<2 + 3 * R>("quantize", kQuantize, 4);
  return s;
}
const Shader& CastShader() {
  static const Shader s = Make<1>("cast", kCast, 2);
  return s;
}

}  // namespace webnnm::backends::vulkan
