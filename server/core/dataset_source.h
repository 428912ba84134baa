// Where a stored dataset's content is: the one lookup from a dataset id
// (data.dataset_id of a request) to the file or folder the engine reads,
// for the service (checking a submission, CheckModel's preview) and the
// job manager (running the job).
#ifndef WEBNNM_SERVER_CORE_DATASET_SOURCE_H_
#define WEBNNM_SERVER_CORE_DATASET_SOURCE_H_

#include <string>

#include "absl/status/statusor.h"
#include "engine/train/data_source.h"
#include "server/core/store.h"

namespace webnnm::server {

struct StoredData {
  train::DataSource source;  // the CSV file or the IDX folder, with the
                             // request's label and header flags
  std::string id;            // the dataset's id (what snapshots record)
  std::string name;          // its name (what messages show)
};

// The dataset `spec` names, if `principal` may see it (`principal` empty:
// anyone's). InvalidArgument when no dataset is named, NotFound "no dataset
// ID" when there is none (or it is another principal's), DataLoss for a
// stored CSV dataset without its file or a dataset whose content the store
// no longer holds. A shared store's content is fetched first (its local
// copy is where the source points). `max_bytes` (0: the engine's
// default) limits what an .npz or image dataset holds decoded.
absl::StatusOr<StoredData> FindStoredData(Store& store,
                                          const std::string& principal,
                                          const DataSpec& spec,
                                          int64_t max_bytes = 0);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_DATASET_SOURCE_H_
