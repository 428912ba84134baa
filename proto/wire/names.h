// The names webnnmd and webnnmctl print for webnnm.v1's enums ("QUEUED",
// "EPOCH", "TRAIN", "CSV": the proto's value names without their prefix),
// and the files an IDX dataset may hold. Header-only: both sides share it.
#ifndef WEBNNM_PROTO_WIRE_NAMES_H_
#define WEBNNM_PROTO_WIRE_NAMES_H_

#include <string>
#include <string_view>

#include "webnnm/v1/webnnm.pb.h"

namespace webnnm::wire {

inline std::string WithoutPrefix(std::string name, std::string_view prefix) {
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

inline std::string StateName(v1::JobState v) {
  return WithoutPrefix(v1::JobState_Name(v), "JOB_STATE_");
}
inline std::string EventTypeName(v1::EventType v) {
  return WithoutPrefix(v1::EventType_Name(v), "EVENT_TYPE_");
}
inline std::string KindName(v1::JobKind v) {
  return WithoutPrefix(v1::JobKind_Name(v), "JOB_KIND_");
}
inline std::string FormatName(v1::DatasetFormat v) {
  return WithoutPrefix(v1::DatasetFormat_Name(v), "DATASET_FORMAT_");
}

// MNIST-style IDX files, plain or gzipped.
inline constexpr const char* kIdxFileNames[] = {
    "train-images-idx3-ubyte", "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte", "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte",  "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte",  "t10k-labels-idx1-ubyte.gz"};

}  // namespace webnnm::wire

#endif  // WEBNNM_PROTO_WIRE_NAMES_H_
