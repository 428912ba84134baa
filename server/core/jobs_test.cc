// The job manager on the in-memory store: a job's life and its events,
// cancelling queued and running jobs, resuming, the restart budget, jobs
// waiting for a worker, and a stop (SIGTERM) that checkpoints and resumes
// to the same end as an uninterrupted run.
#include "server/core/jobs.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/base/strings.h"
#include "engine/check.h"
#include "engine/train/checkpoint.h"
#include "engine/train/collective.h"
#include "server/core/memory_store.h"

namespace webnnm::server {
namespace {

namespace fs = std::filesystem;

// Whether `condition` holds within `timeout`: looked at every few
// milliseconds (the stores here tell no one of a change), and once more
// when the time is up.
bool Eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds timeout = std::chrono::minutes(1)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(Labels, GlobsMatchAsShellsDo) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("b*", "baseline"));
  EXPECT_TRUE(GlobMatch("*line", "baseline"));
  EXPECT_TRUE(GlobMatch("b?se*e", "baseline"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(GlobMatch("b*", "abc"));
  EXPECT_FALSE(GlobMatch("?", ""));
  EXPECT_FALSE(GlobMatch("base", "baseline"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXbYbZ"));
  // A '*' in the name is matched like any character.
  EXPECT_TRUE(GlobMatch("a*", "a*b"));
  EXPECT_TRUE(GlobMatch("*x", "*ax"));
  EXPECT_TRUE(GlobMatch("exp*", "exp*2"));
}

TEST(Labels, LimitsAreNamed) {
  EXPECT_TRUE(
      CheckLabels("run", {{"team", "vision"}}, "a note\non two lines").ok());
  EXPECT_THAT(CheckLabels("run", {{"bad key", "v"}}, "").message(),
              testing::HasSubstr("'bad key'"));
  EXPECT_THAT(CheckLabels("run", {{"k", std::string(257, 'v')}}, "").message(),
              testing::HasSubstr("256"));
  EXPECT_THAT(CheckLabels("run\n", {}, "").message(),
              testing::HasSubstr("control"));
  EXPECT_THAT(CheckLabels("run", {}, std::string(5000, 'n')).message(),
              testing::HasSubstr("4096"));
  std::map<std::string, std::string> many;
  for (int i = 0; i < 33; ++i) many[StrCat("k", i)] = "v";
  EXPECT_THAT(CheckLabels("run", many, "").message(),
              testing::HasSubstr("at most 32 tags"));
}
using ::testing::HasSubstr;

constexpr char kIris[] = WEBNNM_SOURCE_DIR "/configs/datasets/iris.csv";
constexpr char kModel[] = WEBNNM_SOURCE_DIR "/configs/models/iris.wnm";

std::string ReadText(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class JobsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("webnnm-jobs-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    store_ = std::make_unique<MemoryStore>(folder_.string());
    // The iris dataset, as an upload leaves it.
    Dataset d{.id = "d1",
              .name = "iris.csv",
              .format = DatasetFormat::kCsv,
              .sha256 = std::string(64, 'a'),
              .files = {"iris.csv"}};
    fs::create_directories(store_->DatasetFolder(d.sha256));
    fs::copy_file(kIris,
                  fs::path(store_->DatasetFolder(d.sha256)) / "iris.csv");
    ASSERT_TRUE(store_->InsertDataset("ann", d).ok());
  }
  void TearDown() override {
    jobs_.reset();
    fs::remove_all(folder_);
  }

  void StartManager(int workers = 1) {
    jobs_ = std::make_unique<JobManager>(
        *store_, JobOptions{.workers = workers, .threads = 1});
    ASSERT_TRUE(jobs_->Start().ok());
  }
  // The store as daemons of a cluster share it (leases, requeues).
  void ShareTheStore() {
    store_ = std::make_unique<MemoryStore>(folder_.string(), 1,
                                           /*shared=*/true);
    Dataset d{.id = "d1",
              .name = "iris.csv",
              .format = DatasetFormat::kCsv,
              .sha256 = std::string(64, 'a'),
              .files = {"iris.csv"}};
    ASSERT_TRUE(store_->InsertDataset("ann", d).ok());
  }
  std::unique_ptr<JobManager> Daemon(const std::string& node,
                                     std::chrono::milliseconds lease,
                                     bool replicas = false) {
    JobOptions options{
        .workers = 1, .threads = 1, .node = node, .lease = lease};
    if (replicas) {
      // The replicas of one claim meet in one hub (threads of this test),
      // once all have come — as Gloo's rendezvous: each waits for the
      // others (at most a minute), asking `give_up` as it waits.
      options.max_replicas = 4;
      options.collectives = [this](const ReplicaSlot& p,
                                   const std::function<std::string()>& give_up)
          -> absl::StatusOr<std::unique_ptr<train::Collective>> {
        const std::pair<std::string, int> claim{p.job_id, p.attempt};
        std::shared_ptr<train::ThreadCollective::Hub> hub;
        {
          absl::MutexLock lock(&hubs_mutex_);
          auto& made = hubs_[claim];
          if (!made) made = train::ThreadCollective::MakeHub(p.size);
          hub = made;
          ++arrived_[claim];
          hubs_changed_.SignalAll();
        }
        const absl::Time deadline = absl::Now() + absl::Minutes(1);
        while (true) {
          {
            // Woken by every arrival; at least every 10 ms to ask give_up
            // (the store's answer: no notice of it comes here).
            absl::MutexLock lock(&hubs_mutex_);
            if (arrived_[claim] != p.size) {
              hubs_changed_.WaitWithTimeout(&hubs_mutex_,
                                            absl::Milliseconds(10));
            }
            if (arrived_[claim] == p.size) {
              return std::make_unique<train::ThreadCollective>(hub, p.rank);
            }
          }
          if (std::string why = give_up(); !why.empty()) {
            return absl::UnavailableError(why);
          }
          if (absl::Now() >= deadline) {
            return absl::UnavailableError("the rendezvous timed out");
          }
        }
      };
    }
    auto jobs = std::make_unique<JobManager>(*store_, std::move(options));
    EXPECT_TRUE(jobs->Start().ok());
    return jobs;
  }
  absl::Mutex hubs_mutex_;
  absl::CondVar hubs_changed_;  // a replica arrived
  std::map<std::pair<std::string, int>,
           std::shared_ptr<train::ThreadCollective::Hub>>
      hubs_ ABSL_GUARDED_BY(hubs_mutex_);
  std::map<std::pair<std::string, int>, int> arrived_
      ABSL_GUARDED_BY(hubs_mutex_);

  // A queued training job on iris (sgdm, so that it trains in few epochs).
  std::string Submit(const std::string& id, int64_t epochs,
                     int64_t patience = 500) {
    JobRequest request{.kind = JobKind::kTrain,
                       .model_text = ReadText(kModel),
                       .file_name = "iris.wnm",
                       .data = {.dataset_id = "d1", .split = "60,20,20"}};
    request.hyperparameters = {{"epochs", epochs},
                               {"patience", patience},
                               {"optimizer", std::string("sgdm")},
                               {"lr", 0.05},
                               {"seeds", int64_t{5}},
                               {"batchSize", int64_t{16}}};
    Job job{.id = id, .principal = "ann", .kind = JobKind::kTrain};
    absl::StatusOr<Job> created = store_->CreateJob(job, request);
    EXPECT_TRUE(created.ok()) << created.status();
    if (jobs_) jobs_->Queued();
    return id;
  }

  Job Get(const std::string& id) { return (*store_->GetJob(id))->job; }

  // Waits (at most a minute) until the job satisfies `done`.
  bool WaitFor(const std::string& id,
               const std::function<bool(const Job&)>& done) {
    return Eventually([&] { return done(Get(id)); });
  }
  bool WaitForState(const std::string& id, JobState state) {
    return WaitFor(id, [&](const Job& j) { return j.state == state; });
  }

  std::vector<JobEvent> Events(const std::string& id) {
    return *store_->Events(id, 1, 100000);
  }

  train::ModelSnapshot Final(const std::string& id) {
    std::optional<SnapshotBlob> blob = *store_->LatestSnapshot(id);
    EXPECT_TRUE(blob && blob->kind == "final");
    return *train::DecodeModelSnapshot(blob->bytes);
  }

  fs::path folder_;
  std::unique_ptr<MemoryStore> store_;
  std::unique_ptr<JobManager> jobs_;
};

TEST_F(JobsTest, AJobRunsToTheEndAndReportsEverything) {
  StartManager();
  const std::string id = Submit("j1", 20);
  ASSERT_TRUE(WaitForState(id, JobState::kSucceeded)) << Get(id).error;
  Job job = Get(id);
  EXPECT_EQ(job.epoch, 20);
  EXPECT_EQ(job.epochs, 20);
  EXPECT_EQ(job.attempt, 1);
  EXPECT_TRUE(job.started && job.finished);
  ASSERT_TRUE(job.summary);
  EXPECT_EQ(job.summary->test.samples, 30);
  EXPECT_TRUE(job.test_accuracy.has_value());
  EXPECT_EQ(job.model_name, "test-model");
  std::vector<JobEvent> events = Events(id);
  int epochs = 0, decisions = 0, snapshots = 0, tests = 0;
  for (const JobEvent& e : events) {
    epochs += e.type == EventType::kEpoch;
    decisions += e.type == EventType::kDecision;
    snapshots += e.type == EventType::kSnapshot;
    tests += e.type == EventType::kTest;
  }
  EXPECT_EQ(epochs, 20);
  EXPECT_GE(decisions, 3);   // loss, scaling, clipping, ...
  EXPECT_EQ(snapshots, 21);  // a checkpoint a epoch and the final
  EXPECT_EQ(tests, 1);
  EXPECT_EQ(events.front().state, JobState::kQueued);
  EXPECT_EQ(events[1].state, JobState::kRunning);
  EXPECT_EQ(events.back().state, JobState::kSucceeded);
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].seq, i + 1);
  EXPECT_EQ((*store_->Metrics(id, {"trainLoss"}))[0].points.size(), 20u);
  EXPECT_EQ(Final(id).state.epoch, 20);
}

TEST_F(JobsTest, AQueuedJobIsCancelledAtOnce) {
  const std::string id = Submit("j1", 20);  // no worker yet
  absl::StatusOr<Job> cancelled = [&] {
    JobManager jobs(*store_, {});
    return jobs.Cancel(id);
  }();
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_EQ(cancelled->state, JobState::kCancelled);
  EXPECT_EQ(Events(id).back().message, "cancelled while queued");
  StartManager();
  EXPECT_EQ(jobs_->Cancel(id).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(jobs_->Cancel("nobody").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(JobsTest, ARunningJobStopsAtItsEpochBoundaryAndResumes) {
  StartManager();
  const std::string id = Submit("j1", 100000, /*patience=*/100000);
  ASSERT_TRUE(WaitFor(id, [](const Job& j) { return j.epoch >= 3; }));
  EXPECT_TRUE(jobs_->IsRunning(id));
  ASSERT_TRUE(jobs_->Cancel(id).ok());
  ASSERT_TRUE(WaitForState(id, JobState::kCancelled));
  Job cancelled = Get(id);
  EXPECT_THAT(Events(id).back().message,
              HasSubstr(StrCat("cancelled after epoch ", cancelled.epoch)));
  EXPECT_TRUE(cancelled.has_snapshot);
  // Only cancelled or failed jobs resume.
  const std::string done = Submit("j2", 3);
  ASSERT_TRUE(WaitForState(done, JobState::kSucceeded));
  EXPECT_EQ(jobs_->Resume(done).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // The cancelled one continues from its checkpoint.
  absl::StatusOr<Job> resumed = jobs_->Resume(id);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  // The worker may already have taken it: the QUEUED event says why.
  std::vector<JobEvent> events = Events(id);
  auto queued =
      std::find_if(events.rbegin(), events.rend(), [](const JobEvent& e) {
        return e.type == EventType::kState && e.state == JobState::kQueued;
      });
  ASSERT_NE(queued, events.rend());
  EXPECT_THAT(queued->message,
              HasSubstr(StrCat("continues from its checkpoint after epoch ",
                               cancelled.epoch)));
  ASSERT_TRUE(WaitFor(id, [&](const Job& j) {
    return j.state == JobState::kRunning && j.epoch > cancelled.epoch;
  }));
  ASSERT_TRUE(jobs_->Cancel(id).ok());
  ASSERT_TRUE(WaitForState(id, JobState::kCancelled));
}

TEST_F(JobsTest, JobsBeyondTheWorkersWaitQueued) {
  StartManager(/*workers=*/1);
  const std::string first = Submit("j1", 100000, /*patience=*/100000);
  const std::string second = Submit("j2", 5);
  ASSERT_TRUE(WaitFor(first, [](const Job& j) { return j.epoch >= 2; }));
  EXPECT_EQ(Get(second).state, JobState::kQueued);
  ASSERT_TRUE(jobs_->Cancel(first).ok());
  ASSERT_TRUE(WaitForState(second, JobState::kSucceeded));
}

TEST_F(JobsTest, InterruptedJobsRestartWithinTheBudget) {
  // Left RUNNING by a daemon that died: the first crash is within a budget
  // of 1, the second one not; a clean stop costs nothing.
  auto leave_running = [&](const std::string& id, int crashes, bool clean) {
    Submit(id, 3);
    ASSERT_TRUE(store_
                    ->Update(id,
                             [&](Job& j) {
                               j.state = JobState::kRunning;
                               j.crash_restarts = crashes;
                               j.stopped_with_daemon = clean;
                               j.attempt = 1;
                             },
                             {})
                    .ok());
  };
  leave_running("crashed", 0, false);
  leave_running("again", 1, false);
  leave_running("stopped", 1, true);
  jobs_ =
      std::make_unique<JobManager>(*store_, JobOptions{.restart_budget = 1});
  ASSERT_TRUE(jobs_->Start().ok());
  ASSERT_TRUE(WaitForState("again", JobState::kFailed));
  EXPECT_THAT(Get("again").error, HasSubstr("restart budget is spent"));
  EXPECT_EQ(Get("again").crash_restarts, 2);
  ASSERT_TRUE(WaitForState("crashed", JobState::kSucceeded));
  EXPECT_EQ(Get("crashed").crash_restarts, 1);
  EXPECT_EQ(Get("crashed").attempt, 2);
  ASSERT_TRUE(WaitForState("stopped", JobState::kSucceeded));
  EXPECT_EQ(Get("stopped").crash_restarts, 1);
  EXPECT_THAT(Events("stopped")[1].message,
              HasSubstr("interrupted by a daemon stop"));
}

TEST_F(JobsTest, AStopCheckpointsAndTheNextStartEndsAsAnUninterruptedRun) {
  StartManager();
  const std::string whole = Submit("whole", 400, /*patience=*/100000);
  ASSERT_TRUE(WaitForState(whole, JobState::kSucceeded));
  const std::string stopped = Submit("stopped", 400, /*patience=*/100000);
  ASSERT_TRUE(WaitFor(stopped, [](const Job& j) { return j.epoch >= 5; }));
  jobs_->Stop();  // SIGTERM: at the next epoch boundary
  Job left = Get(stopped);
  ASSERT_EQ(left.state, JobState::kRunning);
  EXPECT_TRUE(left.stopped_with_daemon);
  EXPECT_TRUE(left.has_snapshot);
  EXPECT_LT(left.epoch, 400);
  EXPECT_EQ((*store_->LatestSnapshot(stopped))->epoch, left.epoch);

  StartManager();  // the next start
  ASSERT_TRUE(WaitForState(stopped, JobState::kSucceeded))
      << Get(stopped).error;
  EXPECT_EQ(Get(stopped).crash_restarts, 0);
  EXPECT_EQ(Get(stopped).attempt, 2);
  train::ModelSnapshot a = Final(whole), b = Final(stopped);
  EXPECT_EQ(a.state.epoch, b.state.epoch);
  EXPECT_EQ(a.state.best, b.state.best);  // bit for bit
  EXPECT_EQ(a.state.params, b.state.params);
  EXPECT_EQ(Get(whole).test_loss, Get(stopped).test_loss);
}

// What SubmitJob checks is what the job trains on: the dataset is read
// once, then served from the cache (and a cache too small keeps nothing).
TEST_F(JobsTest, ASubmissionsDatasetIsReadOnce) {
  StartManager();
  CheckResult check = CheckModel("iris.wnm", ReadText(kModel));
  ASSERT_TRUE(check.ok);
  // As SubmitJob reads it: missing values kept to impute (the default,
  // auto).
  train::DataSource source{
      .path =
          (fs::path(store_->DatasetFolder(std::string(64, 'a'))) / "iris.csv")
              .string(),
      .keep_missing = true};
  absl::StatusOr<train::Dataset> checked =
      jobs_->data().Read(*check.dag, source);  // as SubmitJob does
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(jobs_->data().misses(), 1);
  const std::string id = Submit("j1", 5);
  ASSERT_TRUE(WaitForState(id, JobState::kSucceeded));
  EXPECT_EQ(jobs_->data().misses(), 1);
  EXPECT_EQ(jobs_->data().hits(), 1);
  // The copy handed out is the data as read.
  absl::StatusOr<train::Dataset> again = jobs_->data().Read(*check.dag, source);
  EXPECT_EQ(again->count(), checked->count());
  EXPECT_EQ(std::vector<float>(again->features(0),
                               again->features(0) + again->width()),
            std::vector<float>(checked->features(0),
                               checked->features(0) + checked->width()));
  DataCache none(0);
  ASSERT_TRUE(none.Read(*check.dag, source).ok());
  ASSERT_TRUE(none.Read(*check.dag, source).ok());
  EXPECT_EQ(none.misses(), 2);
  EXPECT_EQ(none.hits(), 0);
}

TEST_F(JobsTest, ACancelElsewhereEndsTheLeaseAndTheRunWritesNoMore) {
  StartManager();
  const std::string id = Submit("j1", 100000, /*patience=*/100000);
  ASSERT_TRUE(WaitFor(id, [](const Job& j) { return j.epoch >= 2; }));
  EXPECT_EQ(Get(id).node, "webnnmd");
  EXPECT_EQ(Get(id).attempt, 1);
  // Another daemon cancels it in the store (no fence: it does not run it).
  ASSERT_TRUE(store_
                  ->Update(id,
                           [](Job& j) {
                             j.state = JobState::kCancelled;
                             j.finished = Now();
                           },
                           {StateEvent(JobState::kCancelled, "elsewhere")})
                  .ok());
  const int64_t last = Get(id).last_seq;
  // The keeper's renewal finds the claim gone: the run stops at a step.
  EXPECT_TRUE(Eventually([&] { return jobs_->Busy() == 0; },
                         std::chrono::seconds(10)));
  EXPECT_EQ(jobs_->Busy(), 0);
  EXPECT_EQ(Get(id).state, JobState::kCancelled);
  EXPECT_EQ(Get(id).last_seq, last);  // nothing written after the cancel
  EXPECT_EQ(Events(id).back().message, "elsewhere");
}

TEST_F(JobsTest, ADeadDaemonsJobIsRequeuedByAnotherOnceItsLeaseRunsOut) {
  ShareTheStore();
  const std::string whole = Submit("whole", 30);
  // Claimed by a daemon that then died: its lease is never renewed.
  ASSERT_TRUE(*store_->ClaimJob("dead", std::chrono::milliseconds(300), nullptr,
                                {StateEvent(JobState::kRunning)}));
  auto b = Daemon("b", std::chrono::milliseconds(600));
  ASSERT_TRUE(WaitForState(whole, JobState::kSucceeded)) << Get(whole).error;
  Job job = Get(whole);
  EXPECT_EQ(job.node, "b");
  EXPECT_EQ(job.attempt, 2);
  EXPECT_EQ(job.crash_restarts, 1);
  bool requeued = false;
  for (const JobEvent& e : Events(whole)) {
    requeued |= e.message.find("interrupted by a daemon crash (dead)") !=
                std::string::npos;
  }
  EXPECT_TRUE(requeued);
}

TEST_F(JobsTest, AStoppedDaemonsJobGoesOnAtOnceOnAnotherToTheSameEnd) {
  ShareTheStore();
  const std::string whole = Submit("whole", 300, /*patience=*/100000);
  {
    auto a = Daemon("a", std::chrono::seconds(60));
    ASSERT_TRUE(WaitForState(whole, JobState::kSucceeded));
  }
  const std::string moved = Submit("moved", 300, /*patience=*/100000);
  auto a = Daemon("a", std::chrono::seconds(60));
  ASSERT_TRUE(WaitFor(moved, [](const Job& j) { return j.epoch >= 5; }));
  a->Stop();  // SIGTERM: checkpointed, its lease released
  ASSERT_EQ(Get(moved).state, JobState::kRunning);
  // b takes it over well within a's 60 s lease, free of charge.
  auto b = Daemon("b", std::chrono::seconds(60));
  ASSERT_TRUE(WaitForState(moved, JobState::kSucceeded)) << Get(moved).error;
  EXPECT_EQ(Get(moved).node, "b");
  EXPECT_EQ(Get(moved).crash_restarts, 0);
  EXPECT_EQ(Final(whole).state.params, Final(moved).state.params);
}

TEST_F(JobsTest, TheKeeperLeavesAJobItsOwnStopReleasedForAnother) {
  // As a daemon stops, its keeper may take one more turn after a worker
  // released its job: that job is the next daemon's, not requeued here.
  ShareTheStore();
  const std::string busy = Submit("busy", 100000, /*patience=*/100000);
  auto a = Daemon("a", std::chrono::milliseconds(600));  // turns every 200 ms
  ASSERT_TRUE(WaitFor(busy, [](const Job& j) { return j.epoch >= 1; }));
  const std::string left = Submit("left", 30);
  // What a's stop leaves of a job it ran (its one worker is busy).
  auto claimed = store_->ClaimJob("a", std::chrono::milliseconds(600), nullptr,
                                  {StateEvent(JobState::kRunning)});
  ASSERT_TRUE(claimed.ok() && *claimed && (**claimed).job.id == left);
  ASSERT_TRUE(
      store_->Update(left, [](Job& j) { j.stopped_with_daemon = true; }, {})
          .ok());
  ASSERT_TRUE(store_
                  ->ReleaseLease(left, Fence{.node = "a",
                                             .attempt = (**claimed).job.attempt})
                  .ok());
  std::this_thread::sleep_for(std::chrono::seconds(1));  // five turns
  EXPECT_EQ(Get(left).state, JobState::kRunning);
  auto b = Daemon("b", std::chrono::milliseconds(600));
  ASSERT_TRUE(WaitForState(left, JobState::kSucceeded)) << Get(left).error;
  EXPECT_EQ(Get(left).node, "b");
  EXPECT_EQ(Get(left).crash_restarts, 0);
  ASSERT_TRUE(a->Cancel(busy).ok());
}

TEST_F(JobsTest, ADataParallelJobRunsOnTwoDaemonsAsOneRun) {
  ShareTheStore();
  // Two replicas: rank 0 on one daemon, rank 1 on the other.
  JobRequest request{.kind = JobKind::kTrain,
                     .model_text = ReadText(kModel),
                     .file_name = "iris.wnm",
                     .data = {.dataset_id = "d1", .split = "60,20,20"}};
  request.hyperparameters = {{"epochs", int64_t{30}},
                             {"patience", int64_t{100000}},
                             {"optimizer", std::string("sgdm")},
                             {"lr", 0.05},
                             {"seeds", int64_t{5}},
                             {"batchSize", int64_t{16}}};
  for (const char* id : {"alone", "pair", "again"}) {
    JobRequest r = request;
    if (std::string(id) != "alone") r.hyperparameters["replicas"] = int64_t{2};
    ASSERT_TRUE(
        store_
            ->CreateJob({.id = id, .principal = "ann", .kind = JobKind::kTrain},
                        r)
            .ok());
  }
  auto a = Daemon("a", std::chrono::seconds(60), /*replicas=*/true);
  auto b = Daemon("b", std::chrono::seconds(60), /*replicas=*/true);
  a->Queued();
  b->Queued();
  for (const char* id : {"alone", "pair", "again"}) {
    ASSERT_TRUE(WaitForState(id, JobState::kSucceeded)) << id << Get(id).error;
  }
  {
    absl::MutexLock lock(&hubs_mutex_);
    EXPECT_EQ(hubs_.size(), 2u);  // one claim each of the two jobs
  }
  // The same run twice, bit for bit; not one process's bits (it shared the
  // batches), but close to them.
  train::ModelSnapshot alone = Final("alone"), pair = Final("pair"),
                       again = Final("again");
  EXPECT_EQ(pair.state.params, again.state.params);
  EXPECT_NE(pair.state.params, alone.state.params);
  for (const auto& [name, values] : alone.state.params) {
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_NEAR(pair.state.params.at(name)[i], values[i], 1e-4) << name;
    }
  }
  EXPECT_EQ(Get("pair").attempt, 1);
}

// Rank 0 of a younger data-parallel job, waiting for its replicas, gives
// way to an older job that waits for its own (two daemons that claimed
// two such jobs at once would otherwise wait for each other until their
// rendezvous timed out, again and again): it takes the older one's slot,
// and the younger job, requeued free, runs later.
TEST_F(JobsTest, AYoungerDataParallelClaimGivesWayToAnOlderOne) {
  ShareTheStore();
  JobRequest request{.kind = JobKind::kTrain,
                     .model_text = ReadText(kModel),
                     .file_name = "iris.wnm",
                     .data = {.dataset_id = "d1", .split = "60,20,20"}};
  request.hyperparameters = {{"epochs", int64_t{3}}, {"replicas", int64_t{2}}};
  ASSERT_TRUE(
      store_
          ->CreateJob(
              {.id = "old", .principal = "ann", .kind = JobKind::kTrain},
              request)
          .ok());
  // The young job is created a millisecond later at least: the store
  // orders jobs by their creation's milliseconds.
  const auto millis = [](Time t) {
    return std::chrono::time_point_cast<std::chrono::milliseconds>(t);
  };
  const Time old_created = Get("old").created.value();
  ASSERT_TRUE(
      Eventually([&] { return millis(Now()) > millis(old_created); }));
  ASSERT_TRUE(
      store_
          ->CreateJob(
              {.id = "young", .principal = "ann", .kind = JobKind::kTrain},
              request)
          .ok());
  const auto lease = std::chrono::seconds(60);
  // Daemon x (this test) claims the old job; it has not opened its slots.
  std::optional<StoredJob> old = *store_->ClaimJob("x", lease, nullptr, {}, 2);
  ASSERT_TRUE(old);
  ASSERT_EQ(old->job.id, "old");
  const Fence x{"x", old->job.attempt};
  // Daemon a counts x's second worker as free, claims the young job as
  // rank 0 and waits for a replica.
  ASSERT_TRUE(
      store_
          ->Heartbeat(
              {.name = "x", .address = "x:1", .workers = 2, .max_replicas = 4})
          .ok());
  auto a = Daemon("a", lease, /*replicas=*/true);
  ASSERT_TRUE(WaitFor("young", [](const Job& j) {
    return j.state == JobState::kRunning && j.node == "a";
  }));
  // The old job's slot opens: a gives way and takes it.
  ASSERT_TRUE(store_->OpenReplicaSlots("old", x, 2).ok());
  ASSERT_TRUE(WaitFor(
      "young", [](const Job& j) { return j.state == JobState::kQueued; }));
  bool said = false;
  for (const JobEvent& e : Events("young")) {
    said |= e.message ==
            "gave way to job old, older, which waits for its "
            "replicas; starts again";
  }
  EXPECT_TRUE(said);
  EXPECT_EQ(Get("young").crash_restarts, 0);  // free of charge
  // a's worker arrives at the old job's rendezvous as its rank 1.
  {
    absl::MutexLock lock(&hubs_mutex_);
    const std::pair<std::string, int> old_claim{"old", x.attempt};
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (arrived_[old_claim] == 0 &&
           !hubs_changed_.WaitWithDeadline(&hubs_mutex_, deadline)) {
    }
    EXPECT_EQ(arrived_[old_claim], 1);
  }
  // x gives the old job up: a's wait there ends (its slot is over), and
  // with a second daemon the young job runs to its end.
  ASSERT_TRUE(store_
                  ->Update(
                      "old", [](Job& j) { j.state = JobState::kCancelled; }, {},
                      nullptr, Fenced("old", x))
                  .ok());
  ASSERT_TRUE(store_->RemoveNode("x").ok());
  auto b = Daemon("b", lease, /*replicas=*/true);
  a->Queued();
  b->Queued();
  ASSERT_TRUE(WaitForState("young", JobState::kSucceeded))
      << Get("young").error;
}

TEST_F(JobsTest, AJobThatNeedsMoreDaemonsWaitsSayingSo) {
  ShareTheStore();
  JobRequest request{.kind = JobKind::kTrain,
                     .model_text = ReadText(kModel),
                     .file_name = "iris.wnm",
                     .data = {.dataset_id = "d1", .split = "60,20,20"}};
  request.hyperparameters = {{"epochs", int64_t{5}}, {"replicas", int64_t{3}}};
  ASSERT_TRUE(
      store_
          ->CreateJob(
              {.id = "three", .principal = "ann", .kind = JobKind::kTrain},
              request)
          .ok());
  // A lease of 3 s (a look every second): long enough that a loaded
  // machine does not see a daemon miss its heartbeats (and the count of
  // live ones change) while the test watches.
  auto a = Daemon("a", std::chrono::seconds(3), /*replicas=*/true);
  auto b = Daemon("b", std::chrono::seconds(3), /*replicas=*/true);
  const std::string two = "waits for 3 daemons (replicas 3); 2 are live";
  ASSERT_TRUE(WaitFor("three", [&](const Job& j) { return j.waiting == two; }));
  EXPECT_EQ(Get("three").state, JobState::kQueued);
  auto warnings = [&] {
    int n = 0;
    for (const JobEvent& e : Events("three"))
      n += e.type == EventType::kWarning;
    return n;
  };
  const int said = warnings();
  EXPECT_LE(said, 2);  // (one daemon alone may have said it first)
  EXPECT_EQ(Events("three").back().warning, two);
  // Each daemon looks again (about every second), just after its
  // heartbeat: once a daemon's heartbeat has moved three times since, two
  // whole looks of it came after the count.
  std::map<std::string, std::optional<Time>> seen;
  std::map<std::string, int> beats;
  auto beat = [&] {
    absl::StatusOr<std::vector<NodeRecord>> nodes =
        store_->ListNodes(std::chrono::minutes(1));
    if (!nodes.ok()) return;
    for (const NodeRecord& n : *nodes) {
      if (seen.count(n.name) && seen[n.name] != n.seen) ++beats[n.name];
      seen[n.name] = n.seen;
    }
  };
  beat();
  ASSERT_TRUE(Eventually(
      [&] {
        beat();
        return beats["a"] >= 3 && beats["b"] >= 3;
      },
      std::chrono::seconds(30)));
  EXPECT_EQ(warnings(), said);  // once a change, not at every look (two)
}

TEST_F(JobsTest, AJobWhoseDataIsGoneFailsWithTheReason) {
  StartManager();
  JobRequest request{.model_text = ReadText(kModel),
                     .data = {.dataset_id = "gone"}};
  ASSERT_TRUE(
      store_->CreateJob({.id = "j1", .principal = "ann"}, request).ok());
  jobs_->Queued();
  ASSERT_TRUE(WaitForState("j1", JobState::kFailed));
  EXPECT_EQ(Get("j1").error, "no dataset gone");
  EXPECT_EQ(Events("j1").back().state, JobState::kFailed);
}

}  // namespace
}  // namespace webnnm::server
