// The PostgreSQL store's datasets and their content, nodes and notices
// (postgres_store.cc: jobs; postgres_uploads.cc: uploads).
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/convert/convert.h"
#include "server/store/postgres_internal.h"
#include "server/store/postgres_store.h"

namespace webnnm::server {

using postgres_internal::FromMillis;
using postgres_internal::Millis;
using postgres_internal::Parse;

namespace {

namespace fs = std::filesystem;
using postgres_internal::Unique;
using postgres_internal::WriteFile;

constexpr size_t kChunk = 1 << 20;

}  // namespace

std::string PostgresStore::DatasetFolder(const std::string& sha256) const {
  return (fs::path(options_.cache_folder) / "datasets" / sha256).string();
}

absl::StatusOr<std::string> PostgresStore::DatasetContent(
    const std::string& sha256) {
  const fs::path target = DatasetFolder(sha256);
  std::error_code ec;
  if (fs::is_directory(target, ec)) return target.string();
  absl::MutexLock lock(&fetch_mutex_);
  if (fs::is_directory(target, ec)) return target.string();
  // The files and their chunk counts, then each chunk on its own (a large
  // dataset is never held whole in memory).
  std::vector<std::pair<std::string, int64_t>> files;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT file, count(*) FROM dataset_content "
                             "WHERE sha256 = $1 GROUP BY file ORDER BY file",
                             pg::Params().Text(sha256)));
    for (int r = 0; r < got.rows(); ++r) {
      files.emplace_back(got.Text(r, 0), got.Int(r, 1));
    }
    return absl::OkStatus();
  }));
  if (files.empty()) {
    return absl::NotFoundError(
        StrCat("the content ", sha256.substr(0, 12),
               " is not in the database (deleted, or never uploaded)"));
  }
  const fs::path staged =
      fs::path(options_.cache_folder) / "datasets" / Unique(sha256 + ".part");
  fs::create_directories(staged, ec);
  if (ec) {
    return absl::InternalError(
        StrCat("cannot create ", staged.string(), ": ", ec.message()));
  }
  absl::Status fetched = [&]() -> absl::Status {
    for (const auto& entry : files) {
      // (Named apart: clang 14 captures no structured bindings.)
      const std::string& file = entry.first;
      const int64_t chunks = entry.second;
      RETURN_IF_ERROR(WriteFile(staged / file, "", false));
      for (int64_t i = 0; i < chunks; ++i) {
        RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
          ASSIGN_OR_RETURN(
              pg::Result got,
              c.Query("SELECT data FROM dataset_content WHERE "
                      "sha256 = $1 AND file = $2 AND chunk = $3",
                      pg::Params().Text(sha256).Text(file).Int(i)));
          if (got.rows() != 1) {
            return absl::DataLossError(
                StrCat("the content ", sha256.substr(0, 12), " lacks chunk ", i,
                       " of ", file));
          }
          return WriteFile(staged / file, got.Text(0, 0), true);
        }));
      }
    }
    return absl::OkStatus();
  }();
  if (fetched.ok()) {
    fs::rename(staged, target, ec);
    if (ec && !fs::is_directory(target)) {
      fetched = absl::InternalError(
          StrCat("cannot store ", target.string(), ": ", ec.message()));
    }
  }
  fs::remove_all(staged, ec);
  RETURN_IF_ERROR(fetched);
  return target.string();
}

absl::Status PostgresStore::PutDatasetContent(
    const std::string& sha256, const std::string& folder,
    const std::vector<std::string>& files) {
  RETURN_IF_ERROR(Transact([&](pg::Connection& c) -> absl::Status {
    RETURN_IF_ERROR(c.Query("SELECT pg_advisory_xact_lock(hashtext($1))",
                            pg::Params().Text(StrCat("content:", sha256)))
                        .status());
    ASSIGN_OR_RETURN(pg::Result have,
                     c.Query("SELECT 1 FROM dataset_content WHERE sha256 = $1 "
                             "LIMIT 1",
                             pg::Params().Text(sha256)));
    if (have.rows() > 0) return absl::OkStatus();  // stored already
    std::string buffer(kChunk, '\0');
    for (const std::string& file : files) {
      std::ifstream in(fs::path(folder) / file, std::ios::binary);
      if (!in) {
        return absl::InternalError(StrCat("cannot read the upload's ", file));
      }
      for (int64_t chunk = 0;; ++chunk) {
        in.read(buffer.data(), static_cast<std::streamsize>(kChunk));
        const std::streamsize got = in.gcount();
        if (got == 0 && chunk > 0) break;
        RETURN_IF_ERROR(
            c.Query(
                 "INSERT INTO dataset_content (sha256, file, chunk, data) "
                 "VALUES ($1, $2, $3, $4)",
                 pg::Params().Text(sha256).Text(file).Int(chunk).Bytes(
                     std::string_view(buffer.data(), static_cast<size_t>(got))))
                .status());
        if (got < static_cast<std::streamsize>(kChunk)) break;
      }
    }
    return absl::OkStatus();
  }));
  // This daemon keeps the files as its cached copy.
  const fs::path target = DatasetFolder(sha256);
  std::error_code ec;
  if (!fs::exists(target, ec)) {
    const fs::path staged =
        fs::path(options_.cache_folder) / "datasets" / Unique(sha256 + ".part");
    fs::create_directories(staged, ec);
    for (const std::string& file : files) {
      fs::rename(fs::path(folder) / file, staged / file, ec);
    }
    if (!ec) fs::rename(staged, target, ec);
    fs::remove_all(staged, ec);
  }
  return absl::OkStatus();
}

absl::Status PostgresStore::RemoveDatasetContent(const std::string& sha256) {
  // DeleteDataset removed the rows with the last record; every daemon
  // drops its copy on the notice.
  std::error_code ec;
  fs::remove_all(DatasetFolder(sha256), ec);
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    return c
        .Query("SELECT pg_notify('webnnm', $1)",
               pg::Params().Text(StrCat("x ", sha256)))
        .status();
  });
}

absl::StatusOr<std::optional<Dataset>> PostgresStore::FindDataset(
    const std::string& principal, const std::string& sha256) {
  std::optional<Dataset> out;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT info FROM datasets WHERE principal = $1 "
                             "AND sha256 = $2",
                             pg::Params().Text(principal).Text(sha256)));
    if (got.rows() == 0) return absl::OkStatus();
    ASSIGN_OR_RETURN(v1::Dataset d,
                     Parse<v1::Dataset>(got.Text(0, 0), "dataset"));
    out = FromProto(d);
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::optional<Dataset>> PostgresStore::GetDataset(
    const std::string& principal, const std::string& id) {
  std::optional<Dataset> out;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT info FROM datasets WHERE id = $2 AND "
                             "($1 = '' OR principal = $1)",
                             pg::Params().Text(principal).Text(id)));
    if (got.rows() == 0) return absl::OkStatus();
    ASSIGN_OR_RETURN(v1::Dataset d,
                     Parse<v1::Dataset>(got.Text(0, 0), "dataset"));
    out = FromProto(d);
    return absl::OkStatus();
  }));
  return out;
}

absl::Status PostgresStore::InsertDataset(const std::string& principal,
                                          const Dataset& dataset) {
  const std::string info = ToProto(dataset).SerializeAsString();
  return Transact([&](pg::Connection& c) -> absl::Status {
    // Under the content's lock: a deletion of the content's last record
    // either ran before (then the content is gone: said) or waits.
    RETURN_IF_ERROR(
        c.Query("SELECT pg_advisory_xact_lock(hashtext($1))",
                pg::Params().Text(StrCat("content:", dataset.sha256)))
            .status());
    ASSIGN_OR_RETURN(pg::Result have,
                     c.Query("SELECT 1 FROM dataset_content WHERE sha256 = $1 "
                             "LIMIT 1",
                             pg::Params().Text(dataset.sha256)));
    if (have.rows() == 0) {
      return absl::AbortedError(
          "the dataset's content was deleted while it was being stored; "
          "upload it again");
    }
    return c
        .Query(
            "INSERT INTO datasets (id, principal, sha256, info, "
            "created_ms) VALUES ($1, $2, $3, $4, $5)",
            pg::Params()
                .Text(dataset.id)
                .Text(principal)
                .Text(dataset.sha256)
                .Bytes(info)
                .Int(Millis(dataset.created.value_or(Now()))))
        .status();
  });
}

absl::StatusOr<std::vector<Dataset>> PostgresStore::ListDatasets(
    const std::string& principal) {
  std::vector<Dataset> out;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT info FROM datasets WHERE $1 = '' OR "
                             "principal = $1 ORDER BY created_ms, id",
                             pg::Params().Text(principal)));
    for (int r = 0; r < got.rows(); ++r) {
      ASSIGN_OR_RETURN(v1::Dataset d,
                       Parse<v1::Dataset>(got.Text(r, 0), "dataset"));
      out.push_back(FromProto(d));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<bool> PostgresStore::DeleteDataset(const std::string& principal,
                                                  const std::string& id) {
  bool last = false;
  RETURN_IF_ERROR(Transact([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result found,
                     c.Query("SELECT sha256 FROM datasets WHERE id = $2 AND "
                             "($1 = '' OR principal = $1)",
                             pg::Params().Text(principal).Text(id)));
    if (found.rows() == 0)
      return absl::NotFoundError(StrCat("no dataset ", id));
    const std::string sha256 = found.Text(0, 0);
    RETURN_IF_ERROR(c.Query("SELECT pg_advisory_xact_lock(hashtext($1))",
                            pg::Params().Text(StrCat("content:", sha256)))
                        .status());
    RETURN_IF_ERROR(
        c.Query("DELETE FROM datasets WHERE id = $1", pg::Params().Text(id))
            .status());
    ASSIGN_OR_RETURN(pg::Result others,
                     c.Query("SELECT 1 FROM datasets WHERE sha256 = $1 LIMIT 1",
                             pg::Params().Text(sha256)));
    last = others.rows() == 0;
    if (!last) return absl::OkStatus();
    // The last record: its content goes with it, in this transaction.
    return c
        .Query("DELETE FROM dataset_content WHERE sha256 = $1",
               pg::Params().Text(sha256))
        .status();
  }));
  return last;
}

absl::Status PostgresStore::Heartbeat(const NodeRecord& node) {
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    return c
        .Query(
            "INSERT INTO nodes (name, address, version, started_ms, "
            "seen_ms, workers, busy, threads, max_replicas) VALUES ($1, $2, "
            "$3, $4, webnnm_now_ms(), $5, $6, $7, $8) ON CONFLICT (name) DO "
            "UPDATE SET address = excluded.address, version = "
            "excluded.version, started_ms = excluded.started_ms, seen_ms = "
            "excluded.seen_ms, workers = excluded.workers, busy = "
            "excluded.busy, threads = excluded.threads, max_replicas = "
            "excluded.max_replicas",
            pg::Params()
                .Text(node.name)
                .Text(node.address)
                .Text(node.version)
                .Int(Millis(node.started.value_or(Now())))
                .Int(node.workers)
                .Int(node.busy)
                .Int(node.threads)
                .Int(node.max_replicas))
        .status();
  });
}

absl::StatusOr<std::vector<NodeRecord>> PostgresStore::ListNodes(
    std::chrono::milliseconds within) {
  std::vector<NodeRecord> nodes;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result got,
        c.Query("SELECT name, address, version, started_ms, seen_ms, "
                "workers, busy, threads, max_replicas FROM nodes WHERE "
                "seen_ms >= "
                "webnnm_now_ms() - $1 ORDER BY name",
                pg::Params().Int(within.count())));
    for (int r = 0; r < got.rows(); ++r) {
      NodeRecord& n = nodes.emplace_back();
      n.name = got.Text(r, 0);
      n.address = got.Text(r, 1);
      n.version = got.Text(r, 2);
      n.started = FromMillis(got.Int(r, 3));
      n.seen = FromMillis(got.Int(r, 4));
      n.workers = static_cast<int>(got.Int(r, 5));
      n.busy = static_cast<int>(got.Int(r, 6));
      n.threads = static_cast<int>(got.Int(r, 7));
      n.max_replicas = static_cast<int>(got.Int(r, 8));
    }
    ASSIGN_OR_RETURN(
        pg::Result running,
        c.Query("SELECT id, node FROM jobs WHERE state = $1 "
                "ORDER BY created_ms, id",
                pg::Params().Int(static_cast<int>(JobState::kRunning))));
    for (int r = 0; r < running.rows(); ++r) {
      for (NodeRecord& n : nodes) {
        if (n.name == running.Text(r, 1))
          n.running.push_back(running.Text(r, 0));
      }
    }
    // And the ranks past the first of data-parallel jobs they run.
    ASSIGN_OR_RETURN(
        pg::Result helping,
        c.Query("SELECT r.job_id, r.node FROM job_replicas r JOIN jobs j ON "
                "j.id = r.job_id WHERE j.state = $1 AND j.attempt = "
                "r.attempt AND r.node <> '' ORDER BY j.created_ms, r.rank",
                pg::Params().Int(static_cast<int>(JobState::kRunning))));
    for (int r = 0; r < helping.rows(); ++r) {
      for (NodeRecord& n : nodes) {
        if (n.name == helping.Text(r, 1))
          n.running.push_back(helping.Text(r, 0));
      }
    }
    for (NodeRecord& n : nodes) n.busy = static_cast<int>(n.running.size());
    return absl::OkStatus();
  }));
  return nodes;
}

absl::Status PostgresStore::RemoveNode(const std::string& name) {
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    return c.Query("DELETE FROM nodes WHERE name = $1", pg::Params().Text(name))
        .status();
  });
}

void PostgresStore::Listen(std::function<void(const StoreNotice&)> listener) {
  {
    absl::MutexLock lock(&listener_mutex_);
    listener_ = std::move(listener);
  }
  if (!listener_thread_.joinable()) {
    listener_thread_ = std::thread([this] { RunListener(); });
  }
}

void PostgresStore::PublishProgress(const std::string& id,
                                    const train::StepReport& r) {
  (void)WithConnection([&](pg::Connection& c) -> absl::Status {
    return c
        .Query("SELECT pg_notify('webnnm', $1)",
               pg::Params().Text(StrCat("p ", id, " ", r.epoch, " ", r.epochs,
                                        " ", r.step, " ", r.steps, " ", r.rows,
                                        " ", r.seconds)))
        .status();
  });
}

void PostgresStore::Deliver(const std::string& payload) {
  std::istringstream in(payload);
  std::string kind;
  StoreNotice notice;
  in >> kind >> notice.job_id;
  if (kind == "j") {
    notice.kind = StoreNotice::Kind::kJob;
  } else if (kind == "d") {
    notice.kind = StoreNotice::Kind::kDeleted;
  } else if (kind == "p") {
    notice.kind = StoreNotice::Kind::kProgress;
    train::StepReport& r = notice.progress;
    in >> r.epoch >> r.epochs >> r.step >> r.steps >> r.rows >> r.seconds;
    if (!in) return;
  } else if (kind == "x") {
    // Content removed: this daemon's copy goes too.
    std::error_code ec;
    if (notice.job_id.size() == 64) {
      fs::remove_all(DatasetFolder(notice.job_id), ec);
    }
    return;
  } else {
    return;
  }
  absl::MutexLock lock(&listener_mutex_);
  if (listener_) listener_(notice);
}

void PostgresStore::RunListener() {
  bool first = true;
  while (!stopping_) {
    absl::StatusOr<std::unique_ptr<pg::Connection>> c =
        pg::Connection::Open(options_.uri);
    if (c.ok() && (*c)->Script("LISTEN webnnm").ok()) {
      if (!first) {
        // What happened while no one listened is unknown: look again.
        absl::MutexLock lock(&listener_mutex_);
        if (listener_) listener_({.kind = StoreNotice::Kind::kResync});
      }
      first = false;
      while (!stopping_) {
        pollfd p{(*c)->Socket(), POLLIN, 0};
        if (::poll(&p, 1, 250) < 0 && errno != EINTR) break;
        absl::StatusOr<std::vector<std::pair<std::string, std::string>>> notes =
            (*c)->Notifications();
        if (!notes.ok()) break;
        for (const auto& [channel, payload] : *notes) Deliver(payload);
      }
      first = false;
    }
    // Connection lost (or not made): try again in a second.
    for (int i = 0; i < 10 && !stopping_; ++i) ::usleep(100000);
  }
}

namespace postgres_internal {

// A name no other process or thread picks: for temporary folders.
std::string Unique(std::string_view stem) {
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  return StrCat(stem, ".", ::getpid(), ".", counter++, ".", random());
}

// Writes `bytes` to `path` (a new file), synced.
absl::Status WriteFile(const std::filesystem::path& path,
                       std::string_view bytes, bool append) {
  std::ofstream out(
      path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    return absl::ResourceExhaustedError(
        StrCat("cannot write ", path.string(), " (disk full?)"));
  }
  return absl::OkStatus();
}

}  // namespace postgres_internal

}  // namespace webnnm::server
