// Admission: what the daemon accepts as a job, decided before the job is
// queued, so that a bad submission is an error of the call and never a
// failed job later.
//
// A submission (Submit) is checked as the job will run it: its labels and
// hyperparameters (as the command line's flags), its backend (one without
// its device is refused now), its dataset (the principal's), its model
// (it checks; a TEST job's is its snapshot's) and the data against the
// model (a whole Run::Prepare without a backend: classes, features, loss
// weights). An idempotency key makes a retried submission answer with the
// job the first one made, also when two calls with one key race (the
// store's unique key decides; the loser answers with the winner's job).
//
// Preview answers CheckModel's question of the data: what training the
// model on it would decide (decisions, warnings, resolved hyperparameters).
//
// Thread-safety: every method may be called from any thread.
#ifndef WEBNNM_SERVER_CORE_ADMISSION_H_
#define WEBNNM_SERVER_CORE_ADMISSION_H_

#include <string>

#include "absl/status/statusor.h"
#include "engine/check.h"
#include "engine/dag/dag.h"
#include "engine/train/checkpoint.h"
#include "engine/expert/starter_model.h"
#include "engine/train/run.h"
#include "server/core/access.h"
#include "server/core/job.h"
#include "server/core/jobs.h"
#include "server/core/limits.h"
#include "server/core/principal.h"
#include "server/core/store.h"

namespace webnnm::server {

// A data request's impute: "" (auto), auto, mean, median or none;
// InvalidArgument naming them otherwise.
absl::Status CheckImpute(const std::string& impute);

class Admission {
 public:
  Admission(Store& store, JobManager& jobs, const Limits& limits)
      : store_(store), jobs_(jobs), limits_(limits) {}

  struct Submitted {
    Job job;
    bool existing = false;  // an earlier call with the key made it
  };
  // Checks `request` and queues its job (QUEUED, its first event stored,
  // the workers woken); or the job an earlier call with the same
  // idempotency key made. InvalidArgument for what does not check,
  // FailedPrecondition for a backend without its device or a tested job
  // without a snapshot, NotFound for another principal's dataset or job,
  // ResourceExhausted past the principal's queued jobs or the model size.
  absl::StatusOr<Submitted> Submit(const Principal& who, JobRequest request);

  // A starter model for the principal's dataset `data` (a CSV): its label
  // column `data.label` or the one chosen, named `name` (the dataset's
  // file stem when ""). InvalidArgument naming the dataset (never the
  // store's path) for data it cannot model.
  absl::StatusOr<train::StarterModel> Starter(const Principal& who,
                                              const DataSpec& data,
                                              const std::string& name);

  // A model's text checked (ResourceExhausted past the model size limit).
  absl::StatusOr<CheckResult> CheckModelText(const std::string& file_name,
                                             const std::string& text) const;

  // What training `dag` with `values` on `data` would decide (without data:
  // what the model alone decides); the error says why it cannot be told.
  absl::StatusOr<train::Preview> Preview(
      const Principal& who, const train::HyperparameterValues& values,
      const DataSpec& data, const dag::Dag& dag);

 private:
  // What a checked submission will read: the model's name, and the label
  // column a CSV's data is read with ("" otherwise).
  struct Admitted {
    std::string model_name, label;
  };
  absl::StatusOr<Admitted> Check(const Principal& who,
                                 const JobRequest& request);
  // The backend the job asks for, with its device (FailedPrecondition).
  absl::Status CheckBackend(const std::string& backend) const;
  absl::Status CheckReplicas(int replicas) const;
  // The snapshot a TEST job tests: the newest of the job it names.
  absl::StatusOr<train::ModelSnapshot> TestedSnapshot(
      const Principal& who, const JobRequest& request);
  // The job a checked submission makes.
  Job NewJob(const Principal& who, const JobRequest& request,
             const Admitted& admitted) const;
  // The job an earlier submission with `key` made, if any.
  absl::StatusOr<std::optional<Job>> Earlier(const Principal& who,
                                             const std::string& key);

  Store& store_;
  JobManager& jobs_;
  const Limits limits_;
};

}  // namespace webnnm::server

#endif  // WEBNNM_SERVER_CORE_ADMISSION_H_
