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

template <size_t N>
constexpr Shader Make(const char* name, const uint32_t (&code)[N], int bindings,
                      uint32_t push_words) {
  return Shader{name, code, N, bindings, push_words * 4};
}

}  // namespace

// The push-constant sizes mirror each shader's `Push` block.
const Shader& UnaryShader(bool half) {
  static const Shader plain = Make("unary", kUnary, 2, 5);
  static const Shader halves = Make("unary_half", kUnaryHalf, 2, 5);
  return half ? halves : plain;
}
const Shader& BinaryShader(bool half) {
  static const Shader plain = Make("binary", kBinary, 3, 2 + 3 * 6);
  static const Shader halves = Make("binary_half", kBinaryHalf, 3, 2 + 3 * 6);
  return half ? halves : plain;
}
const Shader& CopyShader() {
  static const Shader s = Make("copy", kCopy, 2, 4 + 3 * 6);
  return s;
}
const Shader& MatmulShader() {
  static const Shader s = Make("matmul", kMatmul, 4, 4 + 3 * 4 + 6 + 2);
  return s;
}
const Shader& ReduceShader(bool subgroups) {
  static const Shader plain = Make("reduce", kReduce, 2, 4 + 4 * 6);
  static const Shader subgroup =
      Make("reduce_subgroup", kReduceSubgroup, 2, 4 + 4 * 6);
  return subgroups ? subgroup : plain;
}
const Shader& SoftmaxShader(bool subgroups) {
  static const Shader plain = Make("softmax", kSoftmax, 2, 3);
  static const Shader subgroup =
      Make("softmax_subgroup", kSoftmaxSubgroup, 2, 3);
  return subgroups ? subgroup : plain;
}

const Shader& PredicateShader() {
  static const Shader s = Make("predicate", kPredicate, 3, 2 + 3 * 6);
  return s;
}
const Shader& WhereShader() {
  static const Shader s = Make("where", kWhere, 4, 2 + 4 * 6);
  return s;
}
const Shader& ConvShader() {
  static const Shader s = Make("conv", kConv, 4, 21);
  return s;
}
const Shader& ConvTiledShader() {
  static const Shader s = Make("conv_tiled", kConvTiled, 4, 21);
  return s;
}
const Shader& PoolShader() {
  static const Shader s = Make("pool", kPool, 2, 15);
  return s;
}
const Shader& GatherShader() {
  static const Shader s = Make("gather", kGather, 3, 4);
  return s;
}
const Shader& RandomShader() {
  static const Shader s = Make("random", kRandom, 2, 2);
  return s;
}
const Shader& NormShader(bool subgroups) {
  static const Shader plain = Make("norm", kNorm, 4, 22);
  static const Shader subgroup = Make("norm_subgroup", kNormSubgroup, 4, 22);
  return subgroups ? subgroup : plain;
}
const Shader& BatchNormShader() {
  static const Shader s = Make("batchnorm", kBatchNorm, 6, 4);
  return s;
}
const Shader& RemapShader() {
  static const Shader s = Make("remap", kRemap, 2, 24);
  return s;
}
const Shader& ScanShader() {
  static const Shader s = Make("scan", kScan, 2, 3);
  return s;
}
const Shader& GatherElementsShader() {
  static const Shader s = Make("gather_elements", kGatherElements, 3, 16);
  return s;
}
const Shader& GatherNdShader() {
  static const Shader s = Make("gather_nd", kGatherNd, 3, 15);
  return s;
}
const Shader& ScatterShader() {
  static const Shader s = Make("scatter", kScatter, 3, 17);
  return s;
}
const Shader& ArgShader() {
  static const Shader s = Make("arg", kArg, 2, 3);
  return s;
}
const Shader& ResampleShader() {
  static const Shader s = Make("resample", kResample, 2, 3 + 2 * 4);
  return s;
}
const Shader& QuantizeShader() {
  static const Shader s = Make("quantize", kQuantize, 4, 2 + 3 * 6);
  return s;
}
const Shader& CastShader() {
  static const Shader s = Make("cast", kCast, 2, 1);
  return s;
}

}  // namespace webnnm::backends::vulkan
