// The PostgreSQL store's leases (claims, renewals, expiry) and the
// replica slots of data-parallel jobs (postgres_store.cc: the schema and
// jobs).
#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/convert/convert.h"
#include "server/store/postgres_internal.h"
#include "server/store/postgres_store.h"

namespace webnnm::server {

using postgres_internal::Parse;

absl::StatusOr<std::optional<StoredJob>> PostgresStore::ClaimJob(
    const std::string& node, std::chrono::milliseconds lease,
    const std::function<void(Job&)>& change, std::vector<JobEvent> events,
    int max_replicas) {
  std::optional<StoredJob> out;
  RETURN_IF_ERROR(Transact([&](pg::Connection& c) -> absl::Status {
    out.reset();
    ASSIGN_OR_RETURN(
        pg::Result next,
        c.Query("SELECT id FROM jobs WHERE state = $1 AND replicas <= $2 "
                "ORDER BY created_ms, id LIMIT 1 FOR UPDATE SKIP LOCKED",
                pg::Params()
                    .Int(static_cast<int>(JobState::kQueued))
                    .Int(max_replicas)));
    if (next.rows() == 0) return absl::OkStatus();
    const std::string id = next.Text(0, 0);
    ASSIGN_OR_RETURN(Job job, UpdateIn(
                                  c, id,
                                  [&](Job& j) {
                                    j.state = JobState::kRunning;
                                    j.node = node;
                                    j.attempt += 1;
                                    if (change) change(j);
                                  },
                                  events, nullptr, nullptr));
    RETURN_IF_ERROR(c.Query("UPDATE jobs SET lease_until_ms = "
                            "webnnm_now_ms() + $2 WHERE id = $1",
                            pg::Params().Text(id).Int(lease.count()))
                        .status());
    ASSIGN_OR_RETURN(out, GetJobIn(c, id, false));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status PostgresStore::OpenReplicaSlots(const std::string& id,
                                             const Fence& fence, int size) {
  return Transact([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobIn(c, id, true));
    if (!stored) return absl::NotFoundError(StrCat("no job ", id));
    RETURN_IF_ERROR(CheckFence(id, stored->job, fence, false));
    RETURN_IF_ERROR(c.Query("DELETE FROM job_replicas WHERE job_id = $1",
                            pg::Params().Text(id))
                        .status());
    for (int rank = 1; rank < size; ++rank) {
      RETURN_IF_ERROR(
          c.Query("INSERT INTO job_replicas (job_id, rank, "
                  "attempt, size) VALUES ($1, $2, $3, $4)",
                  pg::Params().Text(id).Int(rank).Int(fence.attempt).Int(size))
              .status());
    }
    // Idle daemons wake to take them.
    return c
        .Query("SELECT pg_notify('webnnm', $1)",
               pg::Params().Text(StrCat("j ", id)))
        .status();
  });
}

absl::StatusOr<std::optional<ReplicaSlot>> PostgresStore::ClaimReplicaSlot(
    const std::string& node, std::chrono::milliseconds lease) {
  std::optional<ReplicaSlot> slot;
  RETURN_IF_ERROR(Transact([&](pg::Connection& c) -> absl::Status {
    slot.reset();
    ASSIGN_OR_RETURN(
        pg::Result open,
        c.Query(
            "SELECT r.job_id, r.rank, r.attempt, r.size FROM job_replicas "
            "r JOIN jobs j ON j.id = r.job_id WHERE r.node = '' AND "
            "j.state = $1 AND j.attempt = r.attempt AND j.node <> $2 AND "
            "NOT EXISTS (SELECT 1 FROM job_replicas o WHERE o.job_id = "
            "r.job_id AND o.node = $2) ORDER BY j.created_ms, r.job_id, "
            "r.rank LIMIT 1 FOR UPDATE OF r SKIP LOCKED",
            pg::Params().Int(static_cast<int>(JobState::kRunning)).Text(node)));
    if (open.rows() == 0) return absl::OkStatus();
    slot = ReplicaSlot{open.Text(0, 0), static_cast<int>(open.Int(0, 2)),
                       static_cast<int>(open.Int(0, 1)),
                       static_cast<int>(open.Int(0, 3))};
    return c
        .Query(
            "UPDATE job_replicas SET node = $3, lease_until_ms = "
            "webnnm_now_ms() + $4 WHERE job_id = $1 AND rank = $2",
            pg::Params()
                .Text(slot->job_id)
                .Int(slot->rank)
                .Text(node)
                .Int(lease.count()))
        .status();
  }));
  return slot;
}

absl::StatusOr<std::optional<std::string>>
PostgresStore::OlderJobNeedingReplicas(const std::string& node,
                                       const std::string& id) {
  std::optional<std::string> older;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    // The slots ClaimReplicaSlot would take, of jobs older than `id`.
    ASSIGN_OR_RETURN(
        pg::Result got,
        c.Query("SELECT r.job_id FROM job_replicas r JOIN jobs j ON j.id = "
                "r.job_id JOIN jobs m ON m.id = $3 WHERE r.node = '' AND "
                "j.state = $1 AND j.attempt = r.attempt AND j.node <> $2 AND "
                "NOT EXISTS (SELECT 1 FROM job_replicas o WHERE o.job_id = "
                "r.job_id AND o.node = $2) AND (j.created_ms, j.id) < "
                "(m.created_ms, m.id) ORDER BY j.created_ms, r.job_id LIMIT 1",
                pg::Params()
                    .Int(static_cast<int>(JobState::kRunning))
                    .Text(node)
                    .Text(id)));
    if (got.rows() > 0) older = got.Text(0, 0);
    return absl::OkStatus();
  }));
  return older;
}

absl::StatusOr<std::vector<std::string>> PostgresStore::QueuedNeedingMore(
    int replicas) {
  std::vector<std::string> ids;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result got,
        c.Query("SELECT id FROM jobs WHERE state = $1 AND replicas > $2 "
                "ORDER BY created_ms, id",
                pg::Params()
                    .Int(static_cast<int>(JobState::kQueued))
                    .Int(replicas)));
    for (int r = 0; r < got.rows(); ++r) ids.push_back(got.Text(r, 0));
    return absl::OkStatus();
  }));
  return ids;
}

absl::Status PostgresStore::RenewReplicaSlot(const ReplicaSlot& slot,
                                             const std::string& node,
                                             std::chrono::milliseconds lease) {
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result renewed,
        c.Query("UPDATE job_replicas r SET lease_until_ms = webnnm_now_ms() "
                "+ $5 FROM jobs j WHERE r.job_id = $1 AND r.rank = $2 AND "
                "r.attempt = $3 AND r.node = $4 AND j.id = r.job_id AND "
                "j.state = $6 AND j.attempt = r.attempt",
                pg::Params()
                    .Text(slot.job_id)
                    .Int(slot.rank)
                    .Int(slot.attempt)
                    .Text(node)
                    .Int(lease.count())
                    .Int(static_cast<int>(JobState::kRunning))));
    if (renewed.affected() == 1) return absl::OkStatus();
    return absl::AbortedError(StrCat("lease lost: job ", slot.job_id,
                                     " replica ", slot.rank, " attempt ",
                                     slot.attempt, " is over"));
  });
}

absl::Status PostgresStore::RenewLease(const std::string& id,
                                       const Fence& fence,
                                       std::chrono::milliseconds lease) {
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result renewed,
        c.Query("UPDATE jobs SET lease_until_ms = webnnm_now_ms() + $4 WHERE "
                "id = $1 AND node = $2 AND attempt = $3 AND state = $5",
                pg::Params()
                    .Text(id)
                    .Text(fence.node)
                    .Int(fence.attempt)
                    .Int(lease.count())
                    .Int(static_cast<int>(JobState::kRunning))));
    if (renewed.affected() == 1) return absl::OkStatus();
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobIn(c, id, false));
    if (!stored) return absl::NotFoundError(StrCat("no job ", id));
    return LeaseLost(id, stored->job, fence);
  });
}

absl::Status PostgresStore::ReleaseLease(const std::string& id,
                                         const Fence& fence) {
  return WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result released,
        c.Query("UPDATE jobs SET lease_until_ms = 0 WHERE id = $1 AND node = "
                "$2 AND attempt = $3 AND state = $4",
                pg::Params()
                    .Text(id)
                    .Text(fence.node)
                    .Int(fence.attempt)
                    .Int(static_cast<int>(JobState::kRunning))));
    if (released.affected() == 1) {
      return c
          .Query("SELECT pg_notify('webnnm', $1)",
                 pg::Params().Text(StrCat("j ", id)))
          .status();
    }
    ASSIGN_OR_RETURN(std::optional<StoredJob> stored, GetJobIn(c, id, false));
    if (!stored) return absl::NotFoundError(StrCat("no job ", id));
    return LeaseLost(id, stored->job, fence);
  });
}

absl::StatusOr<std::vector<StoredJob>> PostgresStore::ExpiredJobs(
    const std::string& node) {
  std::vector<StoredJob> jobs;
  RETURN_IF_ERROR(WithConnection([&](pg::Connection& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        pg::Result got,
        c.Query(
            "SELECT job, request FROM jobs WHERE state = $1 AND "
            "(lease_until_ms < webnnm_now_ms() OR node = $2) ORDER BY "
            "created_ms, id",
            pg::Params().Int(static_cast<int>(JobState::kRunning)).Text(node)));
    for (int r = 0; r < got.rows(); ++r) {
      ASSIGN_OR_RETURN(v1::Job job, Parse<v1::Job>(got.Text(r, 0), "job"));
      ASSIGN_OR_RETURN(v1::SubmitJobRequest request,
                       Parse<v1::SubmitJobRequest>(got.Text(r, 1), "request"));
      jobs.push_back({FromProto(job), FromProto(request)});
    }
    return absl::OkStatus();
  }));
  return jobs;
}

}  // namespace webnnm::server
