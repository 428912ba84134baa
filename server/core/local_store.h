// What the stores of one daemon (SQLite, memory) share, over a folder:
// dataset content in files under <folder>/datasets/<sha256>, uploads in
// progress in memory with their files under <folder>/datasets/uploads/<id>
// (gone with the process: the folder is emptied at open), and the one
// node, itself, in memory. Jobs and their leases are the derived store's.
//
// Thread-safety: every method may be called from any thread.
#ifndef WEBNNM_SERVER_CORE_LOCAL_STORE_H_
#define WEBNNM_SERVER_CORE_LOCAL_STORE_H_

#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/core/store.h"

namespace webnnm::server {

class LocalStore : public Store {
 public:
  explicit LocalStore(std::string folder);
  ~LocalStore() override;

  std::string DatasetFolder(const std::string& sha256) const override;
  absl::StatusOr<std::string> DatasetContent(
      const std::string& sha256) override;
  absl::Status PutDatasetContent(
      const std::string& sha256, const std::string& folder,
      const std::vector<std::string>& files) override;
  absl::Status RemoveDatasetContent(const std::string& sha256) override;

  absl::Status BeginUpload(const UploadRecord& upload,
                           const UploadCaps& caps) override;
  absl::StatusOr<std::optional<UploadRecord>> GetUpload(
      const std::string& principal, const std::string& id, int kind,
      const UploadCaps& caps) override;
  absl::Status AppendUpload(const std::string& id, const std::string& file,
                            int64_t offset, std::string_view data) override;
  absl::StatusOr<std::string> UploadFiles(const std::string& id) override;
  absl::Status FinishUpload(const std::string& id,
                            const std::string& result) override;
  absl::Status DropUpload(const std::string& id) override;
  absl::StatusOr<int> OpenUploads(const UploadCaps& caps) override;

  absl::Status Heartbeat(const NodeRecord& node) override;
  absl::StatusOr<std::vector<NodeRecord>> ListNodes(
      std::chrono::milliseconds within) override;
  absl::Status RemoveNode(const std::string& name) override;

 protected:
  const std::string& folder() const { return folder_; }

 private:
  struct Upload {
    UploadRecord record;
    // Its lease: the time of its last call plus the idle timeout then.
    std::chrono::steady_clock::time_point expires;
  };
  std::string UploadFolder(const std::string& id) const;
  // Drops uploads whose lease ran out (and their folders).
  void Expire() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::string folder_;
  absl::Mutex mutex_;
  std::map<std::string, Upload> uploads_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, NodeRecord> nodes_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_LOCAL_STORE_H_
