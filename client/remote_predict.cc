// `webnnmctl predict JOB --dataset PATH|ID`: the daemon's Predict over an
// uploaded (or named) dataset, written to --output (.csv or .npz) or to
// standard output: the CSV, or one JSON object per sample with -o json.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "client/predict_command.h"
#include "client/remote_client.h"
#include "engine/data/csv.h"

namespace webnnm::client {
namespace {

// The daemon's CSV (engine/api/predict_output.h) read back into
// predictions, with the first chunk's description of the outputs: a
// sequenced output's cells list its real steps, separated by spaces.
absl::StatusOr<Predictions> PredictionsFromCsv(const v1::PredictChunk& head,
                                               const std::string& csv) {
  absl::StatusOr<train::CsvTable> table = train::ParseCsv(csv, "predictions");
  if (!table.ok()) return table.status();
  const auto bad = [] {
    return absl::DataLossError("the daemon's predictions do not parse");
  };
  if (table->records.empty()) return bad();
  Predictions p;
  p.samples = static_cast<int64_t>(table->records.size()) - 1;
  size_t column = 0;
  for (const v1::PredictedOutput& h : head.outputs()) {
    OutputPredictions o;
    o.name = h.name();
    o.classification = h.classification();
    o.classes.assign(h.classes().begin(), h.classes().end());
    o.units =
        o.classification ? static_cast<int64_t>(o.classes.size()) : h.units();
    o.sequenced = h.sequenced();
    if (o.classification && o.classes.empty()) return bad();
    const size_t columns = o.classification ? 1 + o.classes.size() : o.units;
    // Each sample's cells of this output, as steps (one unless sequenced).
    std::vector<std::vector<std::vector<std::string>>> samples;
    for (size_t r = 1; r < table->records.size(); ++r) {
      const std::vector<std::string>& record = table->records[r];
      if (record.size() < column + columns) return bad();
      std::vector<std::vector<std::string>> cells;
      for (size_t c = column; c < column + columns; ++c) {
        std::vector<std::string> steps;
        if (o.sequenced) {
          std::istringstream in(record[c]);
          for (std::string v; in >> v;) steps.push_back(v);
        } else {
          steps.push_back(record[c]);
        }
        if (steps.size() != (cells.empty() ? steps.size() : cells[0].size())) {
          return bad();
        }
        cells.push_back(std::move(steps));
      }
      const auto length = static_cast<int64_t>(cells[0].size());
      o.steps = std::max(o.steps, length);
      if (o.sequenced) o.lengths.push_back(length);
      samples.push_back(std::move(cells));
    }
    try {
      for (const auto& cells : samples) {
        for (int64_t t = 0; t < o.steps; ++t) {
          const bool real = t < static_cast<int64_t>(cells[0].size());
          size_t first = 0;
          if (o.classification) {
            const auto c = std::find(o.classes.begin(), o.classes.end(),
                                     real ? cells[0][t] : o.classes[0]);
            if (c == o.classes.end()) return bad();
            o.predicted.push_back(c - o.classes.begin());
            first = 1;
          }
          for (size_t u = first; u < columns; ++u) {
            o.values.push_back(real ? std::stod(cells[u][t]) : 0.0);
          }
        }
      }
    } catch (const std::exception&) {
      return bad();
    }
    column += columns;
    p.outputs.push_back(std::move(o));
  }
  return p;
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
  std::string job = o.file;  // an id, or a unique prefix of one
  if (int resolved = ResolveJobId(client, job); resolved != 0) return resolved;
  request.set_job_id(job);
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
    if (json) {
      absl::StatusOr<Predictions> p = PredictionsFromCsv(head, bytes);
      if (!p.ok()) {
        std::cerr << "webnnmctl: " << p.status().message() << "\n";
        return kExitFailure;
      }
      WriteJsonLines(*p, std::cout);
      return kExitOk;
    }
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
