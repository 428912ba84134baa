#include "server/store.h"

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

namespace webnnm::server {
namespace {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("webnnm-store-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    path_ = (folder_ / "sub" / "test.db").string();
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::unique_ptr<Store> Open(int retention = 1) {
    absl::StatusOr<std::unique_ptr<Store>> s = Store::Open(path_, retention);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  static v1::Job NewJob(const std::string& id, const std::string& who,
                        int64_t seconds) {
    v1::Job job;
    job.set_job_id(id);
    job.set_principal(who);
    job.set_kind(v1::JOB_KIND_TRAIN);
    job.mutable_created()->set_seconds(seconds);
    return job;
  }

  static v1::JobEvent Epoch(int epoch, double loss) {
    v1::JobEvent e;
    e.set_type(v1::EVENT_TYPE_EPOCH);
    e.mutable_epoch()->set_epoch(epoch);
    e.mutable_epoch()->set_train_loss(loss);
    e.mutable_epoch()->set_lr(0.1);
    return e;
  }

  fs::path folder_;
  std::string path_;
};

TEST_F(StoreTest, CreatesTheSchemaInWalMode) {
  auto store = Open();
  ASSERT_TRUE(store);
  EXPECT_TRUE(fs::exists(path_));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)),
               "wal");
  sqlite3_finalize(stmt);
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), Store::kSchemaVersion);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_F(StoreTest, RefusesANewerSchema) {
  { Open(); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  absl::StatusOr<std::unique_ptr<Store>> s = Store::Open(path_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr("99"));
}

TEST_F(StoreTest, JobsGetNumberedEventsThatSurviveReopening) {
  {
    auto store = Open();
    v1::SubmitJobRequest request;
    request.set_model_text("model text");
    absl::StatusOr<v1::Job> job =
        store->CreateJob(NewJob("j1", "ann", 1), request);
    ASSERT_TRUE(job.ok()) << job.status();
    EXPECT_EQ(job->state(), v1::JOB_STATE_QUEUED);
    EXPECT_EQ(job->last_seq(), 1);
    v1::JobEvent running;
    running.set_type(v1::EVENT_TYPE_STATE);
    running.set_state(v1::JOB_STATE_RUNNING);
    absl::StatusOr<v1::Job> updated = store->Update(
        "j1", [](v1::Job& j) { j.set_state(v1::JOB_STATE_RUNNING); },
        {running, Epoch(1, 0.5), Epoch(2, 0.25)});
    ASSERT_TRUE(updated.ok()) << updated.status();
    EXPECT_EQ(updated->last_seq(), 4);
  }
  auto store = Open();
  absl::StatusOr<std::optional<StoredJob>> job = store->GetJob("j1");
  ASSERT_TRUE(job.ok() && *job);
  EXPECT_EQ((*job)->job.state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ((*job)->request.model_text(), "model text");
  absl::StatusOr<std::vector<v1::JobEvent>> events = store->Events("j1", 2, 10);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].seq(), 2);
  EXPECT_EQ((*events)[0].state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ((*events)[2].epoch().epoch(), 2);
  EXPECT_EQ((*events)[2].job_id(), "j1");
  absl::StatusOr<std::vector<v1::MetricSeries>> metrics =
      store->Metrics("j1", {"trainLoss"});
  ASSERT_TRUE(metrics.ok());
  ASSERT_EQ(metrics->size(), 1u);
  ASSERT_EQ((*metrics)[0].points_size(), 2);
  EXPECT_EQ((*metrics)[0].points(1).value(), 0.25);
  EXPECT_TRUE(store->IntegrityCheck().ok());
}

TEST_F(StoreTest, IdempotencyKeysAreUniquePerPrincipal) {
  auto store = Open();
  v1::SubmitJobRequest request;
  request.set_idempotency_key("k");
  ASSERT_TRUE(store->CreateJob(NewJob("a", "ann", 1), request).ok());
  absl::StatusOr<v1::Job> again =
      store->CreateJob(NewJob("b", "ann", 2), request);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(store->CreateJob(NewJob("c", "bob", 3), request).ok());
  absl::StatusOr<std::optional<v1::Job>> found =
      store->FindByIdempotencyKey("ann", "k");
  ASSERT_TRUE(found.ok() && *found);
  EXPECT_EQ((*found)->job_id(), "a");
}

TEST_F(StoreTest, ListsNewestFirstByPrincipalAndState) {
  auto store = Open();
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(
        store
            ->CreateJob(
                NewJob("j" + std::to_string(i), i % 2 ? "bob" : "ann", i), {})
            .ok());
  }
  ASSERT_TRUE(
      store
          ->Update("j4",
                   [](v1::Job& j) { j.set_state(v1::JOB_STATE_SUCCEEDED); }, {})
          .ok());
  auto ids = [](const std::vector<v1::Job>& jobs) {
    std::vector<std::string> out;
    for (const v1::Job& j : jobs) out.push_back(j.job_id());
    return out;
  };
  EXPECT_THAT(ids(*store->ListJobs("", v1::JOB_STATE_UNSPECIFIED, 0, 10)),
              ::testing::ElementsAre("j4", "j3", "j2", "j1", "j0"));
  EXPECT_THAT(ids(*store->ListJobs("ann", v1::JOB_STATE_UNSPECIFIED, 1, 10)),
              ::testing::ElementsAre("j2", "j0"));
  EXPECT_THAT(ids(*store->ListJobs("", v1::JOB_STATE_QUEUED, 0, 2)),
              ::testing::ElementsAre("j3", "j2"));
  EXPECT_EQ(*store->CountJobs("ann", v1::JOB_STATE_QUEUED), 2);
  EXPECT_THAT(*store->JobIds(v1::JOB_STATE_QUEUED),
              ::testing::ElementsAre("j0", "j1", "j2", "j3"));
}

TEST_F(StoreTest, KeepsTheNewestCheckpointsAndDeletesEverythingOfAJob) {
  auto store = Open(/*retention=*/2);
  ASSERT_TRUE(store->CreateJob(NewJob("j", "ann", 1), {}).ok());
  for (int epoch = 1; epoch <= 4; ++epoch) {
    SnapshotBlob blob{"checkpoint", epoch, std::string(10, 'a' + epoch)};
    ASSERT_TRUE(
        store->Update("j", nullptr, {Epoch(epoch, 1.0 / epoch)}, &blob).ok());
  }
  absl::StatusOr<std::optional<SnapshotBlob>> latest =
      store->LatestSnapshot("j");
  ASSERT_TRUE(latest.ok() && *latest);
  EXPECT_EQ((*latest)->epoch, 4);
  EXPECT_EQ((*latest)->bytes, std::string(10, 'e'));
  EXPECT_TRUE((*store->GetJob("j"))->job.has_snapshot());
  ASSERT_TRUE(store->DeleteJob("j").ok());
  EXPECT_FALSE(*store->GetJob("j"));
  EXPECT_FALSE(*store->LatestSnapshot("j"));
  EXPECT_TRUE(store->Events("j", 1, 10)->empty());
  EXPECT_TRUE(store->Metrics("j", {})->empty());
  EXPECT_EQ(store->DeleteJob("j").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store->Update("j", nullptr, {}).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(StoreTest, DatasetsAreSeenByTheirPrincipal) {
  auto store = Open();
  v1::Dataset d;
  d.set_dataset_id("d1");
  d.set_name("iris.csv");
  d.set_sha256(std::string(64, 'a'));
  ASSERT_TRUE(store->InsertDataset("ann", d).ok());
  EXPECT_TRUE(*store->FindDataset("ann", std::string(64, 'a')));
  EXPECT_FALSE(*store->FindDataset("bob", std::string(64, 'a')));
  EXPECT_TRUE(*store->GetDataset("ann", "d1"));
  EXPECT_FALSE(*store->GetDataset("bob", "d1"));
  EXPECT_TRUE(*store->GetDataset("", "d1"));
  EXPECT_EQ(store->ListDatasets("bob")->size(), 0u);
  EXPECT_EQ(store->ListDatasets("")->size(), 1u);
  // The same content again for the same principal is refused.
  d.set_dataset_id("d2");
  EXPECT_FALSE(store->InsertDataset("ann", d).ok());
}

}  // namespace
}  // namespace webnnm::server
