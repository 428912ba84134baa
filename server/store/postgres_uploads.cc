// The PostgreSQL store's uploads in progress: their records and chunks in
// the database, their caps counted across daemons, their expiry by lease
// (postgres_data.cc: datasets, nodes and notices).
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/convert/convert.h"
#include "server/store/postgres_internal.h"
#include "server/store/postgres_store.h"

namespace webnnm::server {

using postgres_internal::Parse;
using postgres_internal::Unique;
using postgres_internal::WriteFile;

namespace {

namespace fs = std::filesystem;

// An upload's files as a column: "NAME\tBYTES\n" a file (names hold no
// control characters: the service checks them).
std::string EncodeFiles(const std::map<std::string, int64_t>& files) {
  std::string out;
  for (const auto& [name, bytes] : files) {
    out += StrCat(name, "\t", bytes, "\n");
  }
  return out;
}

std::map<std::string, int64_t> DecodeFiles(const std::string& text) {
  std::map<std::string, int64_t> files;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab = line.rfind('\t');
    if (tab == std::string::npos) continue;
    files[line.substr(0, tab)] =
        std::strtoll(line.c_str() + tab + 1, nullptr, 10);
  }
  return files;
}

absl::StatusOr<UploadRecord> UploadOf(const pg::Result& got, int r) {
  // id, principal, kind, dataset, total_bytes, received, files, finished,
  // result
  UploadRecord u;
  u.id = got.Text(r, 0);
  u.principal = got.Text(r, 1);
  u.kind = static_cast<int>(got.Int(r, 2));
  ASSIGN_OR_RETURN(v1::Dataset d, Parse<v1::Dataset>(got.Text(r, 3), "upload"));
  u.dataset = FromProto(d);
  u.total_bytes = got.Int(r, 4);
  u.received = got.Int(r, 5);
  u.files = DecodeFiles(got.Text(r, 6));
  u.finished = got.Bool(r, 7);
  u.result = got.Text(r, 8);
  return u;
}

constexpr char kUploadColumns[] =
    "id, principal, kind, dataset, total_bytes, received, files, finished, "
    "result";

}  // namespace

absl::Status PostgresStore::BeginUpload(const UploadRecord& upload,
                                        const UploadCaps& caps) {
  const std::string dataset = ToProto(upload.dataset).SerializeAsString();
  return Transact([&](pg::Connection& c) -> absl::Status {
    RETURN_IF_ERROR(
        c.Query("SELECT pg_advisory_xact_lock(hashtext($1))",
                pg::Params().Text(StrCat("uploads:", upload.principal)))
            .status());
    RETURN_IF_ERROR(c.Query("DELETE FROM uploads WHERE lease_until_ms < "
                            "webnnm_now_ms()")
                        .status());
    ASSIGN_OR_RETURN(pg::Result open,
                     c.Query("SELECT count(*), coalesce(sum(total_bytes), 0) "
                             "FROM uploads WHERE principal = $1 AND NOT "
                             "finished",
                             pg::Params().Text(upload.principal)));
    RETURN_IF_ERROR(CheckUploadCaps(static_cast<int>(open.Int(0, 0)),
                                    open.Int(0, 1), upload.total_bytes, caps));
    return c
        .Query(
            "INSERT INTO uploads (id, principal, kind, dataset, "
            "total_bytes, lease_until_ms) VALUES ($1, $2, $3, $4, $5, "
            "webnnm_now_ms() + $6)",
            pg::Params()
                .Text(upload.id)
                .Text(upload.principal)
                .Int(upload.kind)
                .Bytes(dataset)
                .Int(upload.total_bytes)
                .Int(caps.idle_timeout.count() * 1000))
        .status();
  });
}

absl::StatusOr<std::optional<UploadRecord>> PostgresStore::GetUpload(
    const std::string& principal, const std::string& id, int kind,
    const UploadCaps& caps) {
  std::optional<UploadRecord> out;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result got,
        c.Query(StrCat("UPDATE uploads SET lease_until_ms = webnnm_now_ms() + "
                       "$4 WHERE id = $1 AND principal = $2 AND kind = $3 AND "
                       "lease_until_ms >= webnnm_now_ms() RETURNING ",
                       kUploadColumns),
                pg::Params().Text(id).Text(principal).Int(kind).Int(
                    caps.idle_timeout.count() * 1000)));
    if (got.rows() == 0) return absl::OkStatus();
    ASSIGN_OR_RETURN(out, UploadOf(got, 0));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status PostgresStore::AppendUpload(const std::string& id,
                                         const std::string& file,
                                         int64_t offset,
                                         std::string_view data) {
  return Transact([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query(StrCat("SELECT ", kUploadColumns,
                                    " FROM uploads WHERE id = $1 AND "
                                    "lease_until_ms >= webnnm_now_ms() FOR "
                                    "UPDATE"),
                             pg::Params().Text(id)));
    if (got.rows() == 0) {
      return absl::NotFoundError(
          StrCat("no upload ", id, " (it may have expired)"));
    }
    ASSIGN_OR_RETURN(UploadRecord upload, UploadOf(got, 0));
    RETURN_IF_ERROR(CheckAppend(upload, file, offset, data.size()));
    RETURN_IF_ERROR(
        c.Query("INSERT INTO upload_chunks (upload_id, file, offset_bytes, "
                "data) VALUES ($1, $2, $3, $4)",
                pg::Params().Text(id).Text(file).Int(offset).Bytes(data))
            .status());
    upload.files[file] += static_cast<int64_t>(data.size());
    return c
        .Query(
            "UPDATE uploads SET received = received + $2, files = $3 "
            "WHERE id = $1",
            pg::Params()
                .Text(id)
                .Int(static_cast<int64_t>(data.size()))
                .Text(EncodeFiles(upload.files)))
        .status();
  });
}

absl::StatusOr<std::string> PostgresStore::UploadFiles(const std::string& id) {
  ForgetUploadFiles(id);
  const fs::path folder =
      fs::path(options_.cache_folder) / "uploads" / Unique(id);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    return absl::InternalError(
        StrCat("cannot create ", folder.string(), ": ", ec.message()));
  }
  {
    absl::MutexLock lock(&uploads_mutex_);
    upload_folders_[id] = folder.string();
  }
  std::vector<std::pair<std::string, int64_t>> chunks;
  std::set<std::string> names;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(pg::Result got,
                     c.Query("SELECT files FROM uploads WHERE id = $1",
                             pg::Params().Text(id)));
    if (got.rows() == 0) return absl::NotFoundError(StrCat("no upload ", id));
    for (const auto& [name, bytes] : DecodeFiles(got.Text(0, 0))) {
      names.insert(name);
    }
    ASSIGN_OR_RETURN(pg::Result list,
                     c.Query("SELECT file, offset_bytes FROM upload_chunks "
                             "WHERE upload_id = $1 ORDER BY file, offset_bytes",
                             pg::Params().Text(id)));
    for (int r = 0; r < list.rows(); ++r) {
      chunks.emplace_back(list.Text(r, 0), list.Int(r, 1));
    }
    return absl::OkStatus();
  }));
  for (const std::string& name : names) {
    RETURN_IF_ERROR(WriteFile(folder / name, "", false));
  }
  for (const auto& chunk : chunks) {
    const std::string& file = chunk.first;
    const int64_t offset = chunk.second;
    RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
      ASSIGN_OR_RETURN(pg::Result got,
                       c.Query("SELECT data FROM upload_chunks WHERE "
                               "upload_id = $1 AND file = $2 AND "
                               "offset_bytes = $3",
                               pg::Params().Text(id).Text(file).Int(offset)));
      if (got.rows() != 1) return absl::DataLossError("an upload chunk went");
      return WriteFile(folder / file, got.Text(0, 0), true);
    }));
  }
  return folder.string();
}

void PostgresStore::ForgetUploadFiles(const std::string& id) {
  absl::MutexLock lock(&uploads_mutex_);
  auto it = upload_folders_.find(id);
  if (it == upload_folders_.end()) return;
  std::error_code ec;
  fs::remove_all(it->second, ec);
  upload_folders_.erase(it);
}

absl::Status PostgresStore::FinishUpload(const std::string& id,
                                         const std::string& result) {
  ForgetUploadFiles(id);
  return Transact([&](pg::Connection& c) -> absl::Status {
    RETURN_IF_ERROR(c.Query("UPDATE uploads SET finished = true, result = $2 "
                            "WHERE id = $1",
                            pg::Params().Text(id).Text(result))
                        .status());
    return c
        .Query("DELETE FROM upload_chunks WHERE upload_id = $1",
               pg::Params().Text(id))
        .status();
  });
}

absl::Status PostgresStore::DropUpload(const std::string& id) {
  ForgetUploadFiles(id);
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    return c.Query("DELETE FROM uploads WHERE id = $1", pg::Params().Text(id))
        .status();
  });
}

absl::StatusOr<int> PostgresStore::OpenUploads(const UploadCaps&) {
  int open = 0;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    RETURN_IF_ERROR(c.Query("DELETE FROM uploads WHERE lease_until_ms < "
                            "webnnm_now_ms()")
                        .status());
    ASSIGN_OR_RETURN(
        pg::Result got,
        c.Query("SELECT count(*) FROM uploads WHERE NOT finished"));
    open = static_cast<int>(got.Int(0, 0));
    return absl::OkStatus();
  }));
  return open;
}

}  // namespace webnnm::server
