// Uploads on the in-memory store: one chunk protocol for datasets and
// snapshots — beginning (what is refused), chunks at offsets, the finish
// (size, files, hash, summary), a retried finish, expiry of what failed,
// another principal's upload, the open-upload cap, a snapshot imported as
// a job, and deleting a dataset a queued job needs.
#include "server/core/uploads.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire/sha256.h"
#include "server/core/admission.h"
#include "server/core/memory_store.h"
#include "server/core/testing/test_files.h"

namespace webnnm::server {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using testing_files::kIris;
using testing_files::kModel;
using testing_files::ReadText;

class UploadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("webnnm-uploads-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    store_ = std::make_unique<MemoryStore>(folder_.string());
    iris_ = ReadText(kIris);
    iris_hash_ = *wire::DatasetHash({kIris});
  }
  void TearDown() override {
    jobs_.reset();
    fs::remove_all(folder_);
  }

  std::unique_ptr<Uploads> Make(Limits limits = {}) {
    return std::make_unique<Uploads>(*store_, limits, [this] { ++created_; });
  }
  static UploadChunk Begin(const std::string& hash, int64_t bytes) {
    return {.name = "iris.csv",
            .format = DatasetFormat::kCsv,
            .sha256 = hash,
            .total_bytes = bytes};
  }
  static UploadChunk Chunk(const std::string& id, std::string_view data,
                           int64_t offset, bool finish = false) {
    return {.upload_id = id,
            .file_name = "iris.csv",
            .offset = offset,
            .data = data,
            .finish = finish};
  }
  // Iris in two chunks and a finish.
  absl::StatusOr<DatasetUploaded> UploadIris(Uploads& uploads,
                                             const Principal& who) {
    absl::StatusOr<DatasetUploaded> begun = uploads.DatasetChunk(
        who, Begin(iris_hash_, static_cast<int64_t>(iris_.size())));
    if (!begun.ok() || begun->dataset) return begun;
    const std::string id = begun->upload_id;
    const size_t half = iris_.size() / 2;
    absl::StatusOr<DatasetUploaded> first = uploads.DatasetChunk(
        who, Chunk(id, std::string_view(iris_).substr(0, half), 0));
    if (!first.ok()) return first;
    return uploads.DatasetChunk(
        who, Chunk(id, std::string_view(iris_).substr(half),
                   static_cast<int64_t>(half), /*finish=*/true));
  }

  fs::path folder_;
  std::unique_ptr<MemoryStore> store_;
  std::unique_ptr<JobManager> jobs_;
  std::string iris_, iris_hash_;
  int created_ = 0;
  const Principal ann_{.name = "ann"};
  const Principal bob_{.name = "bob"};
};

TEST_F(UploadsTest, ADatasetInChunksIsKeptWithItsSummary) {
  std::unique_ptr<Uploads> uploads = Make();
  absl::StatusOr<DatasetUploaded> made = UploadIris(*uploads, ann_);
  ASSERT_TRUE(made.ok()) << made.status();
  ASSERT_TRUE(made->dataset);
  EXPECT_FALSE(made->existing);
  const Dataset& d = *made->dataset;
  EXPECT_EQ(d.name, "iris.csv");
  EXPECT_EQ(d.sha256, iris_hash_);
  EXPECT_EQ(d.bytes, static_cast<int64_t>(iris_.size()));
  EXPECT_EQ(d.rows, 150);
  EXPECT_EQ(d.columns, 5);
  ASSERT_EQ(d.header.size(), 5u);
  EXPECT_EQ(d.header[4], "species");
  EXPECT_EQ(ReadText(fs::path(store_->DatasetFolder(iris_hash_)) / "iris.csv"),
            iris_);
  EXPECT_EQ(uploads->InProgress(), 0);
  // A retried finish answers with the dataset; a chunk after it is refused.
  absl::StatusOr<DatasetUploaded> again = uploads->DatasetChunk(
      ann_, {.upload_id = made->upload_id, .finish = true});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->dataset->id, d.id);
  EXPECT_EQ(uploads->DatasetChunk(ann_, Chunk(made->upload_id, "x", 0))
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
  // The same content again is the dataset she has.
  absl::StatusOr<DatasetUploaded> same = UploadIris(*uploads, ann_);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->existing);
  EXPECT_EQ(same->dataset->id, d.id);
  EXPECT_TRUE(same->upload_id.empty());
}

TEST_F(UploadsTest, RefusesABadBeginning) {
  std::unique_ptr<Uploads> uploads =
      Make({.max_dataset_bytes = 1000, .max_chunk_bytes = 64});
  auto refused = [&](UploadChunk c, absl::StatusCode code,
                     const std::string& says) {
    absl::Status s = uploads->DatasetChunk(ann_, c).status();
    EXPECT_EQ(s.code(), code) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(says));
  };
  UploadChunk c = Begin(iris_hash_, 500);
  c.format = DatasetFormat::kUnspecified;
  refused(c, absl::StatusCode::kInvalidArgument, "CSV, IDX, NPZ or IMAGES");
  refused(Begin("ABC", 500), absl::StatusCode::kInvalidArgument,
          "64 lowercase hex");
  c = Begin(iris_hash_, 500);
  c.name = "";
  refused(c, absl::StatusCode::kInvalidArgument, "needs a name");
  refused(Begin(iris_hash_, 0), absl::StatusCode::kInvalidArgument,
          "total_bytes must be positive");
  refused(Begin(iris_hash_, 1001), absl::StatusCode::kResourceExhausted,
          "the limit is 1000");
  refused(Chunk("u1", std::string(65, 'x'), 0),
          absl::StatusCode::kResourceExhausted, "at most 64 bytes");
  EXPECT_EQ(uploads->InProgress(), 0);
}

TEST_F(UploadsTest, ChunksFollowOffsetsAndFileNames) {
  std::unique_ptr<Uploads> uploads = Make();
  absl::StatusOr<DatasetUploaded> begun = uploads->DatasetChunk(
      ann_, Begin(iris_hash_, static_cast<int64_t>(iris_.size())));
  ASSERT_TRUE(begun.ok());
  const std::string id = begun->upload_id;
  ASSERT_TRUE(uploads->DatasetChunk(ann_, Chunk(id, "sepal", 0)).ok());
  // A retried chunk is refused, not appended twice.
  absl::Status twice = uploads->DatasetChunk(ann_, Chunk(id, "sepal", 0)).status();
  EXPECT_EQ(twice.code(), absl::StatusCode::kFailedPrecondition) << twice;
  EXPECT_THAT(twice.message(), HasSubstr("expected offset 5"));
  UploadChunk other = Chunk(id, "x", 0);
  other.file_name = "other.csv";
  EXPECT_THAT(uploads->DatasetChunk(ann_, other).status().message(),
              HasSubstr("a CSV dataset is one file"));
  other.file_name = "../iris.csv";
  EXPECT_THAT(uploads->DatasetChunk(ann_, other).status().message(),
              HasSubstr("not a plain file name"));
  // Bob cannot continue ann's upload.
  EXPECT_EQ(uploads->DatasetChunk(bob_, Chunk(id, "_length", 5)).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(uploads->InProgress(), 1);
}

TEST_F(UploadsTest, ARefusedFinishEndsTheUpload) {
  std::unique_ptr<Uploads> uploads = Make();
  // Fewer bytes than announced.
  absl::StatusOr<DatasetUploaded> begun = uploads->DatasetChunk(
      ann_, Begin(iris_hash_, static_cast<int64_t>(iris_.size())));
  ASSERT_TRUE(begun.ok());
  absl::Status short_ =
      uploads->DatasetChunk(ann_, Chunk(begun->upload_id, "abc", 0, true))
          .status();
  EXPECT_EQ(short_.code(), absl::StatusCode::kInvalidArgument) << short_;
  EXPECT_THAT(short_.message(), HasSubstr("3 bytes"));
  EXPECT_EQ(uploads->DatasetChunk(ann_, Chunk(begun->upload_id, "", 0, true))
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  // Content that is not what its hash says.
  std::string changed = iris_;
  changed[100] = changed[100] == '1' ? '2' : '1';
  begun = uploads->DatasetChunk(
      ann_, Begin(iris_hash_, static_cast<int64_t>(changed.size())));
  ASSERT_TRUE(begun.ok());
  absl::Status lost =
      uploads->DatasetChunk(ann_, Chunk(begun->upload_id, changed, 0, true))
          .status();
  EXPECT_EQ(lost.code(), absl::StatusCode::kDataLoss) << lost;
  EXPECT_EQ(uploads->InProgress(), 0);
  EXPECT_TRUE(store_->ListDatasets("ann")->empty());
}

TEST_F(UploadsTest, OpenUploadsAreCapped) {
  std::unique_ptr<Uploads> uploads = Make({.max_open_uploads = 1});
  ASSERT_TRUE(uploads->DatasetChunk(ann_, Begin(iris_hash_, 10)).ok());
  absl::Status second =
      uploads->DatasetChunk(ann_, Begin(std::string(64, 'b'), 10)).status();
  EXPECT_EQ(second.code(), absl::StatusCode::kResourceExhausted) << second;
  // Another principal has her own.
  EXPECT_TRUE(uploads->DatasetChunk(bob_, Begin(iris_hash_, 10)).ok());
}

TEST_F(UploadsTest, ASnapshotIsImportedAsAJob) {
  // A trained job's snapshot.
  std::unique_ptr<Uploads> uploads = Make();
  absl::StatusOr<DatasetUploaded> iris = UploadIris(*uploads, ann_);
  ASSERT_TRUE(iris.ok());
  jobs_ = std::make_unique<JobManager>(*store_,
                                       JobOptions{.workers = 1, .threads = 1});
  ASSERT_TRUE(jobs_->Start().ok());
  Admission admission(*store_, *jobs_, Limits{});
  JobRequest request;
  request.model_text = ReadText(kModel);
  request.data.dataset_id = iris->dataset->id;
  request.hyperparameters["epochs"] = int64_t{2};
  absl::StatusOr<Admission::Submitted> trained =
      admission.Submit(ann_, request);
  ASSERT_TRUE(trained.ok()) << trained.status();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!IsFinished((*store_->GetJob(trained->job.id))->job.state) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ((*store_->GetJob(trained->job.id))->job.state,
            JobState::kSucceeded);
  const std::string bytes =
      (*store_->LatestSnapshot(trained->job.id))->bytes;

  // Imported by bob in two chunks.
  absl::StatusOr<SnapshotUploaded> begun = uploads->SnapshotChunk(
      bob_, {.sha256 = wire::Sha256Hex(bytes),
             .total_bytes = static_cast<int64_t>(bytes.size())});
  ASSERT_TRUE(begun.ok()) << begun.status();
  const std::string id = begun->upload_id;
  const size_t half = bytes.size() / 2;
  ASSERT_TRUE(uploads
                  ->SnapshotChunk(bob_, {.upload_id = id,
                                         .data = std::string_view(bytes).substr(0, half)})
                  .ok());
  absl::StatusOr<SnapshotUploaded> made = uploads->SnapshotChunk(
      bob_, {.upload_id = id,
             .offset = static_cast<int64_t>(half),
             .data = std::string_view(bytes).substr(half),
             .finish = true});
  ASSERT_TRUE(made.ok()) << made.status();
  ASSERT_TRUE(made->job);
  EXPECT_EQ(made->job->kind, JobKind::kImport);
  EXPECT_EQ(made->job->principal, "bob");
  EXPECT_EQ(made->job->model_name, "test-model");
  EXPECT_EQ(made->job->epoch, 2);
  EXPECT_EQ(created_, 1);
  EXPECT_EQ((*store_->LatestSnapshot(made->job->id))->bytes, bytes);
  // A retried finish answers with the same job.
  absl::StatusOr<SnapshotUploaded> again =
      uploads->SnapshotChunk(bob_, {.upload_id = id, .finish = true});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->job->id, made->job->id);

  // Bytes that are no snapshot are refused, and the upload ends.
  const std::string junk(100, 'j');
  begun = uploads->SnapshotChunk(
      bob_, {.sha256 = wire::Sha256Hex(junk), .total_bytes = 100});
  ASSERT_TRUE(begun.ok());
  absl::Status refused =
      uploads
          ->SnapshotChunk(bob_, {.upload_id = begun->upload_id,
                                 .data = junk,
                                 .finish = true})
          .status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
  EXPECT_EQ(created_, 1);
  EXPECT_EQ(uploads->InProgress(), 0);
}

TEST_F(UploadsTest, ADatasetAQueuedJobNeedsStays) {
  std::unique_ptr<Uploads> uploads = Make();
  absl::StatusOr<DatasetUploaded> iris = UploadIris(*uploads, ann_);
  ASSERT_TRUE(iris.ok());
  const std::string id = iris->dataset->id;
  jobs_ = std::make_unique<JobManager>(*store_, JobOptions{});  // no workers
  Admission admission(*store_, *jobs_, Limits{});
  JobRequest request;
  request.model_text = ReadText(kModel);
  request.data.dataset_id = id;
  absl::StatusOr<Admission::Submitted> queued = admission.Submit(ann_, request);
  ASSERT_TRUE(queued.ok()) << queued.status();
  absl::Status needed = uploads->DeleteDataset(ann_, id);
  EXPECT_EQ(needed.code(), absl::StatusCode::kFailedPrecondition) << needed;
  EXPECT_THAT(needed.message(), HasSubstr(queued->job.id));
  EXPECT_EQ(uploads->DeleteDataset(bob_, id).code(),
            absl::StatusCode::kNotFound);
  // Once the job is gone, the dataset and its content go.
  ASSERT_TRUE(store_->DeleteJob(queued->job.id).ok());
  ASSERT_TRUE(uploads->DeleteDataset(ann_, id).ok());
  EXPECT_TRUE(store_->ListDatasets("ann")->empty());
  EXPECT_FALSE(fs::exists(fs::path(store_->DatasetFolder(iris_hash_)) /
                          "iris.csv"));
}

}  // namespace
}  // namespace webnnm::server
