#include "server/core/local_store.h"

#include <filesystem>
#include <fstream>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"

namespace webnnm::server {
namespace {

namespace fs = std::filesystem;

}  // namespace

LocalStore::LocalStore(std::string folder) : folder_(std::move(folder)) {
  // Uploads live in memory: any folder left is from an earlier process
  // (cut off by a crash or SIGKILL).
  std::error_code ec;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(UploadFolder(""), ec)) {
    fs::remove_all(entry.path(), ec);
  }
}

LocalStore::~LocalStore() {
  absl::MutexLock lock(&mutex_);
  for (const auto& [id, upload] : uploads_) {
    std::error_code ec;
    fs::remove_all(UploadFolder(id), ec);
  }
}

std::string LocalStore::DatasetFolder(const std::string& sha256) const {
  return (fs::path(folder_) / "datasets" / sha256).string();
}

std::string LocalStore::UploadFolder(const std::string& id) const {
  return (fs::path(DatasetFolder("uploads")) / id).string();
}

absl::StatusOr<std::string> LocalStore::DatasetContent(
    const std::string& sha256) {
  std::string folder = DatasetFolder(sha256);
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    return absl::NotFoundError(
        StrCat("the content ", sha256.substr(0, 12), " is not stored"));
  }
  return folder;
}

absl::Status LocalStore::PutDatasetContent(
    const std::string& sha256, const std::string& folder,
    const std::vector<std::string>& files) {
  const fs::path target = DatasetFolder(sha256);
  std::error_code ec;
  if (fs::exists(target, ec)) return absl::OkStatus();
  fs::create_directories(target.parent_path(), ec);
  const fs::path staged = target.string() + ".part";
  fs::remove_all(staged, ec);
  fs::create_directories(staged, ec);
  for (const std::string& file : files) {
    fs::rename(fs::path(folder) / file, staged / file, ec);
    if (ec) {
      fs::remove_all(staged, ec);
      return absl::InternalError(
          StrCat("cannot store the dataset: ", ec.message()));
    }
  }
  fs::rename(staged, target, ec);
  if (ec) {
    fs::remove_all(staged, ec);
    return absl::InternalError(
        StrCat("cannot store the dataset: ", ec.message()));
  }
  return absl::OkStatus();
}

absl::Status LocalStore::RemoveDatasetContent(const std::string& sha256) {
  std::error_code ec;
  fs::remove_all(DatasetFolder(sha256), ec);
  return absl::OkStatus();
}

void LocalStore::Expire() {
  const auto now = std::chrono::steady_clock::now();
  for (auto it = uploads_.begin(); it != uploads_.end();) {
    if (now > it->second.expires) {
      std::error_code ec;
      fs::remove_all(UploadFolder(it->first), ec);
      it = uploads_.erase(it);
    } else {
      ++it;
    }
  }
}

absl::Status LocalStore::BeginUpload(const UploadRecord& upload,
                                     const UploadCaps& caps) {
  absl::MutexLock lock(&mutex_);
  Expire();
  int open = 0;
  int64_t bytes = 0;
  for (const auto& [id, other] : uploads_) {
    if (other.record.principal != upload.principal || other.record.finished) {
      continue;
    }
    ++open;
    bytes += other.record.total_bytes;
  }
  RETURN_IF_ERROR(CheckUploadCaps(open, bytes, upload.total_bytes, caps));
  std::error_code ec;
  fs::create_directories(UploadFolder(upload.id), ec);
  if (ec) {
    return absl::InternalError(
        StrCat("cannot create an upload folder: ", ec.message()));
  }
  uploads_[upload.id] = {upload,
                         std::chrono::steady_clock::now() + caps.idle_timeout};
  return absl::OkStatus();
}

absl::StatusOr<std::optional<UploadRecord>> LocalStore::GetUpload(
    const std::string& principal, const std::string& id, int kind,
    const UploadCaps& caps) {
  absl::MutexLock lock(&mutex_);
  Expire();
  auto it = uploads_.find(id);
  if (it == uploads_.end() || it->second.record.principal != principal ||
      it->second.record.kind != kind) {
    return std::nullopt;
  }
  it->second.expires = std::chrono::steady_clock::now() + caps.idle_timeout;
  return it->second.record;
}

absl::Status LocalStore::AppendUpload(const std::string& id,
                                      const std::string& file, int64_t offset,
                                      std::string_view data) {
  absl::MutexLock lock(&mutex_);
  auto it = uploads_.find(id);
  if (it == uploads_.end()) {
    return absl::NotFoundError(
        StrCat("no upload ", id, " (it may have expired)"));
  }
  UploadRecord& upload = it->second.record;
  RETURN_IF_ERROR(CheckAppend(upload, file, offset, data.size()));
  std::ofstream out(fs::path(UploadFolder(id)) / file,
                    std::ios::binary | std::ios::app);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) {
    return absl::ResourceExhaustedError("cannot write the upload (disk full?)");
  }
  upload.files[file] += static_cast<int64_t>(data.size());
  upload.received += static_cast<int64_t>(data.size());
  return absl::OkStatus();
}

absl::StatusOr<std::string> LocalStore::UploadFiles(const std::string& id) {
  return UploadFolder(id);
}

absl::Status LocalStore::FinishUpload(const std::string& id,
                                      const std::string& result) {
  absl::MutexLock lock(&mutex_);
  auto it = uploads_.find(id);
  if (it == uploads_.end())
    return absl::NotFoundError(StrCat("no upload ", id));
  it->second.record.finished = true;
  it->second.record.result = result;
  std::error_code ec;
  fs::remove_all(UploadFolder(id), ec);  // what was not moved into place
  return absl::OkStatus();
}

absl::Status LocalStore::DropUpload(const std::string& id) {
  absl::MutexLock lock(&mutex_);
  std::error_code ec;
  fs::remove_all(UploadFolder(id), ec);
  uploads_.erase(id);
  return absl::OkStatus();
}

absl::StatusOr<int> LocalStore::OpenUploads(const UploadCaps&) {
  absl::MutexLock lock(&mutex_);
  Expire();
  int open = 0;
  for (const auto& [id, upload] : uploads_) open += !upload.record.finished;
  return open;
}

absl::Status LocalStore::Heartbeat(const NodeRecord& node) {
  absl::MutexLock lock(&mutex_);
  NodeRecord& stored = nodes_[node.name];
  const std::optional<Time> started = stored.started;
  stored = node;
  stored.started = started ? started : node.started ? node.started : Now();
  stored.seen = Now();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NodeRecord>> LocalStore::ListNodes(
    std::chrono::milliseconds within) {
  std::vector<NodeRecord> nodes;
  {
    absl::MutexLock lock(&mutex_);
    const Time since = Now() - within;
    for (const auto& [name, node] : nodes_) {
      if (node.seen && *node.seen >= since) nodes.push_back(node);
    }
  }
  ASSIGN_OR_RETURN(std::vector<Job> running,
                   ListJobs("", JobState::kRunning, 0, 100000));
  std::reverse(running.begin(), running.end());  // oldest first
  for (NodeRecord& node : nodes) {
    node.running.clear();
    for (const Job& job : running) {
      if (job.node == node.name) node.running.push_back(job.id);
    }
    node.busy = static_cast<int>(node.running.size());
  }
  return nodes;
}

absl::Status LocalStore::RemoveNode(const std::string& name) {
  absl::MutexLock lock(&mutex_);
  nodes_.erase(name);
  return absl::OkStatus();
}

}  // namespace webnnm::server
