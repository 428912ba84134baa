// `webnnmctl predict JOB --dataset PATH|ID`: the daemon's Predict over an
// uploaded (or named) dataset, written to --output (.csv or .npz) or to
// standard output: the CSV, or one JSON object per sample with -o json.
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "client/predict_command.h"
#include "client/remote_client.h"
#include "engine/train/csv.h"

namespace webnnm::client {
namespace {

// The CSV's rows as JSON lines, as `predict --local -o json` prints them.
int PrintJsonLines(const v1::PredictChunk& head, const std::string& csv) {
  absl::StatusOr<train::CsvTable> table = train::ParseCsv(csv, "predictions");
  if (!table.ok() || table->records.empty()) {
    std::cerr << "webnnmctl: the daemon's predictions do not parse\n";
    return kExitFailure;
  }
  for (size_t r = 1; r < table->records.size(); ++r) {
    const std::vector<std::string>& row = table->records[r];
    nlohmann::ordered_json line;
    line["index"] = r - 1;
    size_t at = 0;
    auto number = [&]() { return at < row.size() ? std::stod(row[at++]) : 0.0; };
    for (const v1::PredictedOutput& o : head.outputs()) {
      nlohmann::ordered_json v;
      if (o.classification()) {
        v["class"] = at < row.size() ? row[at++] : "";
        std::vector<double> p;
        for (int c = 0; c < o.classes_size(); ++c) p.push_back(number());
        v["probabilities"] = p;
      } else if (o.units() == 1) {
        v["value"] = number();
      } else {
        std::vector<double> values;
        for (int64_t u = 0; u < o.units(); ++u) values.push_back(number());
        v["value"] = values;
      }
      line[o.name()] = v;
    }
    std::cout << line.dump() << "\n";
  }
  return kExitOk;
}

}  // namespace

int RunRemotePredict(const RemoteOptions& remote, const PredictOptions& o,
                     bool json) {
  const bool npz = o.output.ends_with(".npz");
  Client client(remote);
  v1::Dataset dataset;
  int code = ResolveDataset(client, o.data.dataset, json, &dataset);
  if (code != 0) return code;
  v1::PredictRequest request;
  request.set_job_id(o.file);
  request.mutable_data()->set_dataset_id(dataset.dataset_id());
  request.mutable_data()->set_label(o.data.label);
  request.mutable_data()->set_no_header(o.data.no_header);
  request.mutable_data()->set_resize(o.data.resize);
  request.set_format(npz ? v1::PREDICT_FORMAT_NPZ : v1::PREDICT_FORMAT_CSV);
  std::unique_ptr<grpc::ClientContext> context = client.Context(false);
  auto reader = client.stub().Predict(context.get(), request);
  v1::PredictChunk chunk, head;
  std::string bytes;
  bool first = true;
  while (reader->Read(&chunk)) {
    if (first) head = chunk;
    first = false;
    bytes += chunk.data();
  }
  grpc::Status s = reader->Finish();
  if (!s.ok()) return client.Error(s);
  if (static_cast<int64_t>(bytes.size()) != head.total_bytes()) {
    std::cerr << "webnnmctl: the predictions arrived incomplete ("
              << bytes.size() << " of " << head.total_bytes() << " bytes)\n";
    return kExitFailure;
  }
  if (o.output.empty()) {
    if (json) return PrintJsonLines(head, bytes);
    std::cout << bytes;
    return kExitOk;
  }
  std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::cerr << "webnnmctl: cannot write " << o.output << "\n";
    return kExitFailure;
  }
  if (json) {
    std::cout << nlohmann::ordered_json{{"samples", head.samples()},
                                        {"output", o.output}}
                     .dump()
              << "\n";
  } else {
    std::printf("predicted %lld samples into %s\n",
                static_cast<long long>(head.samples()), o.output.c_str());
  }
  return kExitOk;
}

}  // namespace webnnm::client
