// The names webnnmd and webnnmctl print for webnnm.v1's enums ("QUEUED",
// "EPOCH", "TRAIN", "CSV": the proto's value names without their prefix),
// and (dataset_files.h) the files an IDX dataset may hold. Header-only:
// both sides share it.
#ifndef WEBNNM_PROTO_WIRE_NAMES_H_
#define WEBNNM_PROTO_WIRE_NAMES_H_

#include <string>
#include <string_view>

#include "proto/wire/dataset_files.h"
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

}  // namespace webnnm::wire

#endif  // WEBNNM_PROTO_WIRE_NAMES_H_
