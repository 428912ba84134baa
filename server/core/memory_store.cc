#include "server/core/memory_store.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <tuple>

#include "engine/base/strings.h"

namespace webnnm::server {
namespace {

int64_t Millis(const std::optional<Time>& t) {
  return t ? std::chrono::duration_cast<std::chrono::milliseconds>(
                 t->time_since_epoch())
                 .count()
           : 0;
}

}  // namespace

std::vector<const MemoryStore::Entry*> MemoryStore::Select(
    const std::string& principal, JobState state) const {
  std::vector<const Entry*> out;
  for (const auto& [id, entry] : jobs_) {
    const Job& job = entry.stored.job;
    if ((principal.empty() || job.principal == principal) &&
        (state == JobState::kUnspecified || job.state == state)) {
      out.push_back(&entry);
    }
  }
  // As the SQLite store orders them: by creation time, then id.
  std::sort(out.begin(), out.end(), [](const Entry* a, const Entry* b) {
    const Job& x = a->stored.job;
    const Job& y = b->stored.job;
    return std::make_pair(Millis(x.created), x.id) <
           std::make_pair(Millis(y.created), y.id);
  });
  return out;
}

absl::StatusOr<Job> MemoryStore::CreateJob(Job job, const JobRequest& request,
                                           int max_queued) {
  absl::MutexLock lock(&mutex_);
  if (!request.idempotency_key.empty()) {
    for (const auto& [id, entry] : jobs_) {
      if (entry.stored.job.principal == job.principal &&
          entry.stored.request.idempotency_key == request.idempotency_key) {
        return absl::AlreadyExistsError(StrCat("idempotency key '",
                                               request.idempotency_key,
                                               "' already names job ", id));
      }
    }
  }
  if (max_queued > 0) {
    const int64_t queued =
        static_cast<int64_t>(Select(job.principal, JobState::kQueued).size());
    if (queued >= max_queued) {
      return absl::ResourceExhaustedError(StrCat(job.principal, " has ", queued,
                                                 " queued jobs; the limit is ",
                                                 max_queued));
    }
  }
  if (jobs_.count(job.id)) {
    return absl::AlreadyExistsError(StrCat("job ", job.id, " exists"));
  }
  job.state = JobState::kQueued;
  job.last_seq = 1;
  if (!job.created) job.created = Now();
  JobEvent event = StateEvent(JobState::kQueued);
  event.seq = 1;
  event.job_id = job.id;
  event.time = job.created;
  Entry& entry = jobs_[job.id];
  entry.stored = {job, request};
  entry.events.push_back(std::move(event));
  return job;
}

absl::StatusOr<std::optional<StoredJob>> MemoryStore::GetJob(
    const std::string& id) {
  absl::MutexLock lock(&mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return it->second.stored;
}

absl::StatusOr<std::optional<Job>> MemoryStore::FindByIdempotencyKey(
    const std::string& principal, const std::string& key) {
  if (key.empty()) return std::nullopt;
  absl::MutexLock lock(&mutex_);
  for (const auto& [id, entry] : jobs_) {
    if (entry.stored.job.principal == principal &&
        entry.stored.request.idempotency_key == key) {
      return entry.stored.job;
    }
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<Job>> MemoryStore::ListJobs(
    const std::string& principal, JobState state, int64_t offset, int limit) {
  absl::MutexLock lock(&mutex_);
  std::vector<const Entry*> selected = Select(principal, state);
  std::reverse(selected.begin(), selected.end());  // newest first
  std::vector<Job> jobs;
  for (int64_t i = std::max<int64_t>(0, offset);
       i < static_cast<int64_t>(selected.size()) &&
       static_cast<int64_t>(jobs.size()) < limit;
       ++i) {
    jobs.push_back(selected[i]->stored.job);
  }
  return jobs;
}

absl::StatusOr<int64_t> MemoryStore::CountJobs(const std::string& principal,
                                               JobState state) {
  absl::MutexLock lock(&mutex_);
  return static_cast<int64_t>(Select(principal, state).size());
}

absl::StatusOr<std::vector<std::string>> MemoryStore::JobIds(JobState state) {
  absl::MutexLock lock(&mutex_);
  std::vector<std::string> ids;
  for (const Entry* e : Select("", state)) ids.push_back(e->stored.job.id);
  return ids;
}

absl::StatusOr<Job> MemoryStore::Update(const std::string& id,
                                        const std::function<void(Job&)>& change,
                                        std::vector<JobEvent> events,
                                        const SnapshotBlob* snapshot,
                                        const UpdateCheck& check) {
  absl::MutexLock lock(&mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return absl::NotFoundError(StrCat("no job ", id));
  return UpdateLocked(it->second, change, std::move(events), snapshot, check);
}

absl::StatusOr<std::optional<StoredJob>> MemoryStore::ClaimJob(
    const std::string& node, std::chrono::milliseconds lease,
    const std::function<void(Job&)>& change, std::vector<JobEvent> events,
    int max_replicas) {
  absl::MutexLock lock(&mutex_);
  std::vector<const Entry*> queued = Select("", JobState::kQueued);
  std::erase_if(queued, [&](const Entry* e) {
    return ReplicasOf(e->stored.request) > max_replicas;
  });
  if (queued.empty()) return std::nullopt;
  Entry& entry = jobs_.at(queued.front()->stored.job.id);
  auto claimed = UpdateLocked(
      entry,
      [&](Job& j) {
        j.state = JobState::kRunning;
        j.node = node;
        j.attempt += 1;
        if (change) change(j);
      },
      std::move(events), nullptr, nullptr);
  if (!claimed.ok()) return claimed.status();
  entry.lease_until = Now() + lease;
  return entry.stored;
}

absl::Status MemoryStore::OpenReplicaSlots(const std::string& id,
                                           const Fence& fence, int size) {
  absl::MutexLock lock(&mutex_);
  if (!shared_) return Store::OpenReplicaSlots(id, fence, size);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return absl::NotFoundError(StrCat("no job ", id));
  if (absl::Status s = CheckFence(id, it->second.stored.job, fence, false);
      !s.ok()) {
    return s;
  }
  for (int rank = 1; rank < size; ++rank) {
    slots_[{id, rank}] = {fence.attempt, size, "", Time{}};
  }
  return absl::OkStatus();
}

MemoryStore::SlotKey MemoryStore::OldestTakeableSlot(
    const std::string& node) const {
  std::optional<std::tuple<int64_t, std::string, int>> best;  // by age
  for (const auto& [key, slot] : slots_) {
    if (!slot.node.empty()) continue;
    auto job = jobs_.find(key.first);
    if (job == jobs_.end()) continue;
    const Job& j = job->second.stored.job;
    if (j.state != JobState::kRunning || j.attempt != slot.attempt ||
        j.node == node) {
      continue;
    }
    bool mine = false;
    for (const auto& [other, o] : slots_) {
      mine |= other.first == key.first && o.node == node &&
              o.attempt == slot.attempt;
    }
    if (mine) continue;
    auto age = std::make_tuple(Millis(j.created), key.first, key.second);
    if (!best || age < *best) best = age;
  }
  if (!best) return SlotKey{};
  return {std::get<1>(*best), std::get<2>(*best)};
}

absl::StatusOr<std::optional<ReplicaSlot>> MemoryStore::ClaimReplicaSlot(
    const std::string& node, std::chrono::milliseconds lease) {
  absl::MutexLock lock(&mutex_);
  const SlotKey key = OldestTakeableSlot(node);
  if (key.first.empty()) return std::nullopt;
  SlotRow& slot = slots_.at(key);
  slot.node = node;
  slot.lease_until = Now() + lease;
  return ReplicaSlot{key.first, slot.attempt, key.second, slot.size};
}

absl::StatusOr<std::optional<std::string>> MemoryStore::OlderJobNeedingReplicas(
    const std::string& node, const std::string& id) {
  absl::MutexLock lock(&mutex_);
  auto mine = jobs_.find(id);
  if (mine == jobs_.end()) return std::nullopt;
  const SlotKey key = OldestTakeableSlot(node);
  if (key.first.empty()) return std::nullopt;
  const Job& other = jobs_.at(key.first).stored.job;
  if (std::make_pair(Millis(other.created), key.first) <
      std::make_pair(Millis(mine->second.stored.job.created), id)) {
    return key.first;
  }
  return std::nullopt;
}

absl::Status MemoryStore::RenewReplicaSlot(const ReplicaSlot& slot,
                                           const std::string& node,
                                           std::chrono::milliseconds lease) {
  absl::MutexLock lock(&mutex_);
  auto it = slots_.find({slot.job_id, slot.rank});
  auto job = jobs_.find(slot.job_id);
  if (it == slots_.end() || job == jobs_.end() || it->second.node != node ||
      it->second.attempt != slot.attempt ||
      job->second.stored.job.state != JobState::kRunning ||
      job->second.stored.job.attempt != slot.attempt) {
    return absl::AbortedError(StrCat("lease lost: job ", slot.job_id,
                                     " replica ", slot.rank, " attempt ",
                                     slot.attempt, " is over"));
  }
  it->second.lease_until = Now() + lease;
  return absl::OkStatus();
}

absl::Status MemoryStore::RenewLease(const std::string& id, const Fence& fence,
                                     std::chrono::milliseconds lease) {
  absl::MutexLock lock(&mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return absl::NotFoundError(StrCat("no job ", id));
  Fence held = fence;
  held.expired = false;
  if (absl::Status s = CheckFence(id, it->second.stored.job, held, false);
      !s.ok()) {
    return s;
  }
  it->second.lease_until = Now() + lease;
  return absl::OkStatus();
}

absl::Status MemoryStore::ReleaseLease(const std::string& id,
                                       const Fence& fence) {
  absl::MutexLock lock(&mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return absl::NotFoundError(StrCat("no job ", id));
  Fence held = fence;
  held.expired = false;
  if (absl::Status s = CheckFence(id, it->second.stored.job, held, false);
      !s.ok()) {
    return s;
  }
  it->second.lease_until = Time{};
  return absl::OkStatus();
}

absl::StatusOr<std::vector<StoredJob>> MemoryStore::ExpiredJobs(
    const std::string& node) {
  absl::MutexLock lock(&mutex_);
  std::vector<StoredJob> out;
  const Time now = Now();
  for (const Entry* e : Select("", JobState::kRunning)) {
    if (e->lease_until < now || e->stored.job.node == node) {
      out.push_back(e->stored);
    }
  }
  return out;
}

absl::StatusOr<Job> MemoryStore::UpdateLocked(
    Entry& entry, const std::function<void(Job&)>& change,
    std::vector<JobEvent> events, const SnapshotBlob* snapshot,
    const UpdateCheck& check) {
  const std::string id = entry.stored.job.id;
  if (check) {
    if (absl::Status s = check(entry.stored.job, entry.lease_until < Now());
        !s.ok()) {
      return s;
    }
  }
  Job job = entry.stored.job;
  if (change) change(job);
  const Time now = Now();
  for (JobEvent& event : events) {
    event.seq = ++job.last_seq;
    event.job_id = id;
    if (!event.time) event.time = now;
    if (event.type == EventType::kEpoch) {
      for (const auto& [name, value] : EpochMetrics(event.epoch)) {
        if (!value) continue;
        entry.metrics[name][event.epoch.epoch] =
            std::isfinite(*value) ? *value
                                  : std::numeric_limits<double>::quiet_NaN();
      }
    }
    entry.events.push_back(std::move(event));
  }
  if (snapshot) {
    entry.snapshots.emplace_back(next_snapshot_++, *snapshot);
    // Keep the newest `retention_` checkpoints and the newest snapshot.
    std::set<int64_t> keep = {entry.snapshots.back().first};
    int kept = 0;
    for (auto s = entry.snapshots.rbegin(); s != entry.snapshots.rend(); ++s) {
      if (s->second.kind == "checkpoint" && kept < retention_) {
        keep.insert(s->first);
        ++kept;
      }
    }
    std::erase_if(entry.snapshots, [&](const auto& s) {
      return s.second.kind == "checkpoint" && !keep.count(s.first);
    });
    job.has_snapshot = true;
  }
  entry.stored.job = job;
  return job;
}

absl::StatusOr<std::vector<JobEvent>> MemoryStore::Events(const std::string& id,
                                                          int64_t from_seq,
                                                          int limit) {
  absl::MutexLock lock(&mutex_);
  std::vector<JobEvent> out;
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return out;
  for (const JobEvent& e : it->second.events) {
    if (e.seq >= from_seq && static_cast<int>(out.size()) < limit) {
      out.push_back(e);
    }
  }
  return out;
}

absl::Status MemoryStore::DeleteJob(const std::string& id) {
  absl::MutexLock lock(&mutex_);
  if (jobs_.erase(id) == 0) return absl::NotFoundError(StrCat("no job ", id));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<MetricSeries>> MemoryStore::Metrics(
    const std::string& id, const std::vector<std::string>& names) {
  absl::MutexLock lock(&mutex_);
  std::vector<MetricSeries> out;
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return out;
  for (const auto& [name, points] : it->second.metrics) {
    if (!names.empty() &&
        std::find(names.begin(), names.end(), name) == names.end()) {
      continue;
    }
    MetricSeries& series = out.emplace_back();
    series.name = name;
    for (const auto& [epoch, value] : points) {
      series.points.push_back({epoch, value});
    }
  }
  return out;
}

absl::StatusOr<std::optional<std::string>> MemoryStore::LatestSnapshotKey(
    const std::string& id) {
  absl::MutexLock lock(&mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second.snapshots.empty()) return std::nullopt;
  const auto& [row, blob] = it->second.snapshots.back();
  return StrCat(id, "/", row, "/", blob.kind, "/", blob.epoch, "/",
                blob.bytes.size());
}

absl::StatusOr<std::optional<SnapshotBlob>> MemoryStore::LatestSnapshot(
    const std::string& id) {
  absl::MutexLock lock(&mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second.snapshots.empty()) return std::nullopt;
  return it->second.snapshots.back().second;
}

absl::StatusOr<std::optional<Dataset>> MemoryStore::FindDataset(
    const std::string& principal, const std::string& sha256) {
  absl::MutexLock lock(&mutex_);
  for (const DatasetRow& row : datasets_) {
    if (row.principal == principal && row.dataset.sha256 == sha256) {
      return row.dataset;
    }
  }
  return std::nullopt;
}

absl::StatusOr<std::optional<Dataset>> MemoryStore::GetDataset(
    const std::string& principal, const std::string& id) {
  absl::MutexLock lock(&mutex_);
  for (const DatasetRow& row : datasets_) {
    if (row.dataset.id == id &&
        (principal.empty() || row.principal == principal)) {
      return row.dataset;
    }
  }
  return std::nullopt;
}

absl::Status MemoryStore::InsertDataset(const std::string& principal,
                                        const Dataset& dataset) {
  absl::MutexLock lock(&mutex_);
  for (const DatasetRow& row : datasets_) {
    if (row.dataset.id == dataset.id ||
        (row.principal == principal && row.dataset.sha256 == dataset.sha256)) {
      return absl::AlreadyExistsError(
          StrCat("the dataset ", dataset.id, " exists"));
    }
  }
  datasets_.push_back({principal, dataset});
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Dataset>> MemoryStore::ListDatasets(
    const std::string& principal) {
  absl::MutexLock lock(&mutex_);
  std::vector<const DatasetRow*> rows;
  for (const DatasetRow& row : datasets_) {
    if (principal.empty() || row.principal == principal) rows.push_back(&row);
  }
  std::sort(rows.begin(), rows.end(),
            [](const DatasetRow* a, const DatasetRow* b) {
              return std::make_pair(Millis(a->dataset.created), a->dataset.id) <
                     std::make_pair(Millis(b->dataset.created), b->dataset.id);
            });
  std::vector<Dataset> out;
  for (const DatasetRow* row : rows) out.push_back(row->dataset);
  return out;
}

absl::StatusOr<bool> MemoryStore::DeleteDataset(const std::string& principal,
                                                const std::string& id) {
  absl::MutexLock lock(&mutex_);
  auto it = std::find_if(
      datasets_.begin(), datasets_.end(), [&](const DatasetRow& row) {
        return row.dataset.id == id &&
               (principal.empty() || row.principal == principal);
      });
  if (it == datasets_.end())
    return absl::NotFoundError(StrCat("no dataset ", id));
  const std::string sha256 = it->dataset.sha256;
  datasets_.erase(it);
  return std::none_of(
      datasets_.begin(), datasets_.end(),
      [&](const DatasetRow& row) { return row.dataset.sha256 == sha256; });
}

}  // namespace webnnm::server
