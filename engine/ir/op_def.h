// Operation definitions: one OpDef per entry of op_list.def.
//
// An OpDef is the single description of an operation that the rest of the
// system reads: its operand slots (and which of them may be trainable
// parameters), its attribute schema (with the model language's defaults for
// named axes), its validation and shape/type rule, how the DAG builder infers
// the shapes of parameters it consumes, and, for high-level operations, how it
// decomposes into WebNN operations. Definitions are immutable statics; all
// functions here are thread-safe.
//
// Rule errors are absl::InvalidArgumentError values. A rule that blames one
// attribute or one operand attaches it with AttrError/OperandError (see
// rule_errors.h) so that the DAG builder can point at what the user wrote.
#ifndef WEBNNM_ENGINE_IR_OP_DEF_H_
#define WEBNNM_ENGINE_IR_OP_DEF_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ir/attrs.h"
#include "engine/ir/dtype.h"
#include "engine/ir/limits.h"
#include "engine/ir/tensor_type.h"

namespace webnnm::ir {

enum class OpKind : int {
#define OP(id, name) k##id,
#include "engine/ir/op_list.def"
#undef OP
  kCount
};
inline constexpr int kNumOps = static_cast<int>(OpKind::kCount);

enum class OpCategory {
  kElementwise,    // math on each element (add, exp, ...)
  kActivation,     // relu, sigmoid, softmax, ...
  kComparison,     // equal, greater, ... (uint8 results)
  kLogical,        // logicalAnd, ... (uint8 in and out)
  kCast,           // cast, quantizeLinear, dequantizeLinear
  kMovement,       // reshape, transpose, slice, gather, ...
  kReduction,      // reduce*, argMin/argMax, cumulativeSum
  kNormalization,  // batch/instance/layer normalization
  kMatrix,         // matmul, gemm (parameter-heavy)
  kConvolution,    // conv2d, convTranspose2d (parameter-heavy)
  kPooling,        // average/l2/max pooling
  kRecurrent,      // gru, gruCell, lstm, lstmCell
  kHighLevel,      // decomposed into WebNN operations
  kInternal,       // helpers WebNN lacks (randomUniform)
};

// How a trainable parameter in an operand slot is initialised, and whether a
// slot accepts one at all.
enum class ParamRole {
  kNone,          // not trainable: a constant, literal or layer output only
  kWeight,        // He or Glorot, chosen by the activation that follows
  kGlorotWeight,  // always Glorot (recurrent and attention projections)
  kBias,          // zeros
  kScale,         // ones
  kSlope,         // prelu slope: zeros (prelu starts as relu)
  // Non-trainable state the DAG builder adds itself (batch normalization's
  // running statistics); a name the user writes here must be a constant or
  // a layer output.
  kRunningMean,      // zeros
  kRunningVariance,  // ones
};

// The initialisation an activation implies for the weights before it.
enum class WeightInit { kNone, kHe, kGlorot };

struct OperandSpec {
  const char* name = "";       // WebNN argument or option name
  DTypeSet types = kAllTypes;  // data types WebNN allows here
  bool optional = false;
  bool variadic = false;  // takes all remaining operands (concat)
  // Shares the op's compute type: every present operand of the group has the
  // same data type, and the DAG builder casts them to it together.
  bool in_type_group = true;
  ParamRole param = ParamRole::kNone;
  // When the model language leaves this operand out, the DAG builder passes
  // zeros of the shape the op's solver gives (recurrent cell states).
  bool zeros_if_absent = false;
};

enum class AttrKind {
  kInt,    // integer
  kUint,   // non-negative integer
  kFloat,  // number (also accepts "Infinity", "-Infinity", "NaN")
  kBool,
  kEnum,         // one of `choices`
  kDType,        // a data type name
  kAxis,         // an axis: a dimension name or a feature index
  kAxes,         // a list of axes
  kPermutation,  // a list of axes covering the tensor (batch/sequence allowed)
  kInts,         // a list of integers
  kFloats,       // a list of numbers
  kEnums,        // a list of `choices`
  kShape,        // a target shape: [sizes] or {name: size, ...}
  kSpatial,      // two integers: [height, width] or {height, width}
  kPadding,      // [top, bottom, left, right] or {height: p, width: q}
  kFeatureInts,  // one integer per feature dimension: [..] or {name: n}
  kSplits,       // an integer, or a list of integers
};

// The model language's default for an attribute that is absent, where it
// differs from WebNN's because the batch and sequence dimensions are implicit.
enum class LanguageDefault {
  kNone,              // WebNN's default (or required)
  kLastAxis,          // the last dimension
  kFirstFeatureAxis,  // the first non-symbolic dimension
  kChannelAxis,       // TensorType::ChannelAxis()
  kAllFeatureAxes,    // every non-symbolic dimension
};

struct AttrSpec {
  const char* name = "";
  AttrKind kind = AttrKind::kInt;
  std::vector<const char*> choices = {};
  LanguageDefault language_default = LanguageDefault::kNone;
  bool required = false;
  const char* alias = nullptr;  // another accepted spelling
};

struct OpDef;

// What a shape/type rule sees: the op, the operand types in slot order
// (nullptr for an absent optional operand), the attributes and the limits.
struct InferContext {
  const OpDef& op;
  std::vector<const TensorType*> operands;
  const Attrs& attrs;
  const Limits& limits;

  bool has(size_t slot) const {
    return slot < operands.size() && operands[slot] != nullptr;
  }
  const TensorType& operand(size_t slot) const { return *operands[slot]; }
};

// Validates the operation and returns the types of its outputs.
using InferFn =
    absl::StatusOr<std::vector<TensorType>> (*)(const InferContext& context);

// Infers the shape (and names) of the trainable parameter in `slot`, whose
// operand is nullptr in `context`, from the other operands and, when known,
// the expected type of output 0 (`expected`, may be null). The data type is
// set by the caller.
using SolveFn = absl::StatusOr<TensorType> (*)(const InferContext& context,
                                               const TensorType* expected,
                                               int slot);

class GraphRewriter;
class GradientBuilder;
// Adds the operations computing the gradients of the node's operands from
// the gradients of its results (see gradient.h).
using GradientFn = absl::Status (*)(GradientBuilder& gradient);
// Replaces high-level node `node` by WebNN operations (see dag/decompose.h).
using DecomposeFn = absl::Status (*)(GraphRewriter& rewriter, int node);

struct OpDef {
  OpKind kind = OpKind::kCount;
  const char* name = "";
  OpCategory category = OpCategory::kElementwise;
  std::vector<OperandSpec> operands = {};
  std::vector<AttrSpec> attrs = {};
  InferFn infer = nullptr;
  // Parameter shape inference for the slots that accept parameters. Without
  // it, a parameter gets one value per channel of operand 0 (ERRATA 10c);
  // that default does not apply to kWeight and kGlorotWeight slots.
  SolveFn solve = nullptr;
  // Output 0 has the shape of operand 0 (element-wise, activations,
  // normalization): a declared output shape also holds for the input.
  bool shape_preserving = false;
  // Operand slots written positionally in the model language, in order,
  // after the implicit input (slot 0). Empty: every slot after slot 0.
  std::vector<int> language_operands = {};
  // A positional number in the model language binds this attribute
  // (`dropout(0.2)`), or nullptr.
  const char* positional_attr = nullptr;
  // For activations: the initialisation of the weights before them.
  WeightInit weight_init = WeightInit::kNone;
  DecomposeFn decompose = nullptr;  // high-level operations
  std::vector<const char*> aliases = {};
  // The gradient rule; nullptr when the operation is not differentiable (its
  // results are integers, or it has no rule yet: differentiating through it
  // is then an error naming it).
  GradientFn gradient = nullptr;
  // Differentiated by replacing the node with WebNN operations first
  // (recurrent operations unroll into their steps); used only in graphs
  // that are differentiated.
  DecomposeFn unroll = nullptr;

  const AttrSpec* FindAttr(std::string_view attr_name) const;
  int FindOperand(std::string_view operand_name) const;  // -1 if none
  bool variadic() const { return !operands.empty() && operands[0].variadic; }
};

// The definition of `kind`.
const OpDef& GetOp(OpKind kind);
// The definition named `name` or one of its aliases; nullptr if none.
const OpDef* FindOp(std::string_view name);
// All definitions, indexed by OpKind.
const std::vector<const OpDef*>& AllOps();
// Every operation name and alias (for suggestions).
std::vector<std::string> AllOpNames();

// The operations that overflow float16 easily (its largest value is
// 65504): exponentials (softmax, logSoftmax, exp, reduceLogSumExp), log,
// and the normalizations' sums of squares. The DAG computes them in
// float32 unless a layer's dataType= asks for float16 (dag.h).
bool OverflowsFloat16(const OpDef& op);

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_OP_DEF_H_
