// webnnmctl's model commands: infer, snapshot export and import, health.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "client/job_json.h"
#include "client/remote_client.h"
#include "inference/grpc_predict_v2.grpc.pb.h"
#include "proto/wire/sha256.h"
#include "webnnm/v1/webnnm.grpc.pb.h"

namespace webnnm::client {

namespace fs = std::filesystem;

namespace {

// A classifier's output a sample a line, each class named beside its
// probability ("model: setosa 0.956  versicolor 0.0439  virginica 5.7e-05
// -> setosa"; "[2]" after the name from the second sample of a batch on).
// False (nothing printed) for another output.
bool PrintClassRows(const std::string& name, const Json& out,
                    const std::vector<std::string>& classes) {
  if (classes.empty() || !out.contains("predictions")) return false;
  const std::vector<int64_t> shape = out["shape"];
  const std::vector<double> values = out["values"];
  if (shape.size() != 2 || shape[0] <= 0) return false;
  const size_t per = values.size() / static_cast<size_t>(shape[0]);
  if (per != classes.size() && !(per == 1 && classes.size() == 2)) {
    return false;
  }
  auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", v);
    return std::string(text);
  };
  for (int64_t b = 0; b < shape[0]; ++b) {
    std::cout << name << (shape[0] > 1 ? "[" + std::to_string(b + 1) + "]" : "")
              << ":";
    const double* row = values.data() + b * static_cast<int64_t>(per);
    for (size_t k = 0; k < classes.size(); ++k) {
      const double p = per == 1 ? (k == 1 ? row[0] : 1 - row[0]) : row[k];
      std::cout << (k ? "  " : " ") << classes[k] << " " << number(p);
    }
    std::cout << "  -> " << out["predictions"][b].get<std::string>() << "\n";
  }
  return true;
}

}  // namespace

int Infer(Client& client, RemoteOptions& o, bool json) {
  v1::InferRequest r;
  r.set_job_id(o.job);
  v1::Tensor* input = r.add_inputs();
  input->set_name(o.input_name);
  int64_t width = -1;
  for (const std::string& sample : o.values) {
    std::stringstream in(sample);
    std::string item;
    int64_t n = 0;
    // An empty field is a missing value (NaN): the daemon fills it as the
    // job's training did (--impute), or refuses it.
    auto add = [&](const std::string& field) {
      if (field.empty()) {
        input->add_values(std::numeric_limits<double>::quiet_NaN());
        return true;
      }
      char* end = nullptr;
      double v = std::strtod(field.c_str(), &end);
      if (*end != '\0') return false;
      input->add_values(v);
      return true;
    };
    while (std::getline(in, item, ',')) {
      if (!add(item)) {
        std::cerr << "webnnmctl: --values takes comma-separated numbers "
                     "(an empty field for a missing one), not '"
                  << item << "'\n";
        return 2;
      }
      ++n;
    }
    if (!sample.empty() && sample.back() == ',') {  // a last empty field
      add("");
      ++n;
    }
    if (width >= 0 && n != width) {
      std::cerr << "webnnmctl: every --values needs as many numbers\n";
      return 2;
    }
    width = n;
  }
  input->add_shape(static_cast<int64_t>(o.values.size()));
  input->add_shape(width);
  v1::InferResponse response;
  grpc::Status s = client.stub().Infer(client.Context().get(), r, &response);
  if (!s.ok()) return client.Error(s);
  std::vector<std::string> classes(response.classes().begin(),
                                   response.classes().end());
  Json outputs = Json::object();
  for (const v1::Tensor& t : response.outputs()) {
    Json out{
        {"shape", std::vector<int64_t>(t.shape().begin(), t.shape().end())},
        {"values", std::vector<double>(t.values().begin(), t.values().end())}};
    int64_t batch = t.shape_size() > 0 ? t.shape(0) : 1;
    int64_t per = batch > 0 ? t.values_size() / batch : 0;
    const auto units = static_cast<int64_t>(classes.size());
    if (t.shape_size() == 3 && !classes.empty() && t.shape(2) == units) {
      // A sequenced classifier [batch, steps, classes]: a class a step.
      Json predictions = Json::array();
      for (int64_t b = 0; b < batch; ++b) {
        Json steps = Json::array();
        for (int64_t step = 0; step < t.shape(1); ++step) {
          const int64_t at = (b * t.shape(1) + step) * units;
          int64_t best = 0;
          for (int64_t k = 1; k < units; ++k) {
            if (t.values(at + k) > t.values(at + best)) best = k;
          }
          steps.push_back(classes[best]);
        }
        predictions.push_back(steps);
      }
      out["predictions"] = predictions;
    } else if (!classes.empty() && per == units) {
      Json predictions = Json::array();
      for (int64_t b = 0; b < batch; ++b) {
        int64_t best = 0;
        for (int64_t k = 1; k < per; ++k) {
          if (t.values(b * per + k) > t.values(b * per + best)) best = k;
        }
        predictions.push_back(classes[best]);
      }
      out["predictions"] = predictions;
    } else if (classes.size() == 2 && per == 1) {
      // One sigmoid unit: the probability of the second class.
      Json predictions = Json::array();
      for (int64_t b = 0; b < batch; ++b) {
        predictions.push_back(classes[t.values(b) >= 0.5 ? 1 : 0]);
      }
      out["predictions"] = predictions;
    }
    outputs[t.name()] = out;
  }
  if (json) {
    std::cout << Json{{"jobId", o.job},
                      {"outputs", outputs},
                      {"classes", classes}}
                     .dump()
              << "\n";
    return 0;
  }
  for (auto it = outputs.begin(); it != outputs.end(); ++it) {
    if (PrintClassRows(it.key(), it.value(), classes)) continue;
    std::cout << it.key() << ": " << it.value()["values"].dump();
    if (it.value().contains("predictions")) {
      std::cout << "  -> " << it.value()["predictions"].dump();
    }
    std::cout << "\n";
  }
  return 0;
}

grpc::Status FetchSnapshot(Client& client, const std::string& job,
                           std::string* bytes) {
  v1::ExportSnapshotRequest r;
  r.set_job_id(job);
  auto context = client.Context();
  auto reader = client.stub().ExportSnapshot(context.get(), r);
  v1::SnapshotChunk chunk;
  while (reader->Read(&chunk)) *bytes += chunk.data();
  return reader->Finish();
}

int ExportSnapshot(Client& client, RemoteOptions& o, bool json) {
  std::string bytes;
  grpc::Status s = FetchSnapshot(client, o.job, &bytes);
  if (!s.ok()) return client.Error(s);
  std::string file = o.file.empty() ? o.job + ".wnms" : o.file;
  std::string temp = file + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::cerr << "webnnmctl: cannot write '" << file << "'\n";
      return 1;
    }
  }
  std::error_code ec;
  fs::rename(temp, file, ec);
  if (ec) {
    std::cerr << "webnnmctl: cannot write '" << file << "': " << ec.message()
              << "\n";
    return 1;
  }
  if (json) {
    std::cout << Json{{"jobId", o.job}, {"file", file}, {"bytes", bytes.size()}}
                     .dump()
              << "\n";
  } else {
    std::cout << "wrote " << file << " (" << bytes.size() << " bytes)\n";
  }
  return 0;
}

int ImportSnapshot(Client& client, RemoteOptions& o, bool json) {
  std::string bytes;
  if (!ReadWhole(o.file, &bytes)) {
    std::cerr << "webnnmctl: cannot read '" << o.file << "'\n";
    return 2;
  }
  v1::ImportSnapshotRequest start;
  start.set_total_bytes(static_cast<int64_t>(bytes.size()));
  start.set_sha256(wire::Sha256Hex(bytes));
  v1::ImportSnapshotResponse answer;
  grpc::Status s =
      client.stub().ImportSnapshot(client.Context().get(), start, &answer);
  if (!s.ok()) return client.Error(s);
  std::string upload = answer.upload_id();
  for (size_t at = 0; at < bytes.size(); at += kChunk) {
    v1::ImportSnapshotRequest chunk;
    chunk.set_upload_id(upload);
    chunk.set_offset(static_cast<int64_t>(at));
    chunk.set_data(bytes.substr(at, kChunk));
    s = client.stub().ImportSnapshot(client.Context().get(), chunk, &answer);
    if (!s.ok()) return client.Error(s);
  }
  v1::ImportSnapshotRequest finish;
  finish.set_upload_id(upload);
  finish.set_finish(true);
  s = client.stub().ImportSnapshot(client.Context().get(), finish, &answer);
  if (!s.ok()) return client.Error(s);
  if (json) {
    std::cout << Json{{"jobId", answer.job().job_id()}}.dump() << "\n";
  } else {
    std::cout << "imported as job " << answer.job().job_id() << "\n";
  }
  return 0;
}

// grpc.health.v1.Health/Check, its two messages encoded by hand (a string
// field 1; an enum field 1): exit 0 when SERVING, 1 otherwise (for
// container health checks).
int Health(Client& client, RemoteOptions& o, bool json) {
  std::string request;
  if (!o.service.empty()) {
    if (o.service.size() > 127) {
      std::cerr << "webnnmctl: the service name is too long\n";
      return 2;
    }
    request = std::string("\x0a", 1) + static_cast<char>(o.service.size()) +
              o.service;
  }
  grpc::GenericStub stub(client.channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(5));
  grpc::Slice slice(request);
  grpc::ByteBuffer in(&slice, 1), out;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", {}, &in, &out,
                 [&](grpc::Status s) { done.set_value(s); });
  grpc::Status s = done.get_future().get();
  std::string status = "UNKNOWN";
  if (s.ok()) {
    std::vector<grpc::Slice> slices;
    (void)out.Dump(&slices);
    std::string bytes;
    for (const grpc::Slice& piece : slices) {
      bytes.append(reinterpret_cast<const char*>(piece.begin()), piece.size());
    }
    int value = bytes.size() == 2 && bytes[0] == 0x08 ? bytes[1] : 0;
    status = value == 1   ? "SERVING"
             : value == 2 ? "NOT_SERVING"
             : value == 3 ? "SERVICE_UNKNOWN"
                          : "UNKNOWN";
  } else if (s.error_code() == grpc::StatusCode::NOT_FOUND) {
    status = "SERVICE_UNKNOWN";
  } else {
    return client.Error(s);
  }
  // The daemon's name and version (KServe's ServerMetadata), when it
  // serves and says them to this client.
  std::string server, version;
  if (status == "SERVING" && o.service.empty()) {
    inference::GRPCInferenceService::Stub kserve(client.channel);
    inference::ServerMetadataRequest metadata_request;
    inference::ServerMetadataResponse metadata;
    if (kserve
            .ServerMetadata(client.Context().get(), metadata_request, &metadata)
            .ok()) {
      server = metadata.name();
      version = metadata.version();
    }
  }
  if (json) {
    Json out{{"service", o.service}, {"status", status}};
    if (!version.empty()) {
      out["server"] = server;
      out["version"] = version;
    }
    std::cout << out.dump() << "\n";
  } else {
    std::cout << status;
    if (!version.empty()) std::cout << " (" << server << " " << version << ")";
    std::cout << "\n";
  }
  return status == "SERVING" ? 0 : 1;
}

}  // namespace webnnm::client
