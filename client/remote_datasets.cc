// Datasets from the command line: a file or folder uploaded (unless the
// daemon has its content), or a dataset the daemon holds named by its id
// or a prefix of it (remote_client.h).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "client/format.h"
#include "client/remote_client.h"
#include "client/terminal.h"
#include "engine/base/strings.h"
#include "engine/data/image_folder.h"
#include "proto/wire/names.h"
#include "proto/wire/sha256.h"
#include "webnnm/v1/webnnm.grpc.pb.h"

namespace webnnm::client {

namespace fs = std::filesystem;

// Uploads a CSV file, an IDX folder or an .npz archive unless the daemon
// has its content.
int UploadDataset(Client& client, const std::string& path,
                  const std::string& name, bool quiet, v1::Dataset* out) {
  std::vector<std::string> files;
  v1::DatasetFormat format;
  // An image folder goes zipped (its class folders' images, in a temporary
  // file removed at the end); a .zip file as it is.
  struct Remove {
    std::string path, folder;
    ~Remove() {
      std::error_code ignored;
      if (!folder.empty()) fs::remove_all(folder, ignored);
    }
  } zipped;
  if (train::IsImageFolder(path)) {
    absl::StatusOr<std::string> zip =
        train::ZipImageFolder(path, int64_t{4} << 30);
    if (!zip.ok()) {
      std::cerr << "webnnmctl: " << zip.status().message() << "\n";
      return 2;
    }
    // A private folder of its own (mkdtemp: mode 0700, a fresh name).
    std::error_code ec;
    std::string pattern =
        (fs::temp_directory_path(ec) / "webnnmctl-XXXXXX").string();
    if (ec || ::mkdtemp(pattern.data()) == nullptr) {
      std::cerr << "webnnmctl: cannot make a temporary folder to zip '" << path
                << "' in\n";
      return 1;
    }
    std::string stem = fs::path(path).lexically_normal().filename().string();
    if (stem.empty() || stem == ".") stem = "images";
    zipped.folder = pattern;
    zipped.path = (fs::path(pattern) / (stem + ".zip")).string();
    std::ofstream out(zipped.path, std::ios::binary);
    out.write(zip->data(), static_cast<std::streamsize>(zip->size()));
    out.close();
    if (!out) {
      std::cerr << "webnnmctl: cannot write " << zipped.path << "\n";
      return 1;
    }
    files.push_back(zipped.path);
    format = v1::DATASET_FORMAT_IMAGES;
  } else if (fs::is_directory(path)) {
    format = v1::DATASET_FORMAT_IDX;
    for (const char* n : wire::kIdxFileNames) {
      if (fs::exists(fs::path(path) / n)) {
        files.push_back((fs::path(path) / n).string());
      }
    }
    if (files.empty()) {
      std::cerr << "webnnmctl: '" << path
                << "' holds no IDX files (train-images-idx3-ubyte[.gz], ...)\n";
      return 2;
    }
  } else if (fs::is_regular_file(path)) {
    format = path.ends_with(".npz")   ? v1::DATASET_FORMAT_NPZ
             : path.ends_with(".zip") ? v1::DATASET_FORMAT_IMAGES
                                      : v1::DATASET_FORMAT_CSV;
    files.push_back(path);
  } else {
    std::cerr << "webnnmctl: cannot read '" << path << "'\n";
    return 2;
  }
  absl::StatusOr<std::string> hash = wire::DatasetHash(files);
  if (!hash.ok()) {
    std::cerr << "webnnmctl: " << hash.status().message() << "\n";
    return 2;
  }
  int64_t total = 0;
  for (const std::string& f : files) {
    total += static_cast<int64_t>(fs::file_size(f));
  }
  v1::UploadDatasetRequest start;
  start.set_name(name.empty() ? fs::path(path).filename().string() : name);
  if (start.name().empty()) start.set_name("dataset");
  start.set_format(format);
  start.set_sha256(*hash);
  start.set_total_bytes(total);
  v1::UploadDatasetResponse answer;
  grpc::Status s =
      client.stub().UploadDataset(client.Context().get(), start, &answer);
  if (!s.ok()) return client.Error(s);
  if (answer.has_dataset()) {
    *out = answer.dataset();
    return 0;
  }
  const std::string upload = answer.upload_id();
  int64_t sent = 0;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string buffer(kChunk, '\0');
    int64_t offset = 0;
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      std::streamsize n = in.gcount();
      if (n <= 0) break;
      v1::UploadDatasetRequest chunk;
      chunk.set_upload_id(upload);
      chunk.set_file_name(fs::path(f).filename().string());
      chunk.set_offset(offset);
      chunk.set_data(buffer.data(), static_cast<size_t>(n));
      s = client.stub().UploadDataset(client.Context().get(), chunk, &answer);
      if (!s.ok()) return client.Error(s);
      offset += n;
      sent += n;
      if (!quiet && isatty(STDERR_FILENO)) {
        std::cerr << "\r\033[Kuploading " << start.name() << ": "
                  << (100 * sent / std::max<int64_t>(1, total)) << "%"
                  << std::flush;
      }
    }
  }
  if (!quiet && isatty(STDERR_FILENO)) std::cerr << "\r\033[K";
  v1::UploadDatasetRequest finish;
  finish.set_upload_id(upload);
  finish.set_finish(true);
  s = client.stub().UploadDataset(client.Context().get(), finish, &answer);
  if (!s.ok()) return client.Error(s);
  *out = answer.dataset();
  return 0;
}

// The daemon's dataset whose id is `arg`, else the one whose id starts with
// it (as docker takes ids): 0 and `out` set; 2 after saying why not (an
// ambiguous prefix lists the matches; `missing` says what no match means).
int FindDatasetById(Client& client, const std::string& arg,
                    const std::string& missing, v1::Dataset* out) {
  v1::ListDatasetsResponse list;
  grpc::Status s = client.stub().ListDatasets(client.Context().get(),
                                              v1::ListDatasetsRequest(), &list);
  if (!s.ok()) return client.Error(s);
  std::vector<const v1::Dataset*> matches;
  for (const v1::Dataset& d : list.datasets()) {
    if (d.dataset_id() == arg) {
      *out = d;
      return 0;
    }
    if (!arg.empty() && d.dataset_id().starts_with(arg)) matches.push_back(&d);
  }
  if (matches.size() == 1) {
    *out = *matches.front();
    return 0;
  }
  if (matches.size() > 1) {
    std::cerr << "webnnmctl: '" << arg << "' is the start of " << matches.size()
              << " datasets' ids:";
    for (const v1::Dataset* d : matches) {
      std::cerr << " " << d->dataset_id() << " (" << d->name() << ")";
    }
    std::cerr << "\n";
    return 2;
  }
  std::cerr << "webnnmctl: '" << arg << "' " << missing
            << " (see webnnmctl dataset list)\n";
  return 2;
}

// The dataset `arg` names: a CSV file or IDX folder (uploaded unless the
// daemon has its content), else the id of a dataset the daemon holds or a
// unique prefix of one.
int ResolveDataset(Client& client, const std::string& arg, bool quiet,
                   v1::Dataset* out) {
  if (fs::exists(arg)) return UploadDataset(client, arg, "", quiet, out);
  return FindDatasetById(client, arg,
                         "is neither a dataset file or folder nor the id of "
                         "a dataset on the daemon",
                         out);
}

}  // namespace webnnm::client
