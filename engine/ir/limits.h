// Size limits every shape rule enforces (DESIGN.md §3).
//
// Model text and conformance vectors are untrusted input: every dimension and
// every tensor's byte length is checked against these before anything is
// allocated. The daemon may configure lower limits.
#ifndef WEBNNM_ENGINE_IR_LIMITS_H_
#define WEBNNM_ENGINE_IR_LIMITS_H_

#include <cstdint>

namespace webnnm::ir {

struct Limits {
  // Largest size of one dimension (WebNN uses 32-bit signed sizes).
  int64_t max_dimension = 2147483647;
  // Largest tensor, in bytes.
  int64_t max_tensor_bytes = 2147483647;
  // Largest rank of a tensor.
  int max_rank = 8;
};

}  // namespace webnnm::ir

#endif  // WEBNNM_ENGINE_IR_LIMITS_H_
