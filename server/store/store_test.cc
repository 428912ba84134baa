// The store contract (core/store.h), one suite run on every implementation
// (SQLite, in memory, and PostgreSQL on a private server started for the
// test), and what only the SQLite or the PostgreSQL store does (schemas,
// WAL, reopening, notices and content shared by daemons).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/core/memory_store.h"
#include "server/store/postgres_store.h"
#include "server/store/sqlite_store.h"
#include "server/store/testing/postgres_server.h"

namespace webnnm::server {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

// Whether `condition` holds within `timeout`: looked at every few
// milliseconds, and once more when the time is up. For what only the
// passing of time brings about (a lease running out), seen as the store
// sees it.
bool Eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

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

// One PostgreSQL server for the whole binary, started when a test first
// needs it (it takes about a second), stopped at exit.
testing::PostgresServer* Server() {
  static absl::StatusOr<std::unique_ptr<testing::PostgresServer>>* server =
      new absl::StatusOr<std::unique_ptr<testing::PostgresServer>>(
          testing::PostgresServer::Start());
  static const bool stopped_at_exit = [] {
    std::atexit([] {
      if (server->ok()) server->value().reset();
    });
    return true;
  }();
  (void)stopped_at_exit;
  if (!server->ok()) {
    ADD_FAILURE() << "no PostgreSQL server: " << server->status();
    return nullptr;
  }
  return server->value().get();
}

// A new database on the test server, named after the test.
std::string NewDatabase() {
  static int counter = 0;
  testing::PostgresServer* server = Server();
  if (!server) return "";
  absl::StatusOr<std::string> uri =
      server->NewDatabase("t" + std::to_string(++counter));
  EXPECT_TRUE(uri.ok()) << uri.status();
  return uri.ok() ? *uri : "";
}

std::unique_ptr<PostgresStore> OpenPostgres(const std::string& uri,
                                            const fs::path& cache,
                                            int retention = 1) {
  absl::StatusOr<std::unique_ptr<PostgresStore>> s =
      PostgresStore::Open({.uri = uri,
                           .cache_folder = cache.string(),
                           .snapshot_retention = retention});
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

// A folder holding `files` (name, content), for content and uploads.
fs::path MakeFiles(
    const fs::path& folder,
    const std::vector<std::pair<std::string, std::string>>& files) {
  fs::create_directories(folder);
  for (const auto& [name, content] : files) {
    std::ofstream(folder / name, std::ios::binary) << content;
  }
  return folder;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

// The suite's parameter: which implementation.
class StoreContract : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Store> Open(int retention = 1) {
    if (GetParam() == "memory") {
      return std::make_unique<MemoryStore>(folder_.path().string(), retention);
    }
    if (GetParam() == "postgres") {
      if (uri_.empty()) uri_ = NewDatabase();
      if (uri_.empty()) return nullptr;
      return OpenPostgres(uri_, folder_.path() / "cache", retention);
    }
    absl::StatusOr<std::unique_ptr<SqliteStore>> s = SqliteStore::Open(
        (folder_.path() / "sub" / "test.db").string(), retention);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }
  // Stores content `sha256` (a file `name`), as an upload does before it
  // records the dataset.
  void PutContent(Store& store, const std::string& sha256,
                  const std::string& name = "iris.csv") {
    fs::path staged =
        MakeFiles(folder_.path() / ("staged-" + sha256.substr(0, 8)),
                  {{name, "a,b\n1,2\n"}});
    ASSERT_TRUE(store.PutDatasetContent(sha256, staged.string(), {name}).ok());
  }

  Folder folder_;
  std::string uri_;
};

INSTANTIATE_TEST_SUITE_P(Stores, StoreContract,
                         ::testing::Values("sqlite", "memory", "postgres"),
                         [](const auto& info) { return info.param; });

TEST_P(StoreContract, JobsGetNumberedEventsAndMetrics) {
  auto store = Open();
  ASSERT_TRUE(store);
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
  ASSERT_TRUE(store);
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
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->CreateJob(NewJob("a", "ann", 1), {}, 2).ok());
  ASSERT_TRUE(store->CreateJob(NewJob("b", "ann", 2), {}, 2).ok());
  absl::StatusOr<Job> third = store->CreateJob(NewJob("c", "ann", 3), {}, 2);
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(store->CreateJob(NewJob("d", "bob", 4), {}, 2).ok());
  EXPECT_FALSE(*store->GetJob("c"));
}

TEST_P(StoreContract, ListsNewestFirstByPrincipalAndState) {
  auto store = Open();
  ASSERT_TRUE(store);
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
  ASSERT_TRUE(store);
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
  ASSERT_TRUE(store);
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
  ASSERT_TRUE(store);
  Dataset d;
  d.id = "d1";
  d.name = "iris.csv";
  d.format = DatasetFormat::kCsv;
  d.sha256 = std::string(64, 'a');
  d.files = {"iris.csv"};
  d.created = Time(std::chrono::seconds(5));
  PutContent(*store, d.sha256);
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
  ASSERT_TRUE(store);
  Dataset d;
  d.id = "d1";
  d.name = "iris.csv";
  d.format = DatasetFormat::kCsv;
  d.sha256 = std::string(64, 'b');
  d.files = {"iris.csv"};
  d.rows = 150;
  d.columns = 5;
  d.header = {"a", "b"};
  PutContent(*store, d.sha256);
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

TEST_P(StoreContract, ClaimsTakeTheOldestQueuedJobOnceAndFenceItsWrites) {
  auto store = Open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->CreateJob(NewJob("j2", "ann", 2), {}).ok());
  ASSERT_TRUE(store->CreateJob(NewJob("j1", "ann", 1), {}).ok());
  const auto lease = std::chrono::seconds(60);
  absl::StatusOr<std::optional<StoredJob>> a =
      store->ClaimJob("a", lease, [](Job& j) { j.started = Now(); },
                      {StateEvent(JobState::kRunning)});
  ASSERT_TRUE(a.ok() && *a) << a.status();
  EXPECT_EQ((*a)->job.id, "j1");  // the oldest
  EXPECT_EQ((*a)->job.state, JobState::kRunning);
  EXPECT_EQ((*a)->job.node, "a");
  EXPECT_EQ((*a)->job.attempt, 1);
  EXPECT_TRUE((*a)->job.started.has_value());
  EXPECT_EQ((*store->Events("j1", 2, 10))[0].state, JobState::kRunning);
  absl::StatusOr<std::optional<StoredJob>> b =
      store->ClaimJob("b", lease, nullptr, {});
  ASSERT_TRUE(b.ok() && *b);
  EXPECT_EQ((*b)->job.id, "j2");
  EXPECT_FALSE(*store->ClaimJob("c", lease, nullptr, {}));  // none left

  // Writes fenced by the claim go through; by another claim they do not.
  EXPECT_TRUE(store
                  ->Update(
                      "j1", [](Job& j) { j.epoch = 1; }, {Epoch(1, 0.5)},
                      nullptr, Fenced("j1", {"a", 1}))
                  .ok());
  for (Fence wrong : {Fence{"b", 1}, Fence{"a", 2}}) {
    absl::Status lost = store
                            ->Update(
                                "j1", [](Job& j) { j.epoch = 9; },
                                {Epoch(9, 1)}, nullptr, Fenced("j1", wrong))
                            .status();
    EXPECT_TRUE(IsLeaseLost(lost)) << lost;
  }
  EXPECT_EQ((*store->GetJob("j1"))->job.epoch, 1);
  EXPECT_EQ((*store->GetJob("j1"))->job.last_seq, 3);  // nothing of j1's 9
  EXPECT_TRUE(store->RenewLease("j1", {"a", 1}, lease).ok());
  EXPECT_TRUE(IsLeaseLost(store->RenewLease("j1", {"b", 1}, lease)));

  // Live leases have not expired; a node's own jobs are listed for it.
  EXPECT_TRUE(store->ExpiredJobs("")->empty());
  ASSERT_EQ(store->ExpiredJobs("a")->size(), 1u);
  EXPECT_EQ((*store->ExpiredJobs("a"))[0].job.id, "j1");
  // A fence that needs the lease expired fails while it holds...
  Fence dead{"a", 1, /*expired=*/true};
  EXPECT_TRUE(IsLeaseLost(
      store->Update("j1", nullptr, {}, nullptr, Fenced("j1", dead)).status()));
  // ... and holds once it is released.
  ASSERT_TRUE(store->ReleaseLease("j1", {"a", 1}).ok());
  ASSERT_EQ(store->ExpiredJobs("")->size(), 1u);
  ASSERT_TRUE(store
                  ->Update(
                      "j1", [](Job& j) { j.state = JobState::kQueued; },
                      {StateEvent(JobState::kQueued)}, nullptr,
                      Fenced("j1", dead))
                  .ok());
  // Requeued once: a second requeue of the same dead claim is refused.
  EXPECT_TRUE(IsLeaseLost(
      store->Update("j1", nullptr, {}, nullptr, Fenced("j1", dead)).status()));
  absl::StatusOr<std::optional<StoredJob>> again =
      store->ClaimJob("b", std::chrono::milliseconds(1), nullptr, {});
  ASSERT_TRUE(again.ok() && *again);
  EXPECT_EQ((*again)->job.attempt, 2);  // the fencing token moved on
  EXPECT_TRUE(IsLeaseLost(
      store->Update("j1", nullptr, {}, nullptr, Fenced("j1", {"a", 1}))
          .status()));
  // A lease that is not renewed runs out.
  EXPECT_TRUE(Eventually([&] {
    absl::StatusOr<std::vector<StoredJob>> now = store->ExpiredJobs("");
    return now.ok() && !now->empty();
  }));
  std::vector<StoredJob> expired = *store->ExpiredJobs("");
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].job.id, "j1");
  // A cancelled job's claim is lost.
  ASSERT_TRUE(
      store->Update("j2", [](Job& j) { j.state = JobState::kCancelled; }, {})
          .ok());
  EXPECT_TRUE(IsLeaseLost(store->RenewLease("j2", {"b", 1}, lease)));
}

TEST_P(StoreContract, ClaimsTakeOnlyJobsWithinTheReplicasAvailable) {
  auto store = Open();
  ASSERT_TRUE(store);
  for (auto [id, replicas] :
       {std::pair{"three", 3}, std::pair{"one", 1}, std::pair{"two", 2}}) {
    JobRequest request;
    request.hyperparameters["replicas"] = int64_t{replicas};
    ASSERT_TRUE(
        store->CreateJob(NewJob(id, "ann", replicas == 3 ? 1 : 2), request)
            .ok());
  }
  EXPECT_THAT(*store->QueuedNeedingMore(2), ElementsAre("three"));
  EXPECT_THAT(*store->QueuedNeedingMore(1), ElementsAre("three", "two"));
  if (GetParam() == "sqlite") return;  // one daemon: every job runs alone
  const auto lease = std::chrono::seconds(60);
  // "three" is the oldest, but two replicas are all there are.
  EXPECT_EQ((**store->ClaimJob("a", lease, nullptr, {}, 2)).job.id, "one");
  EXPECT_EQ((**store->ClaimJob("a", lease, nullptr, {}, 2)).job.id, "two");
  EXPECT_FALSE(*store->ClaimJob("a", lease, nullptr, {}, 2));
  EXPECT_EQ((**store->ClaimJob("a", lease, nullptr, {}, 3)).job.id, "three");
}

TEST_P(StoreContract, ReplicaSlotsGoToOtherDaemonsOnceEach) {
  auto store = Open();
  ASSERT_TRUE(store);
  if (GetParam() == "sqlite") {
    EXPECT_FALSE(*store->ClaimReplicaSlot("b", std::chrono::seconds(60)));
    return;  // no data-parallel jobs without a shared store
  }
  if (GetParam() == "memory") {
    // The memory store opens slots only when it says it is shared.
    store = std::make_unique<MemoryStore>(folder_.path().string(), 1, true);
  }
  JobRequest request;
  request.hyperparameters["replicas"] = int64_t{3};
  ASSERT_TRUE(store->CreateJob(NewJob("j", "ann", 1), request).ok());
  const auto lease = std::chrono::seconds(60);
  std::optional<StoredJob> claimed =
      *store->ClaimJob("a", lease, nullptr, {}, 3);
  ASSERT_TRUE(claimed);
  const Fence fence{"a", claimed->job.attempt};
  EXPECT_TRUE(IsLeaseLost(store->OpenReplicaSlots("j", {"x", 1}, 3)));
  ASSERT_TRUE(store->OpenReplicaSlots("j", fence, 3).ok());
  // Never the claimer's own job, never two slots of one job.
  EXPECT_FALSE(*store->ClaimReplicaSlot("a", lease));
  std::optional<ReplicaSlot> b = *store->ClaimReplicaSlot("b", lease);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->job_id, "j");
  EXPECT_EQ(b->attempt, fence.attempt);
  EXPECT_EQ(b->size, 3);
  EXPECT_FALSE(*store->ClaimReplicaSlot("b", lease));
  std::optional<ReplicaSlot> c = *store->ClaimReplicaSlot("c", lease);
  ASSERT_TRUE(c);
  EXPECT_NE(c->rank, b->rank);
  EXPECT_FALSE(*store->ClaimReplicaSlot("d", lease));  // all taken
  EXPECT_TRUE(store->RenewReplicaSlot(*b, "b", lease).ok());
  EXPECT_TRUE(IsLeaseLost(store->RenewReplicaSlot(*b, "c", lease)));
  // The claim ends (requeued): its slots are over.
  ASSERT_TRUE(store
                  ->Update(
                      "j", [](Job& j) { j.state = JobState::kQueued; }, {},
                      nullptr, Fenced("j", fence))
                  .ok());
  EXPECT_TRUE(IsLeaseLost(store->RenewReplicaSlot(*b, "b", lease)));
}

TEST_P(StoreContract, AYoungerClaimSeesAnOlderJobThatNeedsReplicas) {
  auto store = Open();
  ASSERT_TRUE(store);
  if (GetParam() == "sqlite") {
    EXPECT_FALSE(*store->OlderJobNeedingReplicas("b", "j"));
    return;  // no data-parallel jobs without a shared store
  }
  if (GetParam() == "memory") {
    store = std::make_unique<MemoryStore>(folder_.path().string(), 1, true);
  }
  JobRequest request;
  request.hyperparameters["replicas"] = int64_t{2};
  // NewJob's third argument: the creation time, in seconds.
  ASSERT_TRUE(store->CreateJob(NewJob("old", "ann", 1), request).ok());
  ASSERT_TRUE(store->CreateJob(NewJob("young", "ann", 2), request).ok());
  const auto lease = std::chrono::seconds(60);
  std::optional<StoredJob> old = *store->ClaimJob("a", lease, nullptr, {}, 2);
  std::optional<StoredJob> young = *store->ClaimJob("b", lease, nullptr, {}, 2);
  ASSERT_TRUE(old && young);
  ASSERT_EQ(old->job.id, "old");
  ASSERT_TRUE(
      store->OpenReplicaSlots("young", {"b", young->job.attempt}, 2).ok());
  // The old job's slots are not open yet: nothing to give way to.
  EXPECT_FALSE(*store->OlderJobNeedingReplicas("b", "young"));
  ASSERT_TRUE(store->OpenReplicaSlots("old", {"a", old->job.attempt}, 2).ok());
  EXPECT_EQ(*store->OlderJobNeedingReplicas("b", "young"), "old");
  // Never a younger job, nor one's own claim.
  EXPECT_FALSE(*store->OlderJobNeedingReplicas("a", "old"));
  EXPECT_FALSE(*store->OlderJobNeedingReplicas("a", "young"));
  // Once its slot is taken, the old job needs no one.
  std::optional<ReplicaSlot> c = *store->ClaimReplicaSlot("c", lease);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->job_id, "old");
  EXPECT_FALSE(*store->OlderJobNeedingReplicas("b", "young"));
}

TEST_P(StoreContract, DaemonsClaimingAtOnceNeverTakeAJobTwice) {
  auto store = Open();
  ASSERT_TRUE(store);
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(
        store->CreateJob(NewJob("j" + std::to_string(i), "ann", i), {}).ok());
  }
  // Four claimers, each on a store of its own where the store is shared.
  std::vector<std::unique_ptr<Store>> others;
  for (int i = 0; i < 4; ++i) {
    if (GetParam() == "postgres") others.push_back(Open());
  }
  absl::Mutex mutex;
  std::vector<std::string> claimed;
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    Store& s = others.empty() ? *store : *others[i];
    threads.emplace_back([&, i] {
      while (true) {
        absl::StatusOr<std::optional<StoredJob>> got =
            s.ClaimJob("n" + std::to_string(i), std::chrono::seconds(60),
                       nullptr, {StateEvent(JobState::kRunning)});
        ASSERT_TRUE(got.ok()) << got.status();
        if (!*got) return;
        absl::MutexLock lock(&mutex);
        claimed.push_back((*got)->job.id);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(claimed.size(), 40u);
  EXPECT_EQ(std::set<std::string>(claimed.begin(), claimed.end()).size(), 40u);
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ((*store->GetJob("j" + std::to_string(i)))->job.attempt, 1);
  }
}

TEST_P(StoreContract, UploadsAreCappedAppendedInOrderAndExpire) {
  auto store = Open();
  ASSERT_TRUE(store);
  UploadCaps caps{.max_open = 2,
                  .max_open_bytes = 100,
                  .idle_timeout = std::chrono::seconds(3600)};
  auto upload = [](const std::string& id, const std::string& who,
                   int64_t total) {
    UploadRecord u;
    u.id = id;
    u.principal = who;
    u.dataset.name = "x.csv";
    u.dataset.format = DatasetFormat::kCsv;
    u.dataset.sha256 = std::string(64, 'c');
    u.total_bytes = total;
    return u;
  };
  ASSERT_TRUE(store->BeginUpload(upload("u1", "ann", 10), caps).ok());
  ASSERT_TRUE(store->BeginUpload(upload("u2", "ann", 10), caps).ok());
  absl::Status third = store->BeginUpload(upload("u3", "ann", 10), caps);
  EXPECT_EQ(third.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(third.message()),
              ::testing::HasSubstr("max_open_uploads"));
  absl::Status big = store->BeginUpload(upload("u4", "bob", 101), caps);
  EXPECT_THAT(std::string(big.message()),
              ::testing::HasSubstr("max_open_upload_bytes"));
  ASSERT_TRUE(store->BeginUpload(upload("u5", "bob", 100), caps).ok());

  EXPECT_TRUE(store->AppendUpload("u1", "x.csv", 0, "hello").ok());
  EXPECT_EQ(store->AppendUpload("u1", "x.csv", 0, "hello").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(store->AppendUpload("u1", "x.csv", 5, "world").ok());
  EXPECT_EQ(store->AppendUpload("u1", "x.csv", 10, "!").code(),
            absl::StatusCode::kInvalidArgument);  // past the announced 10
  std::optional<UploadRecord> got =
      *store->GetUpload("ann", "u1", UploadRecord::kDataset, caps);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->received, 10);
  EXPECT_EQ(got->files.at("x.csv"), 10);
  EXPECT_EQ(got->dataset.sha256, std::string(64, 'c'));
  EXPECT_FALSE(*store->GetUpload("bob", "u1", UploadRecord::kDataset, caps));
  EXPECT_FALSE(*store->GetUpload("ann", "u1", UploadRecord::kSnapshot, caps));
  absl::StatusOr<std::string> files = store->UploadFiles("u1");
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(ReadAll(fs::path(*files) / "x.csv"), "helloworld");

  EXPECT_EQ(*store->OpenUploads(caps), 3);
  ASSERT_TRUE(store->FinishUpload("u1", "d9").ok());
  got = *store->GetUpload("ann", "u1", UploadRecord::kDataset, caps);
  ASSERT_TRUE(got);  // known, to answer a retried finish
  EXPECT_TRUE(got->finished);
  EXPECT_EQ(got->result, "d9");
  EXPECT_EQ(*store->OpenUploads(caps), 2);
  ASSERT_TRUE(store->DropUpload("u2").ok());
  EXPECT_FALSE(*store->GetUpload("ann", "u2", UploadRecord::kDataset, caps));
  // A finished upload no longer counts against the caps; an upload's lease
  // is the idle timeout from its last call: idle past it, it is gone.
  UploadCaps brief = caps;
  brief.idle_timeout = std::chrono::seconds(1);
  EXPECT_TRUE(store->BeginUpload(upload("u6", "ann", 10), brief).ok());
  EXPECT_EQ(*store->OpenUploads(caps), 2);
  // Counting the open uploads does not touch u6 (a GetUpload would renew
  // its lease): it is gone once the count drops.
  EXPECT_TRUE(Eventually([&] {
    absl::StatusOr<int> open = store->OpenUploads(caps);
    return open.ok() && *open == 1;
  }));
  EXPECT_FALSE(*store->GetUpload("ann", "u6", UploadRecord::kDataset, brief));
  EXPECT_EQ(*store->OpenUploads(caps), 1);  // bob's u5
}

TEST_P(StoreContract, DatasetContentIsStoredReadAndRemoved) {
  auto store = Open();
  ASSERT_TRUE(store);
  const std::string sha = std::string(64, 'd');
  // More than one 1 MiB chunk, and an empty file.
  std::string big(2621440 + 17, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7);
  fs::path staged =
      MakeFiles(folder_.path() / "staged", {{"big.bin", big}, {"empty", ""}});
  EXPECT_TRUE(absl::IsNotFound(store->DatasetContent(sha).status()));
  ASSERT_TRUE(
      store->PutDatasetContent(sha, staged.string(), {"big.bin", "empty"})
          .ok());
  absl::StatusOr<std::string> folder = store->DatasetContent(sha);
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_EQ(ReadAll(fs::path(*folder) / "big.bin"), big);
  EXPECT_TRUE(fs::exists(fs::path(*folder) / "empty"));
  Dataset d;
  d.id = "d1";
  d.sha256 = sha;
  d.files = {"big.bin", "empty"};
  ASSERT_TRUE(store->InsertDataset("ann", d).ok());
  EXPECT_EQ(*store->DeleteDataset("ann", "d1"), true);
  ASSERT_TRUE(store->RemoveDatasetContent(sha).ok());
  EXPECT_TRUE(absl::IsNotFound(store->DatasetContent(sha).status()));
}

TEST_P(StoreContract, NodesAreListedWithTheJobsTheyRun) {
  auto store = Open();
  ASSERT_TRUE(store);
  NodeRecord a{.name = "a",
               .address = "127.0.0.1:1",
               .version = "v",
               .workers = 2,
               .threads = 1};
  NodeRecord b{.name = "b",
               .address = "127.0.0.1:2",
               .version = "v",
               .workers = 1,
               .threads = 1,
               .max_replicas = 4};
  ASSERT_TRUE(store->Heartbeat(a).ok());
  ASSERT_TRUE(store->Heartbeat(b).ok());
  ASSERT_TRUE(store->CreateJob(NewJob("j", "ann", 1), {}).ok());
  ASSERT_TRUE(*store->ClaimJob("a", std::chrono::seconds(60), nullptr, {}));
  std::vector<NodeRecord> nodes = *store->ListNodes(std::chrono::seconds(10));
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "a");
  EXPECT_EQ(nodes[0].workers, 2);
  EXPECT_EQ(nodes[0].address, "127.0.0.1:1");
  EXPECT_THAT(nodes[0].running, ElementsAre("j"));
  EXPECT_EQ(nodes[0].max_replicas, 1);
  EXPECT_EQ(nodes[1].max_replicas, 4);
  EXPECT_TRUE(nodes[1].running.empty());
  EXPECT_TRUE(nodes[1].seen.has_value());
  ASSERT_TRUE(store->RemoveNode("b").ok());
  EXPECT_EQ(store->ListNodes(std::chrono::seconds(10))->size(), 1u);
  // Not seen within the window: not listed.
  EXPECT_TRUE(Eventually([&] {
    absl::StatusOr<std::vector<NodeRecord>> recent =
        store->ListNodes(std::chrono::milliseconds(5));
    return recent.ok() && recent->empty();
  }));
  EXPECT_TRUE(store->ListNodes(std::chrono::milliseconds(5))->empty());
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
  ASSERT_TRUE(store);
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

namespace webnnm::server {
namespace {

// What only the PostgreSQL store does: several daemons on one database.
class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = NewDatabase();
    ASSERT_FALSE(uri_.empty());
  }
  std::unique_ptr<PostgresStore> Open(const std::string& cache) {
    return OpenPostgres(uri_, folder_.path() / cache);
  }
  Folder folder_;
  std::string uri_;
};

TEST_F(PostgresStoreTest, NoticesReachTheOtherDaemons) {
  auto a = Open("a"), b = Open("b");
  ASSERT_TRUE(a && b);
  absl::Mutex mutex;
  absl::CondVar told;
  std::vector<StoreNotice> heard;
  b->Listen([&](const StoreNotice& n) {
    absl::MutexLock lock(&mutex);
    heard.push_back(n);
    told.SignalAll();
  });
  // The first notice of `kind` about job `id` heard (within `timeout`).
  auto wait_for = [&](StoreNotice::Kind kind, const std::string& id,
                      absl::Duration timeout = absl::Seconds(5))
      -> std::optional<StoreNotice> {
    const absl::Time deadline = absl::Now() + timeout;
    absl::MutexLock lock(&mutex);
    bool timed_out = false;
    while (true) {
      for (const StoreNotice& n : heard) {
        if (n.kind == kind && n.job_id == id) return n;
      }
      if (timed_out) return std::nullopt;
      timed_out = told.WaitWithDeadline(&mutex, deadline);
    }
  };
  // The listener listens a moment after Listen returns: once it hears a
  // probe (sent again until it does), it hears what follows.
  std::optional<StoreNotice> probe;
  for (int i = 0; i < 100 && !probe; ++i) {
    a->PublishProgress("probe", {.epoch = 1});
    probe = wait_for(StoreNotice::Kind::kProgress, "probe",
                     absl::Milliseconds(100));
  }
  ASSERT_TRUE(probe) << "b's listener never listened";
  ASSERT_TRUE(a->CreateJob(NewJob("j", "ann", 1), {}).ok());
  std::optional<StoreNotice> job = wait_for(StoreNotice::Kind::kJob, "j");
  ASSERT_TRUE(job);
  EXPECT_EQ(job->job_id, "j");
  a->PublishProgress("j", {.epoch = 2,
                           .epochs = 5,
                           .step = 7,
                           .steps = 9,
                           .rows = 448,
                           .seconds = 1.5});
  std::optional<StoreNotice> progress =
      wait_for(StoreNotice::Kind::kProgress, "j");
  ASSERT_TRUE(progress);
  EXPECT_EQ(progress->progress.epoch, 2);
  EXPECT_EQ(progress->progress.steps, 9);
  EXPECT_EQ(progress->progress.rows, 448);
  EXPECT_EQ(progress->progress.seconds, 1.5);
  ASSERT_TRUE(a->DeleteJob("j").ok());
  std::optional<StoreNotice> deleted =
      wait_for(StoreNotice::Kind::kDeleted, "j");
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->job_id, "j");
}

TEST_F(PostgresStoreTest,
       AnotherDaemonReadsContentAndSnapshotsFromTheDatabase) {
  auto a = Open("a"), b = Open("b");
  ASSERT_TRUE(a && b);
  const std::string sha = std::string(64, 'e');
  fs::path staged = MakeFiles(folder_.path() / "staged", {{"x.csv", "1,2\n"}});
  ASSERT_TRUE(a->PutDatasetContent(sha, staged.string(), {"x.csv"}).ok());
  absl::StatusOr<std::string> there = b->DatasetContent(sha);
  ASSERT_TRUE(there.ok()) << there.status();
  EXPECT_NE(*there, *a->DatasetContent(sha));  // b's own copy
  EXPECT_EQ(ReadAll(fs::path(*there) / "x.csv"), "1,2\n");
  ASSERT_TRUE(a->CreateJob(NewJob("j", "ann", 1), {}).ok());
  SnapshotBlob blob{"checkpoint", 1, std::string("\0\1\2snap", 7)};
  ASSERT_TRUE(a->Update("j", nullptr, {Epoch(1, 0.5)}, &blob).ok());
  EXPECT_EQ((*b->LatestSnapshot("j"))->bytes, blob.bytes);
  // An upload begun on one daemon continues and ends on another.
  UploadRecord u;
  u.id = "u";
  u.principal = "ann";
  u.total_bytes = 6;
  UploadCaps caps;
  ASSERT_TRUE(a->BeginUpload(u, caps).ok());
  ASSERT_TRUE(a->AppendUpload("u", "f", 0, "abc").ok());
  ASSERT_TRUE(b->AppendUpload("u", "f", 3, "def").ok());
  EXPECT_EQ(ReadAll(fs::path(*b->UploadFiles("u")) / "f"), "abcdef");
  // The caps count every daemon's uploads.
  caps.max_open = 1;
  u.id = "v";
  EXPECT_EQ(b->BeginUpload(u, caps).code(),
            absl::StatusCode::kResourceExhausted);
}

TEST_F(PostgresStoreTest, RefusesANewerSchema) {
  {
    auto a = Open("a");
    ASSERT_TRUE(a);
  }
  {
    absl::StatusOr<std::unique_ptr<pg::Connection>> c =
        pg::Connection::Open(uri_);
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE((*c)->Script("UPDATE webnnm_schema SET version = 99").ok());
  }
  absl::StatusOr<std::unique_ptr<PostgresStore>> s = PostgresStore::Open(
      {.uri = uri_, .cache_folder = (folder_.path() / "c").string()});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr("99"));
  // A server that does not answer is said as such.
  absl::StatusOr<std::unique_ptr<PostgresStore>> none =
      PostgresStore::Open({.uri = "postgresql://webnnm@127.0.0.1:1/x",
                           .cache_folder = (folder_.path() / "d").string()});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(none.status().message()),
              ::testing::HasSubstr("cannot connect to PostgreSQL"));
}

}  // namespace
}  // namespace webnnm::server
