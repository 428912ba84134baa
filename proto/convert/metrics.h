// A test's metrics (engine/train/metrics.h) as webnnm.v1.OutputMetrics and
// back: what webnnmd sends and webnnmctl prints.
#ifndef WEBNNM_PROTO_CONVERT_METRICS_H_
#define WEBNNM_PROTO_CONVERT_METRICS_H_

#include <string>
#include <utility>

#include "engine/train/metrics.h"
#include "webnnm/v1/webnnm.pb.h"

// (In proto/convert: the engine's types as messages, above both; the wire
// itself knows nothing of the engine.)
namespace webnnm::wire {

v1::OutputMetrics ToProto(const std::string& name,
                          const train::OutputMetrics& metrics);
std::pair<std::string, train::OutputMetrics> FromProto(
    const v1::OutputMetrics& metrics);

}  // namespace webnnm::wire

#endif  // WEBNNM_PROTO_CONVERT_METRICS_H_
