// What one daemon accepts from a principal: the sizes of models, datasets,
// upload chunks, snapshots and inference calls, the queued jobs, and the
// open uploads (config `limits`: server/config.h).
#ifndef WEBNNM_SERVER_CORE_LIMITS_H_
#define WEBNNM_SERVER_CORE_LIMITS_H_

#include <chrono>
#include <cstdint>

namespace webnnm::server {

struct Limits {
  int64_t max_model_bytes = 1 << 20;
  int64_t max_dataset_bytes = 256ll << 20;
  int64_t max_chunk_bytes = 1 << 20;  // one upload call's data
  int max_queued_jobs = 100;          // per principal
  int64_t max_infer_elements = 16 << 20;
  int64_t max_snapshot_bytes = 1ll << 30;
  // Uploads: unfinished ones are deleted after this idle time; open
  // (unfinished) uploads per principal, and the bytes they announce.
  std::chrono::seconds upload_idle_timeout{3600};
  int max_open_uploads = 8;
  int64_t max_open_upload_bytes = 1ll << 30;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_LIMITS_H_
