// Admission on the in-memory store: a submission checked as its job will
// run (labels, hyperparameters, backend, dataset, model, data against the
// model), the idempotency key and its race, the queued-job limit, what a
// principal may see, CheckModel's preview and the starter model.
#include "server/core/admission.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/core/access.h"
#include "server/core/job_log.h"
#include "server/core/memory_store.h"
#include "server/core/testing/test_files.h"

namespace webnnm::server {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using testing_files::kIris;
using testing_files::kModel;
using testing_files::ReadText;

// A store whose first lookup of an idempotency key finds nothing and, in
// that moment, lets another call with the same key create its job: the
// race two concurrent submissions run, made to happen every time.
class RacingStore final : public MemoryStore {
 public:
  using MemoryStore::MemoryStore;
  absl::StatusOr<std::optional<Job>> FindByIdempotencyKey(
      const std::string& principal, const std::string& key) override {
    if (raced_ || key.empty()) {
      return MemoryStore::FindByIdempotencyKey(principal, key);
    }
    raced_ = true;
    Job winner;
    winner.id = "jwinner";
    winner.principal = principal;
    JobRequest request;
    request.idempotency_key = key;
    winner_ = MemoryStore::CreateJob(winner, request);
    return std::nullopt;
  }
  absl::StatusOr<Job> winner_ = absl::UnknownError("no race yet");

 private:
  bool raced_ = false;
};

class AdmissionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("webnnm-admission-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    store_ = std::make_unique<RacingStore>(folder_.string());
    // Ann's iris dataset, as an upload leaves it.
    Dataset d{.id = "d1",
              .name = "iris.csv",
              .format = DatasetFormat::kCsv,
              .sha256 = std::string(64, 'a'),
              .files = {"iris.csv"}};
    fs::create_directories(store_->DatasetFolder(d.sha256));
    fs::copy_file(kIris,
                  fs::path(store_->DatasetFolder(d.sha256)) / "iris.csv");
    ASSERT_TRUE(store_->InsertDataset("ann", d).ok());
    jobs_ = std::make_unique<JobManager>(*store_, JobOptions{});
  }
  void TearDown() override {
    jobs_.reset();
    fs::remove_all(folder_);
  }

  Admission Make(Limits limits = {}) { return Admission(*store_, *jobs_, limits); }
  JobRequest Iris() {
    JobRequest r;
    r.model_text = ReadText(kModel);
    r.data.dataset_id = "d1";
    r.hyperparameters["epochs"] = int64_t{2};
    return r;
  }

  fs::path folder_;
  std::unique_ptr<RacingStore> store_;
  std::unique_ptr<JobManager> jobs_;
  const Principal ann_{.name = "ann"};
  const Principal bob_{.name = "bob"};
};

TEST_F(AdmissionTest, QueuesTheJobAsItWillRun) {
  Admission admission = Make();
  std::ostringstream log;
  SetJobLogStream(&log);
  absl::StatusOr<Admission::Submitted> s = admission.Submit(ann_, Iris());
  SetJobLogStream(&std::cerr);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->existing);
  EXPECT_EQ(s->job.state, JobState::kQueued);
  EXPECT_EQ(s->job.model_name, "test-model");
  EXPECT_EQ(s->job.name, "test-model");  // no name given: the model's
  EXPECT_EQ(s->job.principal, "ann");
  EXPECT_EQ(s->job.epochs, 2);
  EXPECT_EQ(s->job.backend, "cpu");
  // The label column chosen for the model, pinned for `get`.
  absl::StatusOr<std::optional<StoredJob>> stored = store_->GetJob(s->job.id);
  ASSERT_TRUE(stored.ok() && *stored);
  EXPECT_EQ((*stored)->request.data.chosen_label, "species");
  // Its first event is QUEUED, and the daemon's log says it was submitted.
  absl::StatusOr<std::vector<JobEvent>> events = store_->Events(s->job.id, 1, 10);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].state, JobState::kQueued);
  EXPECT_THAT(log.str(), HasSubstr("job=" + s->job.id));
  EXPECT_THAT(log.str(), HasSubstr("msg=submitted"));
}

TEST_F(AdmissionTest, AKeyAnswersWithTheFirstJob) {
  Admission admission = Make();
  JobRequest r = Iris();
  r.idempotency_key = "k1";
  // The race: another call with the key creates its job between this
  // call's lookup and its own creation; the winner's job is the answer.
  absl::StatusOr<Admission::Submitted> first = admission.Submit(ann_, r);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(store_->winner_.ok());
  EXPECT_EQ(first->job.id, "jwinner");
  EXPECT_TRUE(first->existing);
  // Later calls find it at once.
  absl::StatusOr<Admission::Submitted> again = admission.Submit(ann_, r);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->job.id, "jwinner");
  EXPECT_TRUE(again->existing);
  // Another key makes another job; a key of 201 bytes is refused.
  r.idempotency_key = "k2";
  absl::StatusOr<Admission::Submitted> other = admission.Submit(ann_, r);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->job.id, "jwinner");
  EXPECT_FALSE(other->existing);
  r.idempotency_key = std::string(201, 'k');
  EXPECT_THAT(admission.Submit(ann_, r).status().message(),
              HasSubstr("idempotency key is too long"));
}

TEST_F(AdmissionTest, RefusesWhatWouldFailAsAJob) {
  Admission admission = Make({.max_model_bytes = 4096});
  auto refused = [&](JobRequest r, absl::StatusCode code,
                     const std::string& says) {
    absl::Status s = admission.Submit(ann_, std::move(r)).status();
    EXPECT_EQ(s.code(), code) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(says));
  };
  JobRequest r = Iris();
  r.model_text = "model:name broken;\nmodel:layers nothing(;";
  refused(r, absl::StatusCode::kInvalidArgument, "the model does not check");
  r.model_text = std::string(5000, ' ');
  refused(r, absl::StatusCode::kResourceExhausted, "the limit is 4096");
  r = Iris();
  r.backend = "tpu";
  refused(r, absl::StatusCode::kInvalidArgument, "unknown backend 'tpu'");
  r = Iris();
  r.hyperparameters["replicas"] = int64_t{2};
  refused(r, absl::StatusCode::kInvalidArgument, "replicas need as many");
  r = Iris();
  r.hyperparameters["epochs"] = int64_t{0};
  refused(r, absl::StatusCode::kInvalidArgument, "epochs");
  r = Iris();
  r.tags["bad key"] = "v";
  refused(r, absl::StatusCode::kInvalidArgument, "'bad key'");
  r = Iris();
  r.data.dataset_id = "d404";
  refused(r, absl::StatusCode::kNotFound, "no dataset d404");
  // The data against the model: a label column of 3 classes for 2 units.
  r = Iris();
  r.model_text.replace(r.model_text.find("shape=[3];"), 10, "shape=[2];");
  r.model_text.replace(r.model_text.find("dense(shape=[3], activation=soft"),
                       15, "dense(shape=[2]");
  refused(r, absl::StatusCode::kInvalidArgument, "3 classes");
  r = Iris();
  r.kind = JobKind::kTest;
  refused(r, absl::StatusCode::kInvalidArgument, "snapshot_job_id");
  // Nothing was queued.
  absl::StatusOr<std::vector<Job>> jobs =
      store_->ListJobs("", JobState::kUnspecified, 0, 10);
  ASSERT_TRUE(jobs.ok());
  EXPECT_TRUE(jobs->empty());
}

TEST_F(AdmissionTest, TestsOnlyAJobWithASnapshotItMaySee) {
  Admission admission = Make();
  absl::StatusOr<Admission::Submitted> trained = admission.Submit(ann_, Iris());
  ASSERT_TRUE(trained.ok());
  JobRequest test = Iris();
  test.kind = JobKind::kTest;
  test.snapshot_job_id = trained->job.id;
  absl::Status none = admission.Submit(ann_, test).status();
  EXPECT_EQ(none.code(), absl::StatusCode::kFailedPrecondition) << none;
  EXPECT_THAT(none.message(), HasSubstr("has no snapshot yet"));
  // Bob sees neither ann's job nor her dataset.
  absl::Status hidden = admission.Submit(bob_, test).status();
  EXPECT_EQ(hidden.code(), absl::StatusCode::kNotFound) << hidden;
  EXPECT_EQ(VisibleJob(*store_, bob_, trained->job.id).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(VisibleJob(*store_, Principal{.name = "root", .admin = true},
                         trained->job.id)
                  .ok());
}

TEST_F(AdmissionTest, HoldsThePrincipalsQueuedJobs) {
  Admission admission = Make({.max_queued_jobs = 1});
  ASSERT_TRUE(admission.Submit(ann_, Iris()).ok());
  absl::Status full = admission.Submit(ann_, Iris()).status();
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted) << full;
}

TEST_F(AdmissionTest, PreviewsWhatTrainingWouldDecide) {
  Admission admission = Make();
  CheckResult check = *admission.CheckModelText("", ReadText(kModel));
  ASSERT_TRUE(check.ok);
  DataSpec data;
  data.dataset_id = "d1";
  absl::StatusOr<train::Preview> preview =
      admission.Preview(ann_, {}, data, *check.dag);
  ASSERT_TRUE(preview.ok()) << preview.status();
  EXPECT_FALSE(preview->decisions.empty());
  bool names_label = false;
  for (const train::Decision& d : preview->decisions) {
    names_label |= (d.what + d.why).find("species") != std::string::npos;
  }
  EXPECT_TRUE(names_label);
  // Another's dataset, or a bad value, is the preview's error.
  EXPECT_EQ(admission.Preview(bob_, {}, data, *check.dag).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_FALSE(
      admission.Preview(ann_, {{"epochs", int64_t{-1}}}, data, *check.dag)
          .ok());
}

TEST_F(AdmissionTest, WritesAStarterModelNamingTheDataset) {
  Admission admission = Make();
  DataSpec data;
  data.dataset_id = "d1";
  absl::StatusOr<train::StarterModel> model = admission.Starter(ann_, data, "");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->label, "species");
  EXPECT_THAT(model->text, HasSubstr("model:name iris;"));
  EXPECT_TRUE(CheckModel("iris.wnm", model->text).ok);
  data.label = "colour";
  absl::Status bad = admission.Starter(ann_, data, "").status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument) << bad;
  EXPECT_THAT(bad.message(), HasSubstr("iris.csv"));
  EXPECT_THAT(bad.message(), ::testing::Not(HasSubstr(folder_.string())));
}

}  // namespace
}  // namespace webnnm::server
