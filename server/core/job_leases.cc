// JobManager's leases (jobs.h): the keeper thread that renews them, beats
// the daemon's heart and requeues what dead daemons left RUNNING, and what
// the store's notices of other daemons change here.
#include <iostream>

#include "engine/base/status_macros.h"
#include "engine/base/strings.h"
#include "server/core/jobs.h"

namespace webnnm::server {

absl::Status JobManager::CheckNodeName() {
  if (!store_.Shared()) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<NodeRecord> live,
                   store_.ListNodes(options_.lease));
  for (const NodeRecord& n : live) {
    if (n.name == options_.node && n.address != options_.address) {
      return absl::FailedPreconditionError(
          StrCat("the node name '", n.name, "' is in use by a live webnnmd at ",
                 n.address, ": give this daemon another --node (or wait ",
                 options_.lease.count() / 1000,
                 " s, a lease, if that daemon is dead)"));
    }
  }
  return absl::OkStatus();
}

absl::Status JobManager::RequeueInterrupted(bool at_start) {
  if (!store_.Shared()) {
    // One daemon a store: every job left RUNNING is this daemon's, from
    // before its start.
    if (!at_start) return absl::OkStatus();
    ASSIGN_OR_RETURN(std::vector<std::string> interrupted,
                     store_.JobIds(JobState::kRunning));
    for (const std::string& id : interrupted) {
      ASSIGN_OR_RETURN(std::optional<StoredJob> stored, store_.GetJob(id));
      if (stored) RETURN_IF_ERROR(Requeue(*stored, nullptr));
    }
    return absl::OkStatus();
  }
  // A shared store: jobs whose lease ran out, and at the start this
  // node's own (it was killed and is back before its leases ran out).
  ASSIGN_OR_RETURN(std::vector<StoredJob> expired,
                   store_.ExpiredJobs(at_start ? options_.node : ""));
  for (const StoredJob& stored : expired) {
    // This daemon's own stop released it (the keeper's last turn may run
    // while the workers stop): another daemon, or this one's next start,
    // takes it up; requeued here, its stop would read as a requeue.
    if (!at_start && stored.job.node == options_.node &&
        stored.job.stopped_with_daemon) {
      continue;
    }
    Fence dead{.node = stored.job.node, .attempt = stored.job.attempt};
    dead.expired = !(at_start && stored.job.node == options_.node);
    absl::Status requeued = Requeue(stored, Fenced(stored.job.id, dead));
    // Another daemon requeued it first, or its owner renewed in time.
    if (!requeued.ok() && !IsLeaseLost(requeued)) return requeued;
  }
  if (!expired.empty()) work_.SignalAll();
  return absl::OkStatus();
}

void JobManager::Beat(int busy) {
  NodeRecord self;
  self.name = options_.node;
  self.address = options_.address;
  self.version = options_.version;
  self.started = started_;
  self.workers = std::max(1, options_.workers);
  self.busy = busy;
  self.threads = options_.threads;
  self.max_replicas = options_.collectives ? options_.max_replicas : 1;
  if (absl::Status beat = store_.Heartbeat(self); !beat.ok()) {
    std::cerr << "webnnmd: cannot record this daemon's heartbeat: "
              << beat.message() << "\n";
  }
}

void JobManager::KeepOnce() {
  std::map<std::string, Fence> running;
  {
    absl::MutexLock lock(&mutex_);
    running = running_;
  }
  for (const auto& [id, fence] : running) {
    absl::Status renewed = store_.RenewLease(id, fence, options_.lease);
    if (renewed.ok()) continue;
    if (IsLeaseLost(renewed) || renewed.code() == absl::StatusCode::kNotFound) {
      std::cerr << "webnnmd: job " << id << ": " << renewed.message()
                << "; it stops here\n";
      absl::MutexLock lock(&mutex_);
      if (running_.count(id)) lost_.insert(id);
    } else {
      std::cerr << "webnnmd: cannot renew the lease of job " << id << ": "
                << renewed.message() << "\n";
    }
  }
  // Slots of other daemons' jobs: renewed, or marked over (the replica
  // stops at its next step).
  std::map<std::string, ReplicaSlot> slots;
  {
    absl::MutexLock lock(&mutex_);
    slots = slots_;
  }
  for (const auto& [id, slot] : slots) {
    if (IsLeaseLost(
            store_.RenewReplicaSlot(slot, options_.node, options_.lease))) {
      absl::MutexLock lock(&mutex_);
      lost_slots_.insert(id);
    }
  }
  Beat(static_cast<int>(running.size() + slots.size()));
  if (absl::Status swept = RequeueInterrupted(/*at_start=*/false);
      !swept.ok()) {
    std::cerr << "webnnmd: cannot requeue interrupted jobs: " << swept.message()
              << "\n";
  }
  ExplainWaits();
}

void JobManager::Keep() {
  // Renewals every third of a lease (two may fail before it runs out), at
  // least every 2 s: a job cancelled elsewhere stops within that.
  const absl::Duration every =
      std::clamp(absl::FromChrono(options_.lease) / 3, absl::Milliseconds(200),
                 absl::Seconds(2));
  while (true) {
    KeepOnce();
    absl::MutexLock lock(&mutex_);
    if (stopping_) return;
    keep_.WaitWithTimeout(&mutex_, every);
    if (stopping_) return;
  }
}

void JobManager::Heard(const StoreNotice& notice) {
  switch (notice.kind) {
    case StoreNotice::Kind::kProgress: {
      absl::MutexLock lock(&progress_mutex_);
      if (!progress_.count(notice.job_id)) {
        remote_progress_[notice.job_id] = {notice.progress,
                                           std::chrono::steady_clock::now()};
      }
      return;  // watchers poll progress on their own
    }
    case StoreNotice::Kind::kDeleted: {
      std::function<void(const std::string&)> deleted;
      {
        absl::MutexLock lock(&mutex_);
        deleted = deleted_;
      }
      if (deleted) deleted(notice.job_id);
      break;
    }
    case StoreNotice::Kind::kJob:
    case StoreNotice::Kind::kResync:
      break;
  }
  {
    absl::MutexLock lock(&progress_mutex_);
    remote_progress_.erase(notice.job_id);
  }
  Queued();  // watchers look again, idle workers try to claim
}

}  // namespace webnnm::server
