// Inference on finished jobs' snapshots, for Infer and KServe's ModelInfer:
// the snapshot's model is built once and kept (per job and snapshot), with
// one compiled context per batch size; inputs are standardized with the
// snapshot's statistics, as in training.
#ifndef WEBNNM_SERVER_CORE_INFERENCE_H_
#define WEBNNM_SERVER_CORE_INFERENCE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "engine/check.h"
#include "server/core/store.h"

namespace webnnm::server {

// One input or output: float values (row-major, batch first).
struct InferTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<double> values;
};

struct ServedModel;

// Little-endian, row-major raw values of a WebNN data type (float32,
// float16, float64, int8, uint8, int16, uint16, int32, uint32, int64,
// uint64, bool) as doubles; InvalidArgument for another type or a length
// that is not a whole number of values.
absl::StatusOr<std::vector<double>> DecodeRaw(std::string_view type,
                                              std::string_view bytes);

class InferenceCache {
 public:
  // `batch_window`: InferBatcher's window for concurrent calls on one
  // model (0: the calls queued while a batch runs form the next one, no
  // timed wait; negative: no dynamic batching, each call runs alone).
  explicit InferenceCache(int threads,
                          absl::Duration batch_window = absl::ZeroDuration())
      : threads_(threads), batch_window_(batch_window) {}
  ~InferenceCache();

  // The model of the job's newest snapshot (built on first use); `job` as
  // the caller read it, its visibility and state checked.
  absl::StatusOr<std::shared_ptr<ServedModel>> Get(Store& store,
                                                   const Job& job);
  // The model of a SUCCEEDED job served before, when `owns` accepts the
  // job's principal; null otherwise (the caller then reads the job). Such a
  // job's snapshot never changes (only DeleteJob ends it, and calls
  // Forget), so this reads nothing from the store.
  std::shared_ptr<ServedModel> Finished(
      const std::string& job_id,
      const std::function<bool(const std::string&)>& owns);

  // Runs inputs (by name; an empty name is the first input) through the
  // model. Every input must be given, each with a batch dimension first and
  // the input's sample shape after it (or flat: [batch, elements]).
  // Concurrent calls on one model may run as one batch (the cache's batch
  // window, infer_batcher.h): each still gets its own rows' outputs.
  static absl::StatusOr<std::vector<InferTensor>> Run(
      ServedModel& model, const std::vector<InferTensor>& inputs,
      int64_t max_elements);
  // Run for gRPC's callback API: checks the inputs and queues the call,
  // then returns — at once when a batch is running on another thread,
  // which then runs this call too; else after running batches here (this
  // call among them: infer_batcher.h; without batching, one call a
  // batch). `done` gets the outputs or the error, on whichever thread ran
  // the call (before return for a bad input). A leading handler keeps its
  // gRPC thread while calls keep coming for its model: each busy model
  // holds one of gRPC's callback threads.
  using InferDone =
      std::function<void(absl::StatusOr<std::vector<InferTensor>>)>;
  static void RunAsync(std::shared_ptr<ServedModel> model,
                       const std::vector<InferTensor>& inputs,
                       int64_t max_elements, InferDone done);

  static const ModelSummary& Summary(const ServedModel& model);
  static const std::vector<std::string>& Classes(const ServedModel& model);

  void Forget(const std::string& job_id);

  // The batch window of every model served from now on (and of those kept).
  void SetBatchWindow(absl::Duration window);

 private:
  const int threads_;
  absl::Mutex mutex_;
  absl::Duration batch_window_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, std::shared_ptr<ServedModel>> models_
      ABSL_GUARDED_BY(mutex_);
  uint64_t clock_ ABSL_GUARDED_BY(mutex_) = 0;  // ticks per model served
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_INFERENCE_H_
