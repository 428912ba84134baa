// Encoding numbers as constant tensor data (see ConstantData in graph.h).
#ifndef WEBNNM_ENGINE_IR_CONSTANT_DATA_H_
#define WEBNNM_ENGINE_IR_CONSTANT_DATA_H_

#include <cstdint>

#include "absl/status/status.h"
#include "engine/ir/graph.h"

namespace webnnm::ir {

// Appends one element of `type`. For integer types the value must be an
// integer (exact in `integer` when `integral`) within the type's range;
// float types round to nearest even (float16 through its bit pattern).
// Errors say why the value does not fit.
absl::Status AppendNumber(ConstantData& data, DType type, double value,
                          bool integral, int64_t integer);

// One scalar of `type` (the value must fit; see AppendNumber).
std::shared_ptr<const ConstantData> ScalarData(DType type, double value);

// Reads element `index` back as a double (for dumps and tests).
double ReadNumber(const ConstantData& data, DType type, int64_t index);

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_CONSTANT_DATA_H_
