// Serving a finished job's model: Infer's model (cached, built once per
// job) and Predict's run of a stored dataset through the job's newest
// snapshot, for a principal who may see the job.
#ifndef WEBNNM_SERVER_CORE_SERVING_H_
#define WEBNNM_SERVER_CORE_SERVING_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "engine/api/predict.h"
#include "server/core/inference.h"
#include "server/core/principal.h"
#include "server/core/store.h"

namespace webnnm::server {

// The model of job `id` (a succeeded training job or an imported
// snapshot) if `who` may see it: from the cache when it was served before.
absl::StatusOr<std::shared_ptr<ServedModel>> ServedModelOf(
    InferenceCache& cache, Store& store, const Principal& who,
    const std::string& id);

// Every sample of the dataset `data` names through job `id`'s newest
// snapshot (images resized as the job's were, or as asked). Messages name
// the dataset, never its stored path. `max_dataset_bytes` bounds what an
// .npz or image dataset holds decoded.
absl::StatusOr<Predictions> PredictWithJob(Store& store, const Principal& who,
                                           const std::string& id,
                                           DataSpec data,
                                           int64_t max_dataset_bytes);

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_SERVING_H_
