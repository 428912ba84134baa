// The conversions between webnnm.v1 messages and the core's types
// (core/job.h), both ways: what the RPC edge (server/rpc) answers with, and
// what the stores (server/store) keep their rows as — the wire format is
// the storage format. Neither owns this module; both use it.
#ifndef WEBNNM_SERVER_CONVERT_CONVERT_H_
#define WEBNNM_SERVER_CONVERT_CONVERT_H_

#include "google/protobuf/timestamp.pb.h"
#include "server/core/job.h"
#include "server/core/store.h"
#include "webnnm/v1/webnnm.pb.h"

namespace webnnm::server {

google::protobuf::Timestamp ToProto(Time t);
Time FromProto(const google::protobuf::Timestamp& t);

v1::Job ToProto(const Job& job);
Job FromProto(const v1::Job& job);
v1::SubmitJobRequest ToProto(const JobRequest& request);
JobRequest FromProto(const v1::SubmitJobRequest& request);
v1::JobEvent ToProto(const JobEvent& event);
JobEvent FromProto(const v1::JobEvent& event);
v1::Dataset ToProto(const Dataset& dataset);
Dataset FromProto(const v1::Dataset& dataset);
v1::MetricSeries ToProto(const MetricSeries& series);
v1::DataSpec ToProto(const DataSpec& data);
DataSpec FromProto(const v1::DataSpec& data);
v1::Decision ToProto(const train::Decision& d);

// Resolved hyperparameters (no 'auto' left) with every field set, as
// CheckModel shows them: the optimizer's defaults (ERRATA 16) where
// weightDecay, momentumFactor, beta1 or beta2 were not given, the warmup
// actually used; lr stays unset when it is auto (training's range test
// chooses it).
v1::Hyperparameters ShownHyperparameters(const train::Hyperparameters& h);

inline JobState FromProto(v1::JobState s) { return static_cast<JobState>(s); }
inline v1::JobState ToProto(JobState s) { return static_cast<v1::JobState>(s); }
inline JobKind FromProto(v1::JobKind k) { return static_cast<JobKind>(k); }
inline v1::JobKind ToProto(JobKind k) { return static_cast<v1::JobKind>(k); }

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CONVERT_CONVERT_H_
