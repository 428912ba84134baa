// The store contract (core/store.h), one suite run on both implementations
// (SQLite and in memory), and what only the SQLite store does (its schema,
// WAL, reopening).
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "server/core/memory_store.h"
#include "server/store/sqlite_store.h"

namespace webnnm::server {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

Job NewJob(const std::string& id, const std::string& who, int64_t seconds) {
  Job job;
  job.id = id;
  job.principal = who;
  job.kind = JobKind::kTrain;
  job.created = Time(std::chrono::seconds(seconds));
  return job;
}

JobEvent Epoch(int epoch, double loss) {
  JobEvent e;
  e.type = EventType::kEpoch;
  e.epoch.epoch = epoch;
  e.epoch.train_loss = loss;
  e.epoch.lr = 0.1;
  return e;
}

std::vector<std::string> Ids(const std::vector<Job>& jobs) {
  std::vector<std::string> out;
  for (const Job& j : jobs) out.push_back(j.id);
  return out;
}

class Folder {
 public:
  Folder() {
    path_ = fs::temp_directory_path() /
            ("webnnm-store-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
  }
  ~Folder() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The suite's parameter: which implementation.
class StoreContract : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Store> Open(int retention = 1) {
    if (GetParam() == "memory") {
      return std::make_unique<MemoryStore>(folder_.path().string(), retention);
    }
    absl::StatusOr<std::unique_ptr<SqliteStore>> s = SqliteStore::Open(
        (folder_.path() / "sub" / "test.db").string(), retention);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  Folder folder_;
};

INSTANTIATE_TEST_SUITE_P(Stores, StoreContract,
                         ::testing::Values("sqlite", "memory"));

TEST_P(StoreContract, JobsGetNumberedEventsAndMetrics) {
  auto store = Open();
  JobRequest request;
  request.model_text = "model text";
  request.hyperparameters["lr"] = 0.05;
  absl::StatusOr<Job> job = store->CreateJob(NewJob("j1", "ann", 1), request);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->state, JobState::kQueued);
  EXPECT_EQ(job->last_seq, 1);
  absl::StatusOr<Job> updated = store->Update(
      "j1", [](Job& j) { j.state = JobState::kRunning; },
      {StateEvent(JobState::kRunning), Epoch(1, 0.5), Epoch(2, 0.25)});
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->last_seq, 4);

  absl::StatusOr<std::optional<StoredJob>> stored = store->GetJob("j1");
  ASSERT_TRUE(stored.ok() && *stored);
  EXPECT_EQ((*stored)->job.state, JobState::kRunning);
  EXPECT_EQ((*stored)->request.model_text, "model text");
  EXPECT_EQ(std::get<double>((*stored)->request.hyperparameters.at("lr")),
            0.05);
  absl::StatusOr<std::vector<JobEvent>> events = store->Events("j1", 2, 10);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].seq, 2);
  EXPECT_EQ((*events)[0].state, JobState::kRunning);
  EXPECT_EQ((*events)[2].epoch.epoch, 2);
  EXPECT_EQ((*events)[2].job_id, "j1");
  EXPECT_TRUE((*events)[2].time.has_value());
  absl::StatusOr<std::vector<MetricSeries>> metrics =
      store->Metrics("j1", {"trainLoss"});
  ASSERT_TRUE(metrics.ok());
  ASSERT_EQ(metrics->size(), 1u);
  ASSERT_EQ((*metrics)[0].points.size(), 2u);
  EXPECT_EQ((*metrics)[0].points[1].value, 0.25);
  // Every metric an epoch records, by name.
  std::vector<std::string> names;
  absl::StatusOr<std::vector<MetricSeries>> all = store->Metrics("j1", {});
  for (const MetricSeries& m : *all) names.push_back(m.name);
  EXPECT_THAT(names, ElementsAre("lr", "samplesPerSecond", "trainLoss"));
  EXPECT_TRUE(store->IntegrityCheck().ok());
}

TEST_P(StoreContract, IdempotencyKeysAreUniquePerPrincipal) {
  auto store = Open();
  JobRequest request;
  request.idempotency_key = "k";
  ASSERT_TRUE(store->CreateJob(NewJob("a", "ann", 1), request).ok());
  absl::StatusOr<Job> again = store->CreateJob(NewJob("b", "ann", 2), request);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(store->CreateJob(NewJob("c", "bob", 3), request).ok());
  absl::StatusOr<std::optional<Job>> found =
      store->FindByIdempotencyKey("ann", "k");
  ASSERT_TRUE(found.ok() && *found);
  EXPECT_EQ((*found)->id, "a");
  EXPECT_FALSE(*store->FindByIdempotencyKey("ann", ""));
}

TEST_P(StoreContract, TheQueueLimitHoldsPerPrincipal) {
  auto store = Open();
  ASSERT_TRUE(store->CreateJob(NewJob("a", "ann", 1), {}, 2).ok());
  ASSERT_TRUE(store->CreateJob(NewJob("b", "ann", 2), {}, 2).ok());
  absl::StatusOr<Job> third = store->CreateJob(NewJob("c", "ann", 3), {}, 2);
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(store->CreateJob(NewJob("d", "bob", 4), {}, 2).ok());
  EXPECT_FALSE(*store->GetJob("c"));
}

TEST_P(StoreContract, ListsNewestFirstByPrincipalAndState) {
  auto store = Open();
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(
        store
            ->CreateJob(
                NewJob("j" + std::to_string(i), i % 2 ? "bob" : "ann", i), {})
            .ok());
  }
  ASSERT_TRUE(
      store->Update("j4", [](Job& j) { j.state = JobState::kSucceeded; }, {})
          .ok());
  EXPECT_THAT(Ids(*store->ListJobs("", JobState::kUnspecified, 0, 10)),
              ElementsAre("j4", "j3", "j2", "j1", "j0"));
  EXPECT_THAT(Ids(*store->ListJobs("ann", JobState::kUnspecified, 1, 10)),
              ElementsAre("j2", "j0"));
  EXPECT_THAT(Ids(*store->ListJobs("", JobState::kQueued, 0, 2)),
              ElementsAre("j3", "j2"));
  EXPECT_EQ(*store->CountJobs("ann", JobState::kQueued), 2);
  EXPECT_THAT(*store->JobIds(JobState::kQueued),
              ElementsAre("j0", "j1", "j2", "j3"));
}

TEST_P(StoreContract, KeepsTheNewestCheckpointsAndDeletesEverythingOfAJob) {
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
  std::optional<std::string> key = *store->LatestSnapshotKey("j");
  ASSERT_TRUE(key);
  SnapshotBlob final_blob{"final", 4, "final bytes"};
  ASSERT_TRUE(store->Update("j", nullptr, {}, &final_blob).ok());
  EXPECT_NE(*store->LatestSnapshotKey("j"), key);  // a new snapshot, a new key
  EXPECT_EQ((*store->LatestSnapshot("j"))->kind, "final");
  EXPECT_TRUE((*store->GetJob("j"))->job.has_snapshot);
  ASSERT_TRUE(store->DeleteJob("j").ok());
  EXPECT_FALSE(*store->GetJob("j"));
  EXPECT_FALSE(*store->LatestSnapshot("j"));
  EXPECT_TRUE(store->Events("j", 1, 10)->empty());
  EXPECT_TRUE(store->Metrics("j", {})->empty());
  EXPECT_EQ(store->DeleteJob("j").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store->Update("j", nullptr, {}).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_P(StoreContract, AFinishedJobIsCreatedWithItsSnapshot) {
  auto store = Open();
  Job job = NewJob("i", "ann", 1);
  job.kind = JobKind::kImport;
  absl::StatusOr<Job> created =
      store->CreateFinishedJob(job, SnapshotBlob{"final", 3, "bytes"});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->state, JobState::kSucceeded);
  EXPECT_TRUE(created->finished.has_value());
  EXPECT_EQ(created->last_seq, 2);
  EXPECT_EQ((*store->LatestSnapshot("i"))->bytes, "bytes");
  EXPECT_EQ((*store->Events("i", 2, 1))[0].message, "imported snapshot");
}

TEST_P(StoreContract, DatasetsAreSeenByTheirPrincipal) {
  auto store = Open();
  Dataset d;
  d.id = "d1";
  d.name = "iris.csv";
  d.format = DatasetFormat::kCsv;
  d.sha256 = std::string(64, 'a');
  d.files = {"iris.csv"};
  d.created = Time(std::chrono::seconds(5));
  ASSERT_TRUE(store->InsertDataset("ann", d).ok());
  std::optional<Dataset> found = *store->FindDataset("ann", d.sha256);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->files, d.files);
  EXPECT_EQ(found->format, DatasetFormat::kCsv);
  EXPECT_EQ(found->created, d.created);
  EXPECT_FALSE(*store->FindDataset("bob", d.sha256));
  EXPECT_TRUE(*store->GetDataset("ann", "d1"));
  EXPECT_FALSE(*store->GetDataset("bob", "d1"));
  EXPECT_TRUE(*store->GetDataset("", "d1"));
  EXPECT_EQ(store->ListDatasets("bob")->size(), 0u);
  EXPECT_EQ(store->ListDatasets("")->size(), 1u);
  // The same content again for the same principal is refused.
  d.id = "d2";
  EXPECT_FALSE(store->InsertDataset("ann", d).ok());
  EXPECT_EQ(fs::path(store->DatasetFolder(d.sha256)).filename(), d.sha256);
}

TEST_P(StoreContract, DeletingADatasetSaysWhetherItsContentIsShared) {
  auto store = Open();
  Dataset d;
  d.id = "d1";
  d.name = "iris.csv";
  d.format = DatasetFormat::kCsv;
  d.sha256 = std::string(64, 'b');
  d.files = {"iris.csv"};
  d.rows = 150;
  d.columns = 5;
  d.header = {"a", "b"};
  ASSERT_TRUE(store->InsertDataset("ann", d).ok());
  std::optional<Dataset> found = *store->GetDataset("ann", "d1");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->rows, 150);
  EXPECT_EQ(found->columns, 5);
  EXPECT_EQ(found->header, d.header);
  d.id = "d2";
  ASSERT_TRUE(store->InsertDataset("bob", d).ok());  // the same content
  EXPECT_TRUE(absl::IsNotFound(store->DeleteDataset("bob", "d1").status()));
  EXPECT_EQ(*store->DeleteDataset("ann", "d1"), false);  // bob's holds it
  EXPECT_FALSE(*store->GetDataset("", "d1"));
  EXPECT_TRUE(absl::IsNotFound(store->DeleteDataset("ann", "d1").status()));
  EXPECT_EQ(*store->DeleteDataset("", "d2"), true);  // the last one
  EXPECT_EQ(store->ListDatasets("")->size(), 0u);
}

// What only the SQLite store does.
class SqliteStoreTest : public ::testing::Test {
 protected:
  std::string Path() { return (folder_.path() / "sub" / "test.db").string(); }
  std::unique_ptr<SqliteStore> Open() {
    absl::StatusOr<std::unique_ptr<SqliteStore>> s = SqliteStore::Open(Path());
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }
  Folder folder_;
};

TEST_F(SqliteStoreTest, CreatesTheSchemaInWalMode) {
  auto store = Open();
  ASSERT_TRUE(store);
  EXPECT_TRUE(fs::exists(Path()));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(Path().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)),
               "wal");
  sqlite3_finalize(stmt);
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), SqliteStore::kSchemaVersion);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_F(SqliteStoreTest, RefusesANewerSchema) {
  { Open(); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(Path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  absl::StatusOr<std::unique_ptr<SqliteStore>> s = SqliteStore::Open(Path());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr("99"));
}

TEST_F(SqliteStoreTest, JobsEventsAndMetricsSurviveReopening) {
  {
    auto store = Open();
    JobRequest request;
    request.model_text = "model text";
    request.hyperparameters["optimizer"] = std::string("sgdm");
    Job job = NewJob("j1", "ann", 1);
    job.summary = JobSummary{.epochs = 2};
    job.summary->decisions.push_back({"what", "why"});
    job.test_accuracy = 0.9;
    ASSERT_TRUE(store->CreateJob(job, request).ok());
    ASSERT_TRUE(store->Update("j1", nullptr, {Epoch(1, 0.5)}).ok());
  }
  auto store = Open();
  std::optional<StoredJob> stored = *store->GetJob("j1");
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->request.model_text, "model text");
  EXPECT_EQ(
      std::get<std::string>(stored->request.hyperparameters.at("optimizer")),
      "sgdm");
  ASSERT_TRUE(stored->job.summary);
  EXPECT_EQ(stored->job.summary->decisions[0].why, "why");
  EXPECT_EQ(stored->job.test_accuracy, 0.9);
  EXPECT_EQ(stored->job.created, Time(std::chrono::seconds(1)));
  EXPECT_EQ(store->Events("j1", 1, 10)->size(), 2u);
  EXPECT_EQ((*store->Metrics("j1", {"trainLoss"}))[0].points[0].value, 0.5);
}

}  // namespace
}  // namespace webnnm::server
