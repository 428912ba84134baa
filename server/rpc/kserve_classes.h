// What KServe's ModelInfer answers for a model's outputs: the float outputs
// asked for, a classifier's class names beside its probabilities
// (OUT_class: BYTES, each row's most likely class), and Triton's
// classification extension (a requested output with the parameter
// `classification: K` answered as BYTES "score:index:name", the K best of
// each row, best first). Used by the gRPC service and so by KServe over
// HTTP, which forwards to it.
#ifndef WEBNNM_SERVER_RPC_KSERVE_CLASSES_H_
#define WEBNNM_SERVER_RPC_KSERVE_CLASSES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "inference/grpc_predict_v2.pb.h"
#include "server/core/inference.h"

namespace webnnm::server {

struct KServeOutput {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<double> values;                       // FP32 outputs
  std::optional<std::vector<std::string>> strings;  // BYTES outputs
};

// "OUT" -> "OUT_class".
std::string ClassOutputName(std::string_view output);

// Whether an output whose last dimension is `shape.back()` gives a class
// of `classes` per row: one probability per class, or one unit for two
// classes (the second's probability).
bool HasClassNames(const std::vector<int64_t>& shape,
                   const std::vector<std::string>& classes);

// The outputs `request` asks for (all, with each classifier's OUT_class,
// when it names none), in the model's order. InvalidArgument for a name
// the model has not, or a classification that is not a positive integer
// on a classifier's output.
absl::StatusOr<std::vector<KServeOutput>> KServeOutputs(
    const inference::ModelInferRequest& request,
    const std::vector<InferTensor>& outputs,
    const std::vector<std::string>& classes);

// The protocol's raw encoding of an output: FP32 little-endian; BYTES each
// element as a 4-byte little-endian length and its bytes.
std::string RawContents(const KServeOutput& output);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_RPC_KSERVE_CLASSES_H_
